import { X509Certificate, generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type Forge from 'node-forge';
import { TLS_DIR } from './paths';

/** node-forge is loaded when a certificate is issued or inspected: its modules are a measurable part of every start otherwise */
let nodeForge: typeof Forge | undefined;
const forge = (): typeof Forge => (nodeForge ??= require('node-forge') as typeof Forge);

/**
 * Self-signed TLS for a LAN without a PKI: a private CA (10 years) generated
 * once and kept in <data-dir>/tls, and a server certificate it signs for the
 * configured host names and IPs. Clients trust the CA once (tls/ca.crt) and
 * every later server certificate just works. The server certificate is
 * re-issued when the host list changes or it is within 30 days of expiry.
 */
export interface TlsMaterial {
  key: string;
  /** server certificate followed by the CA certificate */
  cert: string;
  /** the CA certificate (PEM) clients are told to trust */
  ca: string;
  caFile: string;
  /** what changed on disk now */
  created: { ca: boolean; server: boolean };
}

const CA_YEARS = 10;
const SERVER_DAYS = 397;
const RENEW_DAYS = 30;
const DAY = 24 * 60 * 60 * 1000;

export function tlsDir(dataDir: string): string {
  return path.join(dataDir, TLS_DIR);
}

/** The host list of the self-signed certificate: the configured one, or this host's name plus loopback. */
export function selfSignedHosts(configured: string): string[] {
  const given = configured
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  const hosts = given.length > 0 ? given : [os.hostname(), 'localhost', '127.0.0.1', '::1'];
  return [...new Set(hosts.map((h) => h.toLowerCase()))];
}

/** @throws Error when an existing CA cannot be read (never replaced silently: clients trust it). */
export function loadOrCreateSelfSignedTls(dataDir: string, hosts: string[], now: Date = new Date()): TlsMaterial {
  const dir = tlsDir(dataDir);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const files = {
    caKey: path.join(dir, 'ca.key'),
    caCert: path.join(dir, 'ca.crt'),
    key: path.join(dir, 'server.key'),
    cert: path.join(dir, 'server.crt'),
  };
  const created = { ca: false, server: false };

  if (!fs.existsSync(files.caCert) || !fs.existsSync(files.caKey)) {
    const ca = issueCa(now, hosts);
    writePrivate(files.caKey, ca.key);
    fs.writeFileSync(files.caCert, ca.cert, { mode: 0o644 });
    created.ca = true;
  }
  const caCertPem = fs.readFileSync(files.caCert, 'utf8');
  const caKeyPem = fs.readFileSync(files.caKey, 'utf8');

  if (created.ca || !serverCertFits(files, hosts, caCertPem, now)) {
    assertWithinNameConstraints(hosts, caCertPem, files.caCert);
    const server = issueServerCert(hosts, caCertPem, caKeyPem, now);
    writePrivate(files.key, server.key);
    fs.writeFileSync(files.cert, server.cert, { mode: 0o644 });
    created.server = true;
  }
  return {
    key: fs.readFileSync(files.key, 'utf8'),
    cert: fs.readFileSync(files.cert, 'utf8') + caCertPem,
    ca: caCertPem,
    caFile: files.caCert,
    created,
  };
}

function serverCertFits(files: { key: string; cert: string }, hosts: string[], caPem: string, now: Date): boolean {
  if (!fs.existsSync(files.cert) || !fs.existsSync(files.key)) return false;
  try {
    const cert = new X509Certificate(fs.readFileSync(files.cert));
    if (!cert.verify(new X509Certificate(caPem).publicKey)) return false;
    if (new Date(cert.validTo).getTime() - now.getTime() < RENEW_DAYS * DAY) return false;
    const names = (cert.subjectAltName ?? '')
      .split(', ')
      .map((entry) => entry.replace(/^(DNS|IP Address):/, '').toLowerCase())
      .map((entry) => (net.isIP(entry) ? normalizeIp(entry) : entry));
    const wanted = hosts.map((h) => (net.isIP(h) ? normalizeIp(h) : h));
    return names.length === wanted.length && wanted.every((h) => names.includes(h));
  } catch {
    return false;
  }
}

function issueCa(now: Date, hosts: string[]): { key: string; cert: string } {
  const keys = rsaKeyPair();
  const cert = forge().pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = new Date(now.getTime() - DAY);
  cert.validity.notAfter = new Date(now.getTime() + CA_YEARS * 365 * DAY);
  const subject = [
    { name: 'commonName', value: `wip local CA ${os.hostname()} ${now.toISOString().slice(0, 10)}` },
    { name: 'organizationName', value: 'wip' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    // A stolen ca.key (or a CA trusted by every client of the LAN) can then only
    // vouch for this appliance's own names, never for another site.
    { id: NAME_CONSTRAINTS_OID, critical: true, value: nameConstraints(hosts) },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.privateKey, forge().md.sha256.create());
  return { key: forge().pki.privateKeyToPem(keys.privateKey), cert: forge().pki.certificateToPem(cert) };
}

function issueServerCert(hosts: string[], caCertPem: string, caKeyPem: string, now: Date): { key: string; cert: string } {
  const caCert = forge().pki.certificateFromPem(caCertPem);
  const caKey = forge().pki.privateKeyFromPem(caKeyPem);
  const keys = rsaKeyPair();
  const cert = forge().pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = new Date(now.getTime() - DAY);
  cert.validity.notAfter = new Date(now.getTime() + SERVER_DAYS * DAY);
  // a DNS name where there is one: verifiers that still read the CN check it against the DNS constraints
  cert.setSubject([{ name: 'commonName', value: hosts.find((h) => !net.isIP(h)) ?? hosts[0] ?? 'localhost' }]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      // type 2 = DNS name, 7 = IP address
      altNames: hosts.map((h) => (net.isIP(h) ? { type: 7, ip: h } : { type: 2, value: h })),
    },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(caKey, forge().md.sha256.create());
  return { key: forge().pki.privateKeyToPem(keys.privateKey), cert: forge().pki.certificateToPem(cert) };
}

const NAME_CONSTRAINTS_OID = '2.5.29.30';

/**
 * The value of a nameConstraints extension (RFC 5280 4.2.1.10) permitting
 * exactly the given names: a DNS name permits itself and its subdomains, an
 * IP address itself only (address + all-ones mask). node-forge reads this
 * extension but cannot build it, so it is given as ASN.1:
 * SEQUENCE { [0] permittedSubtrees: SEQUENCE OF SEQUENCE { GeneralName } }.
 */
function nameConstraints(hosts: string[]): Forge.asn1.Asn1 {
  const { asn1 } = forge();
  const subtree = (host: string) => {
    const base = net.isIP(host)
      ? // iPAddress [7]: the address bytes followed by a mask of the same length
        asn1.create(asn1.Class.CONTEXT_SPECIFIC, 7, false, ipBytes(host) + '\xff'.repeat(ipBytes(host).length))
      : // dNSName [2]
        asn1.create(asn1.Class.CONTEXT_SPECIFIC, 2, false, host);
    return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [base]);
  };
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, hosts.map(subtree)),
  ]);
}

