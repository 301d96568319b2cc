import net from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer } from '../helpers/server';
import { adminToken } from '../helpers/factories';
import { waitFor } from '../helpers/wait';

/**
 * A stop (SIGTERM, `wip serve` ending, a test server's stop) waits for the requests in flight and for nothing else
 * (src/http/connection-drain.ts): a connection with no request must not hold it, an answer in flight still arrives.
 */
const stop = suite('stopping the server');

stop('a connection on which nothing was sent does not hold the stop', async () => {
  const server = await startTestServer();
  const accepted = new Promise((resolve) => server.listener.once('connection', resolve));
  const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
  const closed = new Promise((resolve) => socket.once('close', resolve));
  socket.on('error', () => {});
  await accepted;
  let stopped = false;
  const stopping = server.stop().then(() => (stopped = true));
  // Node would keep such a connection until its headers timeout (a minute); waitFor gives up after 15 s
  await waitFor('the stop to end', () => stopped);
  await closed;
  await stopping;
});

stop('an answer in flight is sent whole before its connection closes; a kept-alive idle one closes', async () => {
  const server = await startTestServer();
  const token = await adminToken(server);
  // an event stream is a request in flight until the stop ends it
  const controller = new AbortController();
  const response = await fetch(`${server.url}/api/admin/logs/stream`, {
    headers: { authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
  assert.is(response.status, 200);
  const reader = response.body!.getReader();
  let stopped = false;
  const stopping = server.stop().then(() => (stopped = true));
  let received = '';
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) received += Buffer.from(chunk.value).toString('utf8');
  assert.match(received, ': connected', 'the stream was answered, then ended by the stop');
  await waitFor('the stop to end', () => stopped);
  await stopping;
});

stop.run();
