import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, startDaemon } from '../helpers/cli';

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

/** `wip serve` with stdout on a terminal (script(1) gives it one); the line it logs when listening. */
async function listeningOnTerminal(serveArgs: string[]): Promise<string> {
  const command = [process.execPath, BIN, '--data-dir', dataDir(), 'serve', '--host', '127.0.0.1', '--port', '0', ...serveArgs].map((a) => JSON.stringify(a)).join(' ');
  const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { env: { ...process.env, ...ENV, WIP_BCRYPT_COST: '4', WIP_LOG_LEVEL: 'info' }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  try {
    return await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 15_000);
      child.stdout.on('data', (d) => {
        out += d;
        const found = listeningLine(out);
        if (found) {
          clearTimeout(timer);
          resolve(found.replace(/\x1b\[[0-9;]*m/g, '').trim());
        }
      });
    });
  } finally {
    // the terminal's interrupt reaches wip in script's session: a clean SIGINT shutdown
    child.stdin.write('\x03');
    await new Promise((resolve) => child.on('close', resolve));
  }
}

logs('stdout a terminal: readable lines without any flag; --log-format json keeps JSON', async () => {
  const readable = await listeningOnTerminal([]);
  assert.not.ok(readable.startsWith('{'), readable);
  assert.match(readable, /INFO/);
  const json = await listeningOnTerminal(['--log-format', 'json']);
  assert.is(JSON.parse(json).msg.startsWith('wip listening on'), true, json);
});

logs.run();
