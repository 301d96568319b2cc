import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface UpstreamRequest {
  method: string;
  /** path and query as received */
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface UpstreamAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** never answer: the product's own timeout ends the request (a real socket timer, which no test clock drives) */
  silent?: boolean;
}

export interface Upstream {
  /** http://127.0.0.1:<port> */
  url: string;
  received: UpstreamRequest[];
  /** how each request is answered; a JSON 200 `{}` unless set */
  answer: (request: UpstreamRequest) => UpstreamAnswer | Promise<UpstreamAnswer>;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 standing in for an integration's upstream: records every request, answers as the test says. */
export async function startUpstream(): Promise<Upstream> {
  const received: UpstreamRequest[] = [];
  const upstream = {
    received,
    answer: () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{}' }),
  } as unknown as Upstream;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(request);
      const answer = await upstream.answer(request);
      if (answer.silent || res.destroyed) return;
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  upstream.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return upstream;
}

export const json = (status: number, value: unknown): UpstreamAnswer => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(value),
});
