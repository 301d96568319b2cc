import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';

/**
 * A real OpenID Connect provider (the `oidc-provider` package) on a loopback
 * port, with its development login and consent pages. Accounts are whatever
 * the test puts in `accounts`; `tamperToken` lets a test change the token
 * endpoint's answer (a man in the middle it controls); `signIdToken` re-signs
 * claims with the provider's own key (valid signature, chosen content).
 * Test-only keys and secrets.
 */
export interface TestIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, Record<string, unknown>>;
  tamperToken?: (body: Record<string, unknown>) => Promise<Record<string, unknown>> | Record<string, unknown>;
  signIdToken(claims: Record<string, unknown>): Promise<string>;
  stop(): Promise<void>;
}

export async function startTestIdp(options: { redirectUri: string; pathPrefix?: string }): Promise<TestIdp> {
  const { default: Provider } = await import('oidc-provider');
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-only-key', alg: 'RS256', use: 'sig' };
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const prefix = options.pathPrefix ?? '';
  const issuer = `http://127.0.0.1:${port}${prefix}`;
  const accounts = new Map<string, Record<string, unknown>>();
  const idp: TestIdp = {
    issuer,
    clientId: 'wip-test-client',
    clientSecret: 'test-only-client-secret-0123456789abcdef',
    accounts,
    async signIdToken(claims) {
      return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'test-only-key' }).sign(privateKey);
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: idp.clientId,
        client_secret: idp.clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [jwk] },
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AuthorizationCode: 60, IdToken: 3600, AccessToken: 3600 },
    cookies: { keys: ['test-only-cookie-key'] },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['given_name', 'family_name', 'preferred_username'],
      groups: ['groups'],
    },
    conformIdTokenClaims: false,
    async findAccount(_ctx: unknown, sub: string) {
      const claims = accounts.get(sub) ?? { email: `${sub}@idp.test`, email_verified: true };
      return { accountId: sub, claims: async () => ({ sub, ...claims }) };
    },
    features: { devInteractions: { enabled: true } },
  });
  provider.use(async (ctx: { path: string; status: number; body: unknown }, next: () => Promise<void>) => {
    await next();
    if (ctx.path === '/token' && ctx.status === 200 && idp.tamperToken)
      ctx.body = await idp.tamperToken(ctx.body as Record<string, unknown>);
  });
  const callback = provider.callback();
  server.on('request', (req, res) => {
    // mounted under a path (as express mounts it): oidc-provider derives its endpoint URLs from originalUrl
    if (prefix && req.url?.startsWith(prefix)) {
      (req as { originalUrl?: string }).originalUrl = req.url;
      req.url = req.url.slice(prefix.length) || '/';
    } else if (prefix) {
      res.statusCode = 404;
      res.end();
      return;
    }
    callback(req, res);
  });
  return idp;
}

/** Re-signs an ID token with changed claims (the provider's key: the signature stays valid). */
export async function resignIdToken(idp: TestIdp, idToken: string, changes: Record<string, unknown>): Promise<string> {
  decodeProtectedHeader(idToken);
  return idp.signIdToken({ ...decodeJwt(idToken), ...changes });
}

/**
 * A browser: follows redirects across both servers with a cookie jar per
 * host, and submits the provider's login and consent forms. Stops at the first
 * answer that is neither a redirect nor one of those forms, or at `stopAt`.
 */
export class TestBrowser {
  private readonly jar = new Map<string, Map<string, string>>();

  async fetch(url: string, init: { method?: string; body?: URLSearchParams } = {}): Promise<Response> {
    const target = new URL(url);
    const cookies = this.jar.get(target.host);
    const headers: Record<string, string> = {};
    if (cookies && cookies.size > 0) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (init.body) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(url, { method: init.method ?? 'GET', body: init.body, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const [name, ...value] = pair.split('=');
      const jar = this.jar.get(target.host) ?? new Map<string, string>();
      this.jar.set(target.host, jar);
      const expired = attributes.some((a) => /expires=Thu, 01 Jan 1970/i.test(a)) || value.join('=') === '';
      if (expired) jar.delete(name.trim());
      else jar.set(name.trim(), value.join('='));
    }
    return res;
  }

  /** Walks from `url` until a redirect to `stopAt` (returned, not followed) or a final answer. */
  async walk(url: string, stopAt: string, login = 'alice'): Promise<{ url: string; response?: Response }> {
    let current = url;
    let method = 'GET';
    let body: URLSearchParams | undefined;
    for (let hop = 0; hop < 20; hop++) {
      const res = await this.fetch(current, { method, body });
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        const next = new URL(location, current).href;
        if (next.startsWith(stopAt)) return { url: next };
        current = next;
        method = 'GET';
        body = undefined;
        continue;
      }
      const html = res.headers.get('content-type')?.includes('text/html') ? await res.text() : '';
      const form = /<form[^>]*action="([^"]+)"[^>]*method="post"/i.exec(html);
      if (!form) return { url: current, response: res };
      const fields = new URLSearchParams();
      for (const [tag] of html.matchAll(/<input[^>]*>/gi)) {
        const name = /name="([^"]+)"/.exec(tag)?.[1];
        if (name) fields.set(name, /value="([^"]*)"/.exec(tag)?.[1] ?? '');
      }
      if (fields.has('login')) {
        fields.set('login', login);
        fields.set('password', 'any-password');
      }
      current = new URL(form[1], current).href;
      method = 'POST';
      body = fields;
    }
    throw new Error('too many hops');
  }
}