// forge has these helpers but its type definitions do not declare them
const forgeIp = (): { bytesFromIP(ip: string): string; bytesToIP(bytes: string): string } => forge().util as never;

function ipBytes(ip: string): string {
  return forgeIp().bytesFromIP(ip);
}

/**
 * The CA is never replaced automatically (clients trust it), and it can only
 * vouch for the names it was made for: a host added later that is outside
 * them needs a new CA, which is the operator's decision.
 * @throws Error naming the hosts the CA cannot issue for.
 */
function assertWithinNameConstraints(hosts: string[], caPem: string, caFile: string): void {
  const extension = forge().pki.certificateFromPem(caPem).getExtension('nameConstraints') as {
    permittedSubtrees?: { type: number; value: string }[];
  } | null;
  // a CA made before name constraints existed may issue for anything
  if (!extension?.permittedSubtrees) return;
  const permitted = extension.permittedSubtrees;
  const allowed = (host: string) =>
    net.isIP(host)
      ? permitted.some((tree) => tree.type === 7 && tree.value.slice(0, tree.value.length / 2) === ipBytes(host))
      : permitted.some((tree) => tree.type === 2 && (host === tree.value || host.endsWith(`.${tree.value}`)));
  const outside = hosts.filter((host) => !allowed(host));
  if (outside.length > 0) {
    throw new Error(
      `the local CA ${caFile} may only issue certificates for ${permitted.map(describeSubtree).join(', ')}, not for ${outside.join(', ')}; ` +
        `to serve other names move ${path.dirname(caFile)} away so a new CA is generated (every client must then trust the new ca.crt)`,
    );
  }
}

function describeSubtree(tree: { type: number; value: string }): string {
  return tree.type === 7 ? forgeIp().bytesToIP(tree.value.slice(0, tree.value.length / 2)) : tree.value;
}

/** RSA keys from the runtime's crypto (fast), handed to forge for the certificate work. */
function rsaKeyPair(): { privateKey: Forge.pki.rsa.PrivateKey; publicKey: Forge.pki.rsa.PublicKey } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const forgeKey = forge().pki.privateKeyFromPem(pem);
  return { privateKey: forgeKey, publicKey: forge().pki.setRsaPublicKey(forgeKey.n, forgeKey.e) };
}

function serialNumber(): string {
  // positive 128-bit serial: a leading 0 nibble keeps the DER integer positive
  return '0' + randomBytes(16).toString('hex').slice(1);
}

function normalizeIp(ip: string): string {
  if (net.isIPv6(ip)) {
    // expand to the canonical form Node prints in subjectAltName (e.g. ::1 → 0:0:0:0:0:0:0:1)
    const parts = ip.split('::');
    const head = parts[0] ? parts[0].split(':') : [];
    const tail = parts[1] ? parts[1].split(':') : [];
    const fill = parts.length === 2 ? Array(8 - head.length - tail.length).fill('0') : [];
    return [...head, ...fill, ...tail].map((p) => parseInt(p, 16).toString(16)).join(':');
  }
  return ip;
}

function writePrivate(file: string, content: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, content, { mode: 0o600 });
  fs.renameSync(temp, file);
}
