import type { Deps } from '#deps';
import { guardedFetch, type GuardedFetch } from '#lib/guarded-fetch';
import { NetworkPolicy, TargetRefused } from '#lib/network-policy';

/**
 * Every call to an identity provider (OIDC discovery, its keys and token
 * endpoint; the directory's graph API) goes through here: the addresses it
 * may reach are those of `ssoAllowedNetworks` (the webhook policy: public
 * addresses, private ranges listed there, loopback and link-local only when a
 * network listed explicitly contains them), the connection is pinned to the
 * address checked, and plain http is accepted for loopback only. A provider
 * record is written by a client's Security Administrator, so its URLs must not
 * reach into the appliance's network.
 */

const fetches = new WeakMap<Deps, GuardedFetch>();

export function idpFetch(deps: Deps): GuardedFetch {
  let fetch = fetches.get(deps);
  if (!fetch) {
    const policy = new NetworkPolicy(deps.config.ssoAllowedNetworks, 'ssoAllowedNetworks');
    const guarded = guardedFetch(policy);
    fetch = async (href, init) => {
      const url = new URL(href);
      if (url.protocol !== 'https:' && !isLoopbackHttp(url))
        throw new TargetRefused(`${url.origin} is not https (plain http only on loopback)`);
      return guarded(href, init);
    };
    fetches.set(deps, fetch);
  }
  return fetch;
}

/** Plain http is accepted for a provider on this machine (loopback) only; anywhere else it must be https. */
export function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && (['[::1]', 'localhost'].includes(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname));
}

/**
 * The request could not reach the provider (refused by the network policy,
 * network error, timeout): unavailable, not a refusal. openid-client wraps
 * what the fetch threw, so the causes are looked at too.
 */
export function isUnreachableError(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (current instanceof TargetRefused || current.name === 'AbortError' || current.name === 'TimeoutError') return true;
    if (typeof code === 'string' && (/^E[A-Z]+$/.test(code) || ['ABORT_ERR', 'OAUTH_TIMEOUT', 'OAUTH_ABORT'].includes(code))) return true;
  }
  return false;
}
