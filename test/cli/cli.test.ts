import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli, startDaemon } from '../helpers/cli';
import { waitFor } from '../helpers/wait';
import { request } from '../helpers/server';
import { buildProgram, commandOf } from '#cli';

const tmpDirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-cli-'));
  tmpDirs.push(dir);
  return dir;
}

const basics = suite('wip CLI basics');
basics.after(() => tmpDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

basics('--version prints the package version; --help lists the commands', async () => {
  const version = await runCli(['--version']);
  assert.is(version.code, 0);
  assert.is(version.stdout.trim(), require('../../../package.json').version);
  const help = await runCli(['--help']);
  assert.is(help.code, 0);
  for (const command of ['serve', 'install', 'migrate', 'admin']) assert.match(help.stdout, new RegExp(`\\b${command}\\b`));
  const sub = await runCli(['admin', 'create', '--help']);
  assert.is(sub.code, 0);
  assert.match(sub.stdout, /--password-stdin/);
});

basics('a run registers only its own command module; help and unknown commands get them all', () => {
  const argv = (...args: string[]) => ['node', 'wip', ...args];
  const all = buildProgram().commands.map((c) => c.name());
  // every command is found in the module that registers it, also after the program's own options
  for (const name of all) {
    assert.ok(
      buildProgram(argv(name)).commands.some((c) => c.name() === name),
      name,
    );
    assert.ok(
      buildProgram(argv('--data-dir', 'serve', '--json', '--config', 'x.json', name)).commands.some((c) => c.name() === name),
      name,
    );
  }
  assert.equal(
    buildProgram(argv('serve', '--port', '0')).commands.map((c) => c.name()),
    ['serve'],
  );
  assert.is(commandOf(argv('--data-dir=d', 'user', 'unlock')), 'user');
  for (const args of [[], ['--help'], ['help', 'serve'], ['no-such-command'], ['--', 'serve']])
    assert.equal(
      buildProgram(argv(...args)).commands.map((c) => c.name()),
      all,
    );
});

basics('usage errors exit 2; failures exit 1 with one line on stderr', async () => {
  assert.is((await runCli(['no-such-command'])).code, 2);
  assert.is((await runCli(['admin', 'create'])).code, 2);
  const dir = tempDir();
  const failure = await runCli(['--data-dir', dir, 'admin', 'list']);
  assert.is(failure.code, 1);
  assert.is(failure.stderr.trim().split('\n').length, 1);
  assert.match(failure.stderr, /wip install/);
});

basics('invalid flag and configuration values are usage errors: exit 2 with one line on stderr', async () => {
  const dir = tempDir();
  const cases: [string[], Record<string, string>, RegExp][] = [
    [['serve', '--port', 'abc'], {}, /invalid configuration: port: /],
    [['doctor'], { WIP_PORT: '70000' }, /invalid configuration: port: /],
    [['serve'], { WIP_TLS_CIPHERS: 'NO-SUCH-CIPHER' }, /invalid configuration: tlsCiphers: not usable by OpenSSL/],
    [['mail', 'outbox', '--limit', '0'], {}, /--limit must be/],
    [['support-bundle', '--log-lines', 'many'], {}, /--log-lines must be/],
  ];
  for (const [args, env, message] of cases) {
    const run = await runCli(['--data-dir', dir, ...args], { env });
    assert.is(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.is(run.stderr.trim().split('\n').length, 1, run.stderr);
    assert.match(run.stderr, message);
  }
});

basics('install bootstraps secrets (0600), migrations and the first admin, and is idempotent', async () => {
  const dir = path.join(tempDir(), 'data');
  const first = await runCli(['--data-dir', dir, 'install', '--json']);
  assert.is(first.code, 0, first.stderr);
  const report = JSON.parse(first.stdout);
  assert.is(report.changed, true);
  assert.is(report.adminCreated, true);
  assert.ok(report.appliedMigrations.length >= 1);
  assert.type(report.adminPassword, 'string');
  const mode = (file: string) => fs.statSync(path.join(dir, file)).mode & 0o777;
  assert.is(mode('secrets.json'), 0o600);
  assert.is(mode('initial-admin-password'), 0o600);
  assert.is(fs.readFileSync(path.join(dir, 'initial-admin-password'), 'utf8').trim(), report.adminPassword);
  const secrets = fs.readFileSync(path.join(dir, 'secrets.json'), 'utf8');
  const second = await runCli(['--data-dir', dir, 'install']);
  assert.is(second.code, 0);
  assert.match(second.stdout, /nothing to change/);
  assert.is(fs.readFileSync(path.join(dir, 'secrets.json'), 'utf8'), secrets);
});

basics('WIP_ADMIN_PASSWORD sets the first admin password and no password file is written', async () => {
  const dir = tempDir();
  const res = await runCli(['install'], { env: { WIP_DATA_DIR: dir, WIP_ADMIN_PASSWORD: 'chosen-admin-pass' } });
  assert.is(res.code, 0, res.stderr);
  assert.not.ok(fs.existsSync(path.join(dir, 'initial-admin-password')));
  assert.not.match(res.stdout, /chosen-admin-pass/);
});

basics('migrate --status lists applied migrations; migrate applies nothing more', async () => {
  const dir = tempDir();
  assert.is((await runCli(['--data-dir', dir, 'install'])).code, 0);
  const status = await runCli(['--data-dir', dir, 'migrate', '--status', '--json']);
  assert.is(status.code, 0);
  const list = JSON.parse(status.stdout);
  assert.ok(list.length >= 2);
  assert.ok(list.every((m: { applied: boolean }) => m.applied));
  const migrate = await runCli(['--data-dir', dir, 'migrate']);
  assert.match(migrate.stdout, /No pending migrations/);
});

basics('admin create / list / reset-password / delete, refusing to delete the last admin', async () => {
  const dir = tempDir();
  const env = { WIP_DATA_DIR: dir, WIP_ADMIN_PASSWORD: 'first-admin-pass' };
  assert.is((await runCli(['install'], { env })).code, 0);
  const created = await runCli(['admin', 'create', '--username', 'ops', '--password-stdin', '--json'], { env, input: 'ops-password-1\n' });
  assert.is(created.code, 0, created.stderr);
  assert.is(JSON.parse(created.stdout).username, 'ops');
  const duplicate = await runCli(['admin', 'create', '--username', 'ops', '--password', 'another-pass-1'], { env });
  assert.is(duplicate.code, 1);
  assert.match(duplicate.stderr, /already exists/);
  const list = JSON.parse((await runCli(['admin', 'list', '--json'], { env })).stdout);
  assert.equal(
    list.map((a: { username: string }) => a.username),
    ['admin', 'ops'],
  );
  assert.not.match(JSON.stringify(list), /hash|\$2/);
  assert.is((await runCli(['admin', 'reset-password', '--username', 'ops', '--password-stdin'], { env, input: 'ops-password-2' })).code, 0);
  assert.is((await runCli(['admin', 'reset-password', '--username', 'ghost', '--password', 'whatever-1'], { env })).code, 1);
  assert.is((await runCli(['admin', 'delete', '--username', 'admin'], { env })).code, 0);
  const last = await runCli(['admin', 'delete', '--username', 'ops'], { env });
  assert.is(last.code, 1);
  assert.match(last.stderr, /last/);
});

const daemon = suite('wip serve');
daemon.after(() => tmpDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

daemon('first start creates everything, prints the generated admin password once, and a restart keeps the data', async () => {
  const dir = path.join(tempDir(), 'fresh');
  const first = await startDaemon(['--data-dir', dir]);
  const password = /password: (\S+)/.exec(first.stdout())?.[1];
  assert.ok(password, first.stdout());
  const signIn = await request(first.url, 'POST', '/api/admin/auth/sign-in', { body: { username: 'admin', password } });
  assert.is(signIn.status, 200);
  const created = await request(first.url, 'POST', '/api/admin/client', {
    token: signIn.body.data.token,
    body: { name: 'Kept', owner: { email: 'kept@example.test', password: 'owner-password-1' } },
  });
  assert.is(created.status, 201);
  assert.is(await first.stop(), 0);
  const second = await startDaemon(['--data-dir', dir]);
  assert.not.match(second.stdout(), /password:/);
  const again = await request(second.url, 'POST', '/api/client/auth/sign-in', {
    body: { email: 'kept@example.test', password: 'owner-password-1' },
  });
  assert.is(again.status, 200);
  assert.is(await second.stop('SIGINT'), 0);
});

daemon(
  "the first start names the console URL (this machine's name when listening on 0.0.0.0) and says the password is changed there",
  async () => {
    const wildcard = await startDaemon(['--data-dir', path.join(tempDir(), 'fresh')], {}, { host: '0.0.0.0' });
    try {
      const port = new URL(wildcard.url).port;
      const line =
        wildcard
          .stdout()
          .split('\n')
          .find((l) => l.startsWith('Admin console: ')) ?? '';
      assert.ok(line.startsWith(`Admin console: http://${os.hostname()}:${port}/console/ `), wildcard.stdout());
      assert.match(line, /change the password there/);
      const page = await fetch(`${wildcard.url}/console/`);
      assert.is(page.status, 200);
      assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    } finally {
      assert.is(await wildcard.stop(), 0);
    }
    // a configured password: no password printed, the way to the console still is; a second start says nothing of it
    const dir = path.join(tempDir(), 'configured');
    const configured = await startDaemon(['--data-dir', dir], { WIP_ADMIN_PASSWORD: 'first-admin-pass' });
    assert.not.match(configured.stdout(), /password: /);
    assert.ok(configured.stdout().includes(`Admin console: ${configured.url}/console/`), configured.stdout());
    assert.is(await configured.stop(), 0);
    const again = await startDaemon(['--data-dir', dir], { WIP_ADMIN_PASSWORD: 'first-admin-pass' });
    assert.not.match(again.stdout(), /Admin console/);
    assert.is(await again.stop(), 0);
  },
);

daemon('admin commands work against the data directory while the daemon runs', async () => {
  const dir = tempDir();
  const running = await startDaemon(['--data-dir', dir], { WIP_ADMIN_PASSWORD: 'first-admin-pass' });
  try {
    const created = await runCli(['--data-dir', dir, 'admin', 'create', '--username', 'night-shift', '--password', 'night-pass-123']);
    assert.is(created.code, 0, created.stderr);
    const signIn = await request(running.url, 'POST', '/api/admin/auth/sign-in', {
      body: { username: 'night-shift', password: 'night-pass-123' },
    });
    assert.is(signIn.status, 200);
    // a reset from the CLI ends the admin's sessions in the daemon at once
    assert.is(
      (await runCli(['--data-dir', dir, 'admin', 'reset-password', '--username', 'night-shift', '--password', 'night-pass-456'])).code,
      0,
    );
    assert.is((await request(running.url, 'GET', '/api/admin/client', { token: signIn.body.data.token })).status, 401);
  } finally {
    assert.is(await running.stop(), 0);
  }
});

daemon('SIGTERM lets in-flight requests finish before exiting 0', async () => {
  const dir = tempDir();
  const running = await startDaemon(['--data-dir', dir], { WIP_ADMIN_PASSWORD: 'first-admin-pass' });
  // The request is known to be in flight, not guessed from a fixed sleep (a request the daemon had not read
  // yet when the signal came is refused, rightly): the daemon answers `Expect: 100-continue` once it has read
  // the request's headers, and the body is sent only after the daemon logged that it is shutting down.
  const body = JSON.stringify({ username: 'admin', password: 'first-admin-pass' });
  const req = http.request(new URL('/api/admin/auth/sign-in', running.url), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      expect: '100-continue',
      connection: 'close',
    },
  });
  const continued = new Promise<void>((resolve) => req.once('continue', () => resolve()));
  const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.once('error', reject);
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
  });
  req.flushHeaders();
  await continued;
  const code = running.stop();
  await waitFor('the "shutting down" line', () => /shutting down/.test(running.stdout()));
  req.end(body);
  const res = await answered;
  assert.is(res.status, 200, res.text);
  assert.is(await code, 0);
});

daemon('flags beat env: --port and --host win over WIP_PORT and WIP_HOST', async () => {
  const dir = tempDir();
  const running = await startDaemon(['--data-dir', dir], { WIP_PORT: '1', WIP_HOST: '0.0.0.0', WIP_ADMIN_PASSWORD: 'first-admin-pass' });
  try {
    assert.match(running.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.is.not(running.url, 'http://127.0.0.1:1');
  } finally {
    await running.stop();
  }
});

basics.run();
daemon.run();
