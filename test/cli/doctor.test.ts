import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runtimeInfo, type RuntimeInfo } from '#lib/node-runtime';
import { loadConfig } from '#config';
import { runDoctor } from '#ops/doctor';
import { startDaemon } from '../helpers/cli';
import { installedDataDir, ROOT, runWip } from '../helpers/spawn-wip';

interface Report {
  ok: boolean;
  checks: { name: string; status: 'OK' | 'WARN' | 'FAIL'; message: string }[];
  runtime: RuntimeInfo;
}

async function doctor(env: Record<string, string>): Promise<{ code: number | null; report: Report; stdout: string }> {
  const result = await runWip(['doctor', '--json'], env);
  return { code: result.code, report: JSON.parse(result.stdout) as Report, stdout: result.stdout };
}
const status = (report: Report, name: string) => report.checks.find((c) => c.name === name)!;

function listen(): Promise<net.Server & { port: number }> {
  return new Promise((resolve) => {
    // a bare TCP peer greeting like an SMTP server; doctor hangs up right after connecting
    const server = net.createServer((socket) => {
      socket.on('error', () => undefined);
      socket.end('220 test ESMTP\r\n');
    });
    server.listen(0, '127.0.0.1', () => resolve(Object.assign(server, { port: (server.address() as net.AddressInfo).port })));
  });
}

const test = suite('wip doctor');

test('a licensed installation: every check OK, one line each, exit 0', async () => {
  const { root, env } = await installedDataDir({ WIP_PORT: '0' });
  const { code, report } = await doctor(env);
  assert.is(code, 0, 'a WARN does not fail');
  assert.is(status(report, 'license').status, 'WARN');
  assert.match(status(report, 'license').message, /evaluation/);
  assert.is((await runWip(['license', 'install', path.join(ROOT, 'test', 'fixtures', 'test-suite.lic')], env)).code, 0);
  const text = await runWip(['doctor'], env);
  assert.is(text.code, 0, text.stdout + text.stderr);
  const lines = text.stdout.trim().split('\n');
  for (const name of ['data-dir', 'secrets', 'database', 'migrations', 'clock', 'files', 'license', 'port', 'smtp', 'runtime']) {
    assert.ok(
      lines.some((l) => new RegExp(`^OK +${name} `).test(l)),
      `${name} OK in:\n${text.stdout}`,
    );
  }
  // the runtime line with its end of life, and in --json what GET /api/client/version and wip --version --json report
  const runtime = runtimeInfo();
  assert.ok(
    lines.includes(`OK    runtime    Node.js ${process.versions.node}, release line supported until ${runtime.supportedUntil}`),
    text.stdout,
  );
  assert.equal((await doctor(env)).report.runtime, runtime);
  assert.equal(JSON.parse((await runWip(['--version', '--json'], env)).stdout).runtime, runtime);
  fs.rmSync(root, { recursive: true, force: true });
});

test('the runtime check warns in the last 90 days of the Node.js line, after its end and on a line the build does not know; never a FAIL', async () => {
  const { root, env } = await installedDataDir({ WIP_PORT: '0' });
  const config = loadConfig({ env });
  const check = async (version: string, now: string) => {
    const report = await runDoctor(config, { runtime: runtimeInfo(version), now: new Date(now), timeoutMs: 500 });
    assert.equal(report.runtime, runtimeInfo(version));
    return status(report, 'runtime');
  };
  assert.equal(await check('24.21.0', '2027-11-26T00:00:00Z'), {
    name: 'runtime',
    status: 'OK',
    message: 'Node.js 24.21.0, release line supported until 2028-04-30',
  });
  assert.equal(await check('24.21.0', '2028-03-01T00:00:00Z'), {
    name: 'runtime',
    status: 'WARN',
    message:
      'Node.js 24.21.0: its release line reaches end of life on 2028-04-30 (in 61 day(s)); plan the update to a wip build on a newer Node.js line',
  });
  assert.is((await check('20.20.2', '2026-11-26T00:00:00Z')).status, 'WARN');
  assert.match((await check('20.20.2', '2026-11-26T00:00:00Z')).message, 'reached end of life on 2026-04-30');
  assert.is((await check('25.2.0', '2026-11-26T00:00:00Z')).status, 'WARN');
  fs.rmSync(root, { recursive: true, force: true });
});

