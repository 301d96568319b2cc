import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, runCli } from '../helpers/cli';

/** A path as ExecStart carries it: in double quotes when it holds a space (a checkout under "…/wip clone"). */
const execWord = (word: string) => (/\s/.test(word) ? `"${word}"` : word);

const bin = BIN;
// the account the unit names: this user (it must exist: install looks it up)
const me = (() => {
  try {
    return os.userInfo().username;
  } catch {
    return 'wip'; // a uid without a passwd entry (some CI containers)
  }
})();

function wip(args: string[], env: Record<string, string> = {}) {
  return runCli(args, { env: { WIP_ADMIN_PASSWORD: 'install-test-password', ...env } });
}

let base: string;
let dataDir: string;
let unitDir: string;

const install = suite('wip install --systemd');
install.before.each(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-install-'));
  dataDir = path.join(base, 'data');
  unitDir = path.join(base, 'units');
});
install.after.each(() => fs.rmSync(base, { recursive: true, force: true }));

install('writes config.json and a hardened wip.service for the data directory', async () => {
  const run = await wip(['--data-dir', dataDir, '--json', 'install', '--systemd', '--user', me, '--unit-dir', unitDir]);
  assert.is(run.code, 0, run.stderr);
  const report = JSON.parse(run.stdout);
  assert.is(report.changed, true);
  assert.is(report.unitWritten, true);
  assert.is(report.unitFile, path.join(unitDir, 'wip.service'));

  const unit = fs.readFileSync(path.join(unitDir, 'wip.service'), 'utf8');
  const lines = unit.split('\n');
  for (const expected of [
    '[Service]',
    `User=${me}`,
    `ExecStart=${execWord(process.execPath)} ${execWord(bin)} --data-dir ${execWord(dataDir)} serve`,
    'Restart=on-failure',
    'NoNewPrivileges=yes',
    'ProtectSystem=strict',
    `ReadWritePaths=${dataDir}`,
    'PrivateDevices=yes',
    'ProtectKernelTunables=yes',
    'RestrictSUIDSGID=yes',
    'CapabilityBoundingSet=',
    'UMask=0077',
    '[Install]',
    'WantedBy=multi-user.target',
  ]) {
    assert.ok(lines.includes(expected), `missing "${expected}" in\n${unit}`);
  }
  assert.not.ok(
    lines.some((l) => l.startsWith('MemoryDenyWriteExecute')),
    'V8 needs W+X memory',
  );

  const config = JSON.parse(fs.readFileSync(path.join(dataDir, 'config.json'), 'utf8'));
  assert.equal(Object.keys(config).slice(0, 4), ['host', 'port', 'publicUrl', 'logLevel']);
  assert.is(config.port, 8080);
  assert.is(config.accessTokenTtl, '24h');
  assert.not.ok('adminPassword' in config || 'metricsToken' in config, 'no secret in config.json');
  assert.is(fs.statSync(path.join(dataDir, 'config.json')).mode & 0o777, 0o600);
});

install('is idempotent: a second run changes nothing and keeps an edited config.json', async () => {
  assert.is((await wip(['--data-dir', dataDir, 'install', '--systemd', '--user', me, '--unit-dir', unitDir])).code, 0);
  const configFile = path.join(dataDir, 'config.json');
  const edited = { ...JSON.parse(fs.readFileSync(configFile, 'utf8')), port: 9443 };
  fs.writeFileSync(configFile, JSON.stringify(edited));
  const unitBefore = fs.statSync(path.join(unitDir, 'wip.service')).mtimeMs;

  const again = await wip(['--data-dir', dataDir, '--json', 'install', '--systemd', '--user', me, '--unit-dir', unitDir]);
  assert.is(again.code, 0, again.stderr);
  const report = JSON.parse(again.stdout);
  assert.is(report.changed, false);
  assert.is(report.unitWritten, false);
  assert.is(report.configFileWritten, false);
  assert.equal(JSON.parse(fs.readFileSync(configFile, 'utf8')), edited);
  assert.is(fs.statSync(path.join(unitDir, 'wip.service')).mtimeMs, unitBefore);
});

install('--print prints the unit and changes nothing', async () => {
  const run = await wip(['--data-dir', dataDir, 'install', '--systemd', '--user', me, '--print', '--unit-dir', unitDir]);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, /^# Written by "wip install --systemd"/);
  assert.match(run.stdout, new RegExp(`\\nUser=${me}\\n`));
  assert.match(run.stdout, new RegExp(`\\nReadWritePaths=${dataDir}\\n`));
  assert.not.ok(fs.existsSync(dataDir));
  assert.not.ok(fs.existsSync(unitDir));
});

install('a port below 1024 keeps only CAP_NET_BIND_SERVICE', async () => {
  const run = await wip(['--data-dir', dataDir, 'install', '--systemd', '--user', me, '--print'], { WIP_PORT: '443' });
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, /\nCapabilityBoundingSet=CAP_NET_BIND_SERVICE\n/);
  assert.match(run.stdout, /\nAmbientCapabilities=CAP_NET_BIND_SERVICE\n/);
});

install('the unit directory comes from WIP_SYSTEMD_DIR when --unit-dir is not given', async () => {
  const run = await wip(['--data-dir', dataDir, 'install', '--systemd', '--user', me], { WIP_SYSTEMD_DIR: unitDir });
  assert.is(run.code, 0, run.stderr);
  assert.ok(fs.existsSync(path.join(unitDir, 'wip.service')));
});

