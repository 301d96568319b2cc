import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CONFIG_KEYS, SECRET_CONFIG_KEYS, envName, loadConfig } from '#config';
import { startTestServer } from '../helpers/server';

let dir: string;

const files = suite('WIP_<KEY>_FILE configuration');
files.before.each(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-config-'));
});
files.after.each(() => fs.rmSync(dir, { recursive: true, force: true }));

files('reads a secret from the named file, without the final newline', () => {
  const file = path.join(dir, 'admin-password');
  fs.writeFileSync(file, 'from-a-file-password\n');
  const config = loadConfig({ env: { WIP_DATA_DIR: dir, WIP_ADMIN_PASSWORD_FILE: file } });
  assert.is(config.adminPassword, 'from-a-file-password');
});

files('works for every key, e.g. the metrics token and the port', () => {
  fs.writeFileSync(path.join(dir, 'token'), 'metrics-token-from-file-0123');
  fs.writeFileSync(path.join(dir, 'port'), '9090\n');
  const config = loadConfig({
    env: { WIP_DATA_DIR: dir, WIP_METRICS_TOKEN_FILE: path.join(dir, 'token'), WIP_PORT_FILE: path.join(dir, 'port') },
  });
  assert.is(config.metricsToken, 'metrics-token-from-file-0123');
  assert.is(config.port, 9090);
});

files('the value and its _FILE together is an error naming both', () => {
  fs.writeFileSync(path.join(dir, 'p'), 'another-password');
  assert.throws(
    () => loadConfig({ env: { WIP_DATA_DIR: dir, WIP_ADMIN_PASSWORD: 'direct-password', WIP_ADMIN_PASSWORD_FILE: path.join(dir, 'p') } }),
    /set either WIP_ADMIN_PASSWORD or WIP_ADMIN_PASSWORD_FILE, not both/,
  );
});

files('an unreadable file is an error naming the variable and the file', () => {
  assert.throws(
    () => loadConfig({ env: { WIP_DATA_DIR: dir, WIP_METRICS_TOKEN_FILE: path.join(dir, 'missing') } }),
    /cannot read WIP_METRICS_TOKEN_FILE .*missing: ENOENT/,
  );
});

files('secrets are listed for redaction and all have env names', () => {
  assert.ok(SECRET_CONFIG_KEYS.includes('adminPassword'));
  assert.ok(SECRET_CONFIG_KEYS.includes('metricsToken'));
  for (const key of SECRET_CONFIG_KEYS) assert.ok(CONFIG_KEYS.includes(key));
  assert.is(envName('httpRedirectPort'), 'WIP_HTTP_REDIRECT_PORT');
});

files('the first administrator gets the password from WIP_ADMIN_PASSWORD_FILE', async () => {
  const file = path.join(dir, 'admin-password');
  fs.writeFileSync(file, 'password-kept-in-a-file\n', { mode: 0o600 });
  const server = await startTestServer({ env: { WIP_ADMIN_PASSWORD: '', WIP_ADMIN_PASSWORD_FILE: file } });
  try {
    const ok = await server.request('POST', '/api/admin/auth/sign-in', {
      body: { username: 'admin', password: 'password-kept-in-a-file' },
    });
    assert.is(ok.status, 200, ok.text);
  } finally {
    await server.stop();
  }
});

files('TLS settings are checked together', () => {
  assert.throws(() => loadConfig({ env: { WIP_DATA_DIR: dir, WIP_TLS_CERT: '/x.pem' } }), /tlsCert: tlsCert and tlsKey go together/);
  assert.throws(
    () => loadConfig({ env: { WIP_DATA_DIR: dir, WIP_TLS_CERT: '/x.pem', WIP_TLS_KEY: '/y.pem', WIP_TLS_SELF_SIGNED: 'true' } }),
    /use either tlsCert\/tlsKey or tlsSelfSigned/,
  );
});

files.run();
