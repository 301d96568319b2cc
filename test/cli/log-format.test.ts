import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, startDaemon } from '../helpers/cli';
import { waitFor } from '../helpers/wait';

const dirs: string[] = [];
const dataDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-logfmt-'));
  dirs.push(dir);
  return dir;
};
const ENV = { WIP_ADMIN_PASSWORD: 'log-format-admin', WIP_ENV: 'test' };

const logs = suite('wip serve log format');
logs.after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const listeningLine = (out: string) => out.split('\n').find((line) => line.includes('wip listening on')) ?? '';

logs('stdout not a terminal: JSON lines (also with WIP_LOG_FORMAT=json)', async () => {
  for (const extra of [{}, { WIP_LOG_FORMAT: 'json' }] as Record<string, string>[]) {
    const daemon = await startDaemon(['--data-dir', dataDir()], { ...ENV, ...extra });
    const line = listeningLine(daemon.stdout());
    assert.is(JSON.parse(line).msg.startsWith('wip listening on'), true, line);
    assert.is(await daemon.stop(), 0, daemon.stdout());
  }
});

logs('--log-format pretty (or WIP_LOG_FORMAT=pretty): readable lines, secrets still redacted', async () => {
  const daemon = await startDaemon(['--data-dir', dataDir()], { ...ENV, WIP_LOG_FORMAT: 'pretty' });
  const line = listeningLine(daemon.stdout());
  assert.not.ok(line.trimStart().startsWith('{'), line);
  assert.match(line, /INFO/);
  assert.match(line, /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\]/);
  assert.is(await daemon.stop(), 0);
});

/**
 * `wip serve` with stdout on a terminal (script(1) gives it one): the line it logs when listening, and everything it
 * printed once `then` (given the URL) is done and `until` holds for the output.
 */
async function onTerminal(
  serveArgs: string[],
  then: (url: string) => Promise<void> = async () => {},
  until: (out: string) => boolean = () => true,
): Promise<{ listening: string; out: string }> {
  const command = [process.execPath, BIN, '--data-dir', dataDir(), 'serve', '--host', '127.0.0.1', '--port', '0', ...serveArgs]
    .map((a) => JSON.stringify(a))
    .join(' ');
  const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
    env: { ...process.env, ...ENV, WIP_BCRYPT_COST: '4', WIP_LOG_LEVEL: 'info' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  const plain = () => out.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r/g, '');
  try {
    const listening = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 15_000);
      child.stdout.on('data', (d) => {
        out += d;
        const found = listeningLine(plain());
        if (found) {
          clearTimeout(timer);
          resolve(found.trim());
        }
      });
    });
    await then(/(http:\/\/\S+)/.exec(listening)![1].replace('localhost', '127.0.0.1'));
    await waitFor('the complete output', () => until(plain()), 10_000).catch((error: Error) => {
      throw new Error(`${error.message}: ${plain()}`);
    });
    return { listening, out: plain() };
  } finally {
    // the terminal's interrupt reaches wip in script's session: a clean SIGINT shutdown
    child.stdin.write('\x03');
    await new Promise((resolve) => child.on('close', resolve));
  }
}
const listeningOnTerminal = async (serveArgs: string[]) => (await onTerminal(serveArgs)).listening;

logs('on a terminal each request is one readable line (method, path, status, time, who, request id)', async () => {
  const paths = ['/healthz', '/api/client/auth/me', '/no-such-page'];
  const { out } = await onTerminal(
    [],
    async (url) => {
      for (const p of paths) await fetch(url + p, { headers: { 'x-request-id': `req-${p.length}` } });
    },
    (text) => text.includes('/no-such-page 404'),
  );
  const lines = out.split('\n');
  for (const p of paths) {
    const mentioning = lines.filter((l) => l.includes(p));
    assert.is(mentioning.length, 1, out);
    assert.match(mentioning[0], new RegExp(`^\\[[0-9: .-]+\\] INFO: GET ${p} \\d{3} \\d+\\.\\d ms \\[req-${p.length}\\]$`));
  }
  // no field lines of a request below it (pino-pretty's "    requestId: …" block)
  assert.not.ok(
    lines.some((l) => /^\s+(requestId|method|route|status|ms):/.test(l)),
    out,
  );
});

logs('stdout a terminal: readable lines without any flag; --log-format json keeps JSON', async () => {
  const readable = await listeningOnTerminal([]);
  assert.not.ok(readable.startsWith('{'), readable);
  assert.match(readable, /INFO/);
  const json = await listeningOnTerminal(['--log-format', 'json']);
  assert.is(JSON.parse(json).msg.startsWith('wip listening on'), true, json);
});

logs.run();