install('refuses to overwrite a wip.service it did not write', async () => {
  fs.mkdirSync(unitDir, { recursive: true });
  fs.writeFileSync(path.join(unitDir, 'wip.service'), '[Unit]\nDescription=someone else\n');
  const run = await wip(['--data-dir', dataDir, 'install', '--systemd', '--user', me, '--unit-dir', unitDir]);
  assert.is(run.code, 1);
  assert.match(run.stderr, /was not written by wip/);
  assert.is(fs.readFileSync(path.join(unitDir, 'wip.service'), 'utf8'), '[Unit]\nDescription=someone else\n');
});

install('an unknown service account or group fails before anything is installed', async () => {
  const run = await wip(['--data-dir', dataDir, 'install', '--systemd', '--user', 'no-such-wip-account', '--unit-dir', unitDir]);
  assert.is(run.code, 1, run.stdout);
  assert.match(run.stderr, /there is no account "no-such-wip-account"; create it first: useradd/);
  assert.is(run.stdout, '');
  const group = await wip([
    '--data-dir',
    dataDir,
    'install',
    '--systemd',
    '--user',
    me,
    '--group',
    'no-such-wip-group',
    '--unit-dir',
    unitDir,
  ]);
  assert.is(group.code, 1);
  assert.match(group.stderr, /there is no group "no-such-wip-group"; create it first/);
  assert.not.ok(fs.existsSync(dataDir));
  assert.not.ok(fs.existsSync(unitDir));
});

install('--print with a service account not created yet prints the unit, warns how to create it, exits 0', async () => {
  const run = await wip(['--data-dir', dataDir, 'install', '--systemd', '--user', 'no-such-wip-account', '--unit-dir', unitDir, '--print']);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, /\nUser=no-such-wip-account\nGroup=no-such-wip-account\n/);
  assert.match(
    run.stderr,
    /^warning: there is no account "no-such-wip-account"; create it first: useradd --system .* no-such-wip-account; "install --systemd" refuses until it exists\n$/,
  );
  const group = await wip(['--data-dir', dataDir, 'install', '--systemd', '--user', me, '--group', 'no-such-wip-group', '--print']);
  assert.is(group.code, 0, group.stderr);
  assert.match(group.stdout, /\nGroup=no-such-wip-group\n/);
  assert.match(group.stderr, /^warning: there is no group "no-such-wip-group"; create it first \(groupadd --system no-such-wip-group\)/);
  // a preview changes nothing, and a name that cannot be an account is still refused
  assert.not.ok(fs.existsSync(dataDir));
  assert.not.ok(fs.existsSync(unitDir));
  const invalid = await wip(['--data-dir', dataDir, 'install', '--systemd', '--user', 'not valid', '--print']);
  assert.is(invalid.code, 1);
  assert.match(invalid.stderr, /is not a valid account or group name/);
});

install('Group= is the primary group of the user as the system names it (nobody → nogroup on Debian), or --group', async () => {
  // a user whose primary group is not named like the user
  const primary = execFileSync('id', ['-gn', 'nobody'], { encoding: 'utf8' }).trim();
  const run = await wip(['--data-dir', dataDir, 'install', '--systemd', '--user', 'nobody', '--print']);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, /\nUser=nobody\n/);
  assert.match(run.stdout, new RegExp(`\\nGroup=${primary}\\n`));
  if (fs.readFileSync('/etc/os-release', 'utf8').includes('debian')) assert.is(primary, 'nogroup');

  const mine = execFileSync('id', ['-gn', me], { encoding: 'utf8' }).trim();
  const chosen = await wip(['--data-dir', dataDir, 'install', '--systemd', '--user', 'nobody', '--group', mine, '--print']);
  assert.is(chosen.code, 0, chosen.stderr);
  assert.match(chosen.stdout, new RegExp(`\\nGroup=${mine}\\n`));
});

install('--print without --systemd is a usage error', async () => {
  const run = await wip(['--data-dir', dataDir, 'install', '--print']);
  assert.is(run.code, 2);
  assert.match(run.stderr, /go with --systemd/);
});

const uninstall = suite('wip uninstall');
uninstall.before.each(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-uninstall-'));
  dataDir = path.join(base, 'data');
  unitDir = path.join(base, 'units');
});
uninstall.after.each(() => fs.rmSync(base, { recursive: true, force: true }));

uninstall('removes the unit and never the data', async () => {
  assert.is((await wip(['--data-dir', dataDir, 'install', '--systemd', '--user', me, '--unit-dir', unitDir])).code, 0);
  const dataBefore = fs.readdirSync(dataDir).sort();
  const run = await wip(['--data-dir', dataDir, '--json', 'uninstall', '--unit-dir', unitDir]);
  assert.is(run.code, 0, run.stderr);
  assert.equal(JSON.parse(run.stdout), { unitFile: path.join(unitDir, 'wip.service'), removed: true });
  assert.not.ok(fs.existsSync(path.join(unitDir, 'wip.service')));
  assert.equal(fs.readdirSync(dataDir).sort(), dataBefore);
  assert.ok(dataBefore.includes('wip.db') && dataBefore.includes('secrets.json') && dataBefore.includes('config.json'));

  const again = await wip(['--data-dir', dataDir, 'uninstall', '--unit-dir', unitDir]);
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stdout, /nothing to remove/);
});

uninstall('leaves a foreign wip.service alone', async () => {
  fs.mkdirSync(unitDir, { recursive: true });
  fs.writeFileSync(path.join(unitDir, 'wip.service'), '[Unit]\n');
  const run = await wip(['uninstall', '--unit-dir', unitDir]);
  assert.is(run.code, 1);
  assert.match(run.stderr, /not written by wip; not removing it/);
  assert.ok(fs.existsSync(path.join(unitDir, 'wip.service')));
});

install.run();
uninstall.run();
