import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startDaemon } from '../helpers/cli';
import { ADMIN_PASSWORD } from '../helpers/server';
import { waitFor } from '../helpers/wait';

// A client that closes its connection while the answer is on its way (a phone leaving Wi-Fi, a
// cancelled download) is routine, not a server fault: `wip serve` logs it at debug with the request id, and
// nothing at error level (before, Koa printed "Error: write EPIPE" with its stack on stderr).

const test = suite('a client closing its connection mid-answer');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-abort-'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Asks for `target` on a raw socket and closes it after `ms`, before the answer (or amid it). */
function askAndHangUp(port: number, target: string, requestId: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: ${requestId}\r\n\r\n`);
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, ms);
    });
    socket.on('error', () => resolve());
  });
}

test('is logged at debug with its request id, and no line at error level or on stderr', async () => {
  const daemon = await startDaemon(['--data-dir', dir], { WIP_ADMIN_PASSWORD: ADMIN_PASSWORD, WIP_ENV: 'test', WIP_LOG_LEVEL: 'debug' });
  let stderr = '';
  daemon.child.stderr!.on('data', (chunk) => (stderr += chunk));
  const port = Number(new URL(daemon.url).port);
  try {
    // the daemon's first OpenAPI document takes a moment (every route group is loaded to describe it): the
    // client gives up before the answer, whose bytes then meet a closed connection
    await askAndHangUp(port, '/api/openapi.json', 'hang-up-1', 20);
    const lines = () =>
      daemon
        .stdout()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; msg: string; requestId?: string; code?: string });
    await waitFor(`a debug line of the hang-ups (stderr: ${stderr})`, () =>
      lines().some((line) => line.requestId?.startsWith('hang-up-') && line.level === 20),
    );
    const gone = lines().filter((line) => line.requestId?.startsWith('hang-up-') && line.level === 20);
    assert.match(gone[0].msg, /client closed the connection/);
    assert.ok(['EPIPE', 'ECONNRESET', 'ERR_STREAM_PREMATURE_CLOSE'].includes(gone[0].code ?? ''), JSON.stringify(gone[0]));
    assert.equal(
      lines().filter((line) => line.level >= 50),
      [],
    );
    assert.is(stderr, '');
  } finally {
    await daemon.stop();
  }
});

test.run();
