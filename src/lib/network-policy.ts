import dns from 'node:dns/promises';
import net from 'node:net';
import os from 'node:os';

/**
 * Where webhooks may be delivered (SSRF defence). A target is resolved and
 * checked at creation and again at every delivery, and the connection is
 * pinned to the address checked (no DNS rebinding between check and connect).
 *
 * - public addresses: allowed;
 * - private ranges (RFC 1918, CGNAT, IPv6 ULA): allowed when inside a network of
 *   `webhookAllowedNetworks` — by default exactly the private ranges, since
 *   on-prem targets live there; a site narrows it by listing fewer networks;
 * - loopback, link-local (cloud metadata), unspecified, multicast and the
 *   appliance's own addresses: refused unless a network listed in
 *   `webhookAllowedNetworks` other than the default private ranges contains
 *   them (e.g. `127.0.0.0/8`, `10.0.0.5/32`).
 */
export const DEFAULT_ALLOWED_NETWORKS = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'] as const;

const PRIVATE = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', 'fc00::/7'];
const SPECIAL: [string, string[]][] = [
  ['loopback', ['127.0.0.0/8', '::1/128']],
  ['link-local (cloud metadata)', ['169.254.0.0/16', 'fe80::/10']],
  ['unspecified', ['0.0.0.0/8', '::/128']],
  ['multicast or broadcast', ['224.0.0.0/4', '240.0.0.0/4', 'ff00::/8']],
];

/** Parses `a.b.c.d/n` or `x::/n`; undefined when it is not a CIDR. */
export function parseCidr(text: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const match = /^([^/\s]+)\/(\d{1,3})$/.exec(text.trim());
  if (!match) return undefined;
  const family = match[1].includes(':') ? 'ipv6' : 'ipv4';
  const prefix = Number(match[2]);
  if (prefix > (family === 'ipv4' ? 32 : 128) || !isAddress(match[1], family)) return undefined;
  return { address: match[1], prefix, family };
}

/**
 * net.isIP for a known family, parsed natively (as BlockList does) instead of
 * by net.isIP's regular expressions, which its first call compiles: the
 * configuration's default networks are parsed at every start (≈ 5 ms).
 */
function isAddress(address: string, family: 'ipv4' | 'ipv6'): boolean {
  // an IPv6 zone as net.isIP allows it (the native parser takes anything after %)
  if (!/^[^%]*(%[0-9a-zA-Z.:-]+)?$/.test(address)) return false;
  try {
    new net.SocketAddress({ address, family });
    return true;
  } catch {
    return false;
  }
}

function blockList(cidrs: readonly string[]): net.BlockList {
  const list = new net.BlockList();
  for (const cidr of cidrs) {
    const parsed = parseCidr(cidr);
    if (parsed) list.addSubnet(parsed.address, parsed.prefix, parsed.family);
  }
  return list;
}

let builtIn: { privateList: net.BlockList; specialLists: (readonly [string, net.BlockList])[] } | undefined;

/** Made on first use, not at start-up: the first net.isIP compiles its regular expressions (several ms). */
function builtInLists() {
  builtIn ??= { privateList: blockList(PRIVATE), specialLists: SPECIAL.map(([name, cidrs]) => [name, blockList(cidrs)] as const) };
  return builtIn;
}

/** `::ffff:127.0.0.1` and `::ffff:7f00:1` are IPv4 addresses in disguise. */
export function unmapIpv4(address: string): string {
  const lower = address.toLowerCase();
  const mapped = /^(?:::|(?:0{1,4}:){5})ffff:(.+)$/.exec(lower);
  if (!mapped) return address;
  const rest = mapped[1];
  if (net.isIPv4(rest)) return rest;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(rest);
  if (!hex) return address;
  const hi = parseInt(hex[1], 16);
  const lo = parseInt(hex[2], 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

function ownAddresses(): Set<string> {
  return new Set(Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((i) => unmapIpv4(i.address.split('%')[0]))));
}

export class NetworkPolicy {
  private configured: { allowed: net.BlockList; explicit: net.BlockList } | undefined;

  /** `setting` names the configuration key in refusal messages */
  constructor(
    private readonly allowedNetworks: readonly string[],
    private readonly setting = 'webhookAllowedNetworks',
  ) {}

  /** The configured networks as lists, made on the first check (see builtInLists). */
  private lists(): { allowed: net.BlockList; explicit: net.BlockList } {
    this.configured ??= {
      allowed: blockList(this.allowedNetworks),
      explicit: blockList(this.allowedNetworks.filter((cidr) => !(DEFAULT_ALLOWED_NETWORKS as readonly string[]).includes(cidr))),
    };
    return this.configured;
  }

  /** Why an address may not be reached, or null when it may. */
  refusal(rawAddress: string): string | null {
    const address = unmapIpv4(rawAddress);
    const family = net.isIPv4(address) ? 'ipv4' : 'ipv6';
    const { privateList, specialLists } = builtInLists();
    const { allowed, explicit } = this.lists();
    const special =
      specialLists.find(([, list]) => list.check(address, family))?.[0] ?? (ownAddresses().has(address) ? "this appliance's own" : null);
    if (special) {
      return explicit.check(address, family) ? null : `${address} is a ${special} address; list its network in ${this.setting} to allow it`;
    }
    if (privateList.check(address, family) && !allowed.check(address, family)) {
      return `${address} is a private address outside ${this.setting}`;
    }
    return null;
  }

  /**
   * Resolves a webhook URL's host and checks every address it resolves to.
   * @returns the address to connect to (pin it)
   * @throws TargetRefused naming the reason
   */
  async resolve(url: URL): Promise<{ address: string; family: 4 | 6 }> {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let addresses: { address: string; family: number }[];
    if (net.isIP(host)) addresses = [{ address: host, family: net.isIP(host) }];
    else {
      try {
        addresses = await dns.lookup(host, { all: true, verbatim: true });
      } catch (error) {
        throw new TargetRefused(`${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'DNS error'})`);
      }
    }
    if (addresses.length === 0) throw new TargetRefused(`${host} does not resolve`);
    // every address must pass: a name with one good and one internal address is refused
    for (const { address } of addresses) {
      const reason = this.refusal(address);
      if (reason) throw new TargetRefused(net.isIP(host) ? reason : `${host} resolves to ${reason}`);
    }
    const first = addresses[0];
    return { address: first.address, family: first.family === 6 ? 6 : 4 };
  }
}

export class TargetRefused extends Error {
  override name = 'TargetRefused';
}

/** A webhook URL must be absolute http(s) without credentials. Returns why not, or null. */
export function urlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'use an http or https URL';
  if (url.username || url.password) return 'credentials in the URL are not allowed; the signature authenticates deliveries';
  return null;
}
