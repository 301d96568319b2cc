import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { version } from '../../package.json';
import { runtimeInfo } from '#lib/node-runtime';
import { BIN, runCli, startDaemon } from '../helpers/cli';
import { request } from '../helpers/server';
import { ROOT } from '../helpers/spawn-wip';
import { waitFor } from '../helpers/wait';

/**
 * What `wip` says it runs on, and what it does when started by a Node.js too
 * old for it (the machines' Node 20: better-sqlite3 13 would crash there).
 */
const test = suite('wip and the Node.js it runs on');
const tmpDirs: string[] = [];
test.after(() => tmpDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** A `node` on PATH older than 22 (not the pinned one in node_modules/.bin), e.g. a machine's Node 20; null when there is none. */
function oldNode(): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, 'node');
    if (!dir || dir.includes('node_modules') || !fs.existsSync(candidate)) continue;
    try {
      const major = Number(execFileSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' }).split('.')[0]);
      if (major < 22) return candidate;
    } catch {
      // not runnable: look further
    }
  }
  return null;
}
const old = oldNode();

test('--version --json (either order) answers what GET /api/client/version does; --version alone the bare version', async () => {
  for (const args of [
    ['--version', '--json'],
    ['--json', '-V'],
    ['--data-dir', '/nonexistent', '--json', '--version'],
  ]) {
    const result = await runCli(args);
    assert.is(result.code, 0, result.stderr);
    assert.equal(
      JSON.parse(result.stdout),
      { version, apiVersion: '1', build: { commit: 'dev', date: null }, runtime: runtimeInfo() },
      args.join(' '),
    );
  }
  const bare = await runCli(['--version']);
  assert.is(bare.stdout, `${version}\n`);
});

if (old) {
  test(`started by an older Node.js (${old}), wip re-runs itself on the pinned one`, async () => {
    const result = await runCli(['--version', '--json'], { node: old });
    assert.is(result.code, 0, result.stderr);
    assert.is(JSON.parse(result.stdout).runtime.version, process.versions.node);
    // a failure's exit status comes through
    assert.is((await runCli(['no-such-command'], { node: old })).code, 2);
  });

  test('…the daemon too, and SIGTERM to the first process stops it cleanly', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-runtime-'));
    tmpDirs.push(dataDir);
    const daemon = await startDaemon(['--data-dir', dataDir], { WIP_LOG_LEVEL: 'info' }, { node: old, timeoutMs: 30_000 });
    const res = await request(daemon.url, 'GET', '/api/client/version');
    assert.is(res.body.data.runtime.version, process.versions.node);
    assert.is(await daemon.stop('SIGTERM'), 0);
    // the daemon it started is gone too: nothing answers any more
    const after = await fetch(`${daemon.url}/healthz`).then(
      () => 'answered',
      () => 'refused',
    );
    assert.is(after, 'refused');
  });

  test("…and Ctrl-C (SIGINT to the terminal's whole process group) stops the daemon gracefully, once", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-runtime-'));
    tmpDirs.push(dataDir);
    // a process group of its own, as a terminal's foreground job
    const parent = spawn(old, [BIN, '--data-dir', dataDir, 'serve', '--host', '127.0.0.1', '--port', '0'], {
      env: { ...process.env, WIP_BCRYPT_COST: '4', WIP_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const exited = new Promise<[number | null, string | null]>((resolve) => parent.on('close', (code, signal) => resolve([code, signal])));
    let out = '';
    parent.stdout.on('data', (d) => (out += d));
    parent.stderr.on('data', (d) => (out += d));
    await waitFor('the "listening" line', () => /wip listening on/.test(out), 30_000);
    process.kill(-parent.pid!, 'SIGINT');
    assert.equal(await exited, [0, null], out);
  });

  test('…and refuses with a message where there is no pinned Node.js (no node_modules)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-runtime-'));
    tmpDirs.push(dir);
    fs.mkdirSync(path.join(dir, 'bin'));
    fs.copyFileSync(BIN, path.join(dir, 'bin', 'wip'));
    const result = execFileSyncResult(old, [path.join(dir, 'bin', 'wip'), '--version']);
    assert.is(result.code, 1);
    assert.match(
      result.stderr,
      /^wip: Node\.js 22 or newer is needed \(this is v\d+\.\d+\.\d+\); "npm install" on Linux x64 provides the pinned Node\.js 24/,
    );
  });
} else {
  test('(no Node.js older than 22 on PATH: the re-run on the pinned runtime is not exercised here)', () => undefined);
}

function execFileSyncResult(file: string, args: string[]): { code: number | null; stderr: string } {
  try {
    execFileSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], cwd: ROOT });
    return { code: 0, stderr: '' };
  } catch (error) {
    const e = error as { status: number | null; stderr: string };
    return { code: e.status, stderr: e.stderr };
  }
}

test.run();
