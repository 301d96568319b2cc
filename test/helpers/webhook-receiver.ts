import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { waitFor } from './wait';

export interface ReceivedDelivery {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedDelivery[];
  /** the status (and headers) the n-th request (0-based) is answered with; default 200 */
  respond: (n: number) => { status: number; headers?: Record<string, string> };
  /** waits until `count` requests arrived (or fails after `timeoutMs`) */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1 that records every request. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const receiver = {
    received,
    respond: (_n: number) => ({ status: 200 }),
  } as WebhookReceiver;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = received.length;
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const answer = receiver.respond(n);
      res.writeHead(answer.status, answer.headers ?? {});
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.waitFor = async (count, timeoutMs = 10_000) => {
    await waitFor(`${count} deliveries`, () => received.length >= count, timeoutMs).catch((error: Error) => {
      throw new Error(`${error.message} (got ${received.length})`);
    });
    return received.slice(0, count);
  };
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return receiver;
}

/** Verifies a delivery with the standardwebhooks package's own verifier; returns the parsed payload. */
export function verifyDelivery(secret: string, delivery: ReceivedDelivery): any {
  return new Webhook(secret).verify(delivery.body, {
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  });
}