test('a corrupted database copy is a FAIL and exit 1', async () => {
  const { root, dataDir, env } = await installedDataDir({ WIP_PORT: '0' });
  const file = path.join(dataDir, 'wip.db');
  const bytes = fs.readFileSync(file);
  // keep the header and schema page, scribble over the table pages
  for (let offset = 4096 * 2; offset < bytes.length; offset += 4096) bytes.fill(0x5a, offset + 8, offset + 4000);
  fs.writeFileSync(file, bytes);
  const { code, report } = await doctor(env);
  assert.is(code, 1);
  assert.is(report.ok, false);
  assert.is(status(report, 'database').status, 'FAIL');
  assert.match(status(report, 'database').message, /integrity check failed/);
  fs.rmSync(root, { recursive: true, force: true });
});

test('secrets readable by others, and a missing secrets file, are FAIL; an open data dir is WARN', async () => {
  const { root, dataDir, env } = await installedDataDir({ WIP_PORT: '0' });
  fs.chmodSync(path.join(dataDir, 'secrets.json'), 0o644);
  fs.chmodSync(dataDir, 0o755);
  let { code, report } = await doctor(env);
  assert.is(code, 1);
  assert.is(status(report, 'secrets').status, 'FAIL');
  assert.match(status(report, 'secrets').message, /mode 644/);
  assert.is(status(report, 'data-dir').status, 'WARN');
  fs.rmSync(path.join(dataDir, 'secrets.json'));
  ({ code, report } = await doctor(env));
  assert.is(status(report, 'secrets').status, 'FAIL');
  assert.ok(!fs.existsSync(path.join(dataDir, 'secrets.json')), 'doctor does not create secrets');
  fs.rmSync(root, { recursive: true, force: true });
});

test('file store against the storage index: unreferenced and temporary files are WARN, a referenced file missing is FAIL', async () => {
  const { root, dataDir, env } = await installedDataDir({ WIP_PORT: '0' });
  const old = new Date(Date.now() - 2 * 3600_000);
  const put = (name: string, age = old) => {
    const file = path.join(dataDir, 'files', name.slice(0, 2), name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, name);
    fs.utimesSync(file, age, age);
    return file;
  };
  const referencedKey = 'ab'.repeat(32);
  const orphanKey = 'cd'.repeat(32);
  const freshKey = 'ef'.repeat(32);
  const BetterSqlite3 = (await import('better-sqlite3')).default;
  const db = new BetterSqlite3(path.join(dataDir, 'wip.db'));
  const now = new Date().toISOString();
  db.prepare(
    "INSERT INTO agreements (kind, version, title, file_key, file_name, file_size, effective_at, created_at, updated_at) VALUES ('msa', '1', 'MSA', ?, 'msa.pdf', 64, ?, ?, ?)",
  ).run(referencedKey, now, now, now);
  db.close();
  put(referencedKey);
  put(freshKey, new Date()); // just written: may be an upload in progress
  let { code, report } = await doctor(env);
  assert.is(code, 0);
  assert.is(status(report, 'files').status, 'OK', status(report, 'files').message);

  const orphan = put(orphanKey);
  const temp = put(`${referencedKey}.a1b2c3.tmp`);
  ({ code, report } = await doctor(env));
  assert.is(code, 0);
  assert.is(status(report, 'files').status, 'WARN');
  assert.match(status(report, 'files').message, /^2 orphaned/);
  assert.ok(status(report, 'files').message.includes(orphan) && status(report, 'files').message.includes(temp));
  assert.not.ok(status(report, 'files').message.includes(freshKey));

  fs.mkdirSync(path.join(root, 'data.before-restore-2026'));
  ({ report } = await doctor(env));
  assert.match(status(report, 'files').message, /data\.before-restore-2026/);

  fs.rmSync(path.join(dataDir, 'files', 'ab', referencedKey));
  ({ code, report } = await doctor(env));
  assert.is(code, 1);
  assert.is(status(report, 'files').status, 'FAIL');
  assert.match(status(report, 'files').message, new RegExp(`1 referenced file\\(s\\) missing .*${referencedKey}`));
  fs.rmSync(root, { recursive: true, force: true });
});

