import http from 'node:http';
import { createECDH, createPublicKey, randomBytes, type ECDH } from 'node:crypto';
import jwt from 'jsonwebtoken';
// @ts-expect-error http_ece ships no types
import ece from 'http_ece';

/**
 * A push service on loopback, as a browser vendor runs one (RFC 8030): it
 * accepts a push only with a valid VAPID JWT (RFC 8292) for the appliance's
 * public key, and the test decrypts the payload (RFC 8291, aes128gcm) with the
 * subscription keys a browser would hold. `answer` decides the status of the
 * next pushes (default 201).
 */
export interface ReceivedPush {
  path: string;
  /** the decrypted payload, parsed */
  message: any;
  claims: jwt.JwtPayload;
  ttl: string | undefined;
}

export interface TestBrowser {
  /** what the app posts to /api/client/push/subscribe */
  subscription: { endpoint: string; keys: { p256dh: string; auth: string } };
}

export interface PushService {
  url: string;
  received: ReceivedPush[];
  /** refusals (bad JWT, undecryptable body): a correct appliance never causes one */
  refused: string[];
  /** statuses for the next pushes, in order; then 201 */
  answer: number[];
  browser(name?: string): TestBrowser;
  stop(): Promise<void>;
}

export async function startPushService(vapidPublicKey: () => string): Promise<PushService> {
  const browsers = new Map<string, { ecdh: ECDH; auth: Buffer }>();
  const service: PushService = {
    url: '',
    received: [],
    refused: [],
    answer: [],
    browser(name = randomBytes(6).toString('hex')) {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16);
      browsers.set(`/push/${name}`, { ecdh, auth });
      return {
        subscription: {
          endpoint: `${service.url}/push/${name}`,
          keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
        },
      };
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const refuse = (status: number, why: string) => {
        service.refused.push(why);
        res.writeHead(status).end(why);
      };
      const browser = browsers.get(req.url ?? '');
      if (req.method !== 'POST' || !browser) return refuse(404, 'no such subscription');
      // Authorization: vapid t=<JWT>, k=<public key>
      const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(req.headers.authorization ?? '');
      if (!match) return refuse(401, 'no VAPID authorization');
      const [, token, key] = match as unknown as [string, string, string];
      if (key !== vapidPublicKey()) return refuse(403, "not the subscription's application server key");
      let claims: jwt.JwtPayload;
      try {
        claims = jwt.verify(token, publicKeyOf(key), { algorithms: ['ES256'], audience: service.url }) as jwt.JwtPayload;
      } catch (error) {
        return refuse(403, `VAPID JWT: ${(error as Error).message}`);
      }
      if (!claims.exp || claims.exp > Date.now() / 1000 + 24 * 3600 || !/^(mailto:|https:)/.test(String(claims.sub)))
        return refuse(403, 'VAPID claims');
      if (req.headers['content-encoding'] !== 'aes128gcm') return refuse(415, 'not aes128gcm');
      let message: unknown;
      try {
        const plain: Buffer = ece.decrypt(Buffer.concat(chunks), {
          version: 'aes128gcm',
          privateKey: browser.ecdh,
          authSecret: browser.auth,
        });
        message = JSON.parse(plain.toString('utf8'));
      } catch (error) {
        return refuse(400, `payload: ${(error as Error).message}`);
      }
      const status = service.answer.shift() ?? 201;
      if (status === 201) service.received.push({ path: req.url!, message, claims, ttl: req.headers.ttl as string | undefined });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  service.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return service;
}

/** The VAPID public key (uncompressed P-256 point, base64url) as a KeyObject jsonwebtoken verifies ES256 with. */
function publicKeyOf(raw: string) {
  const point = Buffer.from(raw, 'base64url');
  return createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33, 65).toString('base64url') },
    format: 'jwk',
  });
}