test('a future timestamp in the database (clock went back) is a FAIL', async () => {
  const { root, dataDir, env } = await installedDataDir({ WIP_PORT: '0' });
  const BetterSqlite3 = (await import('better-sqlite3')).default;
  const db = new BetterSqlite3(path.join(dataDir, 'wip.db'));
  db.prepare("INSERT INTO clients (name, created_at, updated_at) VALUES ('x', ?, ?)").run(
    new Date(Date.now() + 86400_000).toISOString(),
    new Date(Date.now() + 86400_000).toISOString(),
  );
  db.close();
  const { code, report } = await doctor(env);
  assert.is(code, 1);
  assert.is(status(report, 'clock').status, 'FAIL');
  assert.match(status(report, 'clock').message, /clients/);
  fs.rmSync(root, { recursive: true, force: true });
});

test('SMTP: a listening server is OK, a closed port is FAIL; the port check fails when the port is taken', async () => {
  const smtp = await listen();
  const { root, env } = await installedDataDir({
    WIP_SMTP_URL: `smtp://mailer:s3cret-pass@127.0.0.1:${smtp.port}`,
    WIP_HOST: '127.0.0.1',
    WIP_PORT: String(smtp.port),
  });
  let { report } = await doctor(env);
  assert.is(status(report, 'smtp').status, 'OK');
  assert.not.match(JSON.stringify(report), /s3cret-pass/);
  assert.is(status(report, 'port').status, 'FAIL', 'the SMTP server holds that port');
  assert.match(status(report, 'port').message, /in use/);
  await new Promise((r) => smtp.close(r));
  ({ report } = await doctor(env));
  assert.is(status(report, 'smtp').status, 'FAIL');
  assert.is(status(report, 'port').status, 'OK');
  fs.rmSync(root, { recursive: true, force: true });
});

test('the port check reports what the running daemon really listens on, not the configured port', async () => {
  const { root, dataDir, env } = await installedDataDir();
  // config.json says 0.0.0.0:8080; the daemon is started with --host 127.0.0.1 --port 0
  const daemon = await startDaemon(['--data-dir', dataDir], env);
  try {
    const port = new URL(daemon.url).port;
    const { report } = await doctor(env);
    assert.is(status(report, 'port').status, 'OK');
    assert.match(
      status(report, 'port').message,
      new RegExp(`^127\\.0\\.0\\.1:${port} \\(http\\) is served by the running daemon \\(pid ${daemon.child.pid}\\)$`),
    );
  } finally {
    assert.is(await daemon.stop(), 0);
  }
  assert.not.ok(fs.existsSync(path.join(dataDir, 'wip.served.json')), 'removed on stop');
  fs.rmSync(root, { recursive: true, force: true });
});

test('SMTP without publicUrl is a WARN (links in mails are guessed); the daemon warns at start too', async () => {
  const smtp = await listen();
  const { root, dataDir, env } = await installedDataDir({ WIP_SMTP_URL: `smtp://127.0.0.1:${smtp.port}` });
  const { code, report } = await doctor(env);
  assert.is(code, 0);
  assert.is(status(report, 'public-url').status, 'WARN');
  assert.match(status(report, 'public-url').message, /publicUrl \(WIP_PUBLIC_URL\) is not set/);
  const daemon = await startDaemon(['--data-dir', dataDir], { ...env, WIP_LOG_LEVEL: 'info' });
  try {
    assert.match(daemon.stdout(), /publicUrl \(WIP_PUBLIC_URL\) is not set: links in mails will start with http:\/\/127\.0\.0\.1:\d+/);
  } finally {
    await daemon.stop();
  }
  const configured = await doctor({ ...env, WIP_PUBLIC_URL: 'https://wip.example.test' });
  assert.is(status(configured.report, 'public-url').status, 'OK');
  await new Promise((r) => smtp.close(r));
  fs.rmSync(root, { recursive: true, force: true });
});

test.run();
