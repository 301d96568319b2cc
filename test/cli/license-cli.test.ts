import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken } from '../helpers/factories';
import { FOREIGN_PRIVATE_KEY, issueTestLicense } from '../helpers/licenses';

const root = path.resolve(__dirname, '..', '..', '..');

function wip(server: TestServer, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, 'bin', 'wip'), '--data-dir', server.dataDir, ...args], {
      env: { ...process.env, WIP_ENV: 'test', WIP_LOG_LEVEL: 'silent' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const cli = suite('wip license');
let server: TestServer;
cli.before(async () => {
  server = await startTestServer({ license: 'evaluation' });
});
cli.after(async () => server.stop());

cli('install FILE while the daemon runs: the daemon serves the new license on its next request', async () => {
  const token = await adminToken(server);
  const before = await server.request('GET', '/api/admin/license-on-prem', { token });
  assert.is(before.body.data.evaluation, true);
  const file = path.join(server.dataDir, 'customer.lic');
  fs.writeFileSync(file, issueTestLicense({ licenseId: 'L-from-cli', maxClients: 42 }) + '\n');
  const result = await wip(server, ['license', 'install', file]);
  assert.is(result.code, 0, result.stderr);
  assert.match(result.stdout, /License key installed/);
  assert.match(result.stdout, /L-from-cli/);
  const after = await server.request('GET', '/api/admin/license-on-prem', { token });
  assert.equal([after.body.data.evaluation, after.body.data.licenseId, after.body.data.terms.maxClients], [false, 'L-from-cli', 42]);
});

cli('install KEY given on the command line; show --json prints the same overview as the API', async () => {
  const result = await wip(server, ['license', 'install', issueTestLicense({ licenseId: 'L-inline' })]);
  assert.is(result.code, 0, result.stderr);
  const show = await wip(server, ['--json', 'license', 'show']);
  assert.is(show.code, 0, show.stderr);
  const json = JSON.parse(show.stdout);
  assert.is(json.licenseId, 'L-inline');
  assert.is(json.status, 'active');
  const api = await server.request('GET', '/api/admin/license-on-prem', { token: await adminToken(server) });
  assert.is(json.installationId, api.body.data.installationId);
});

cli('an invalid key: exit 1, an error line naming the reason, the installed key kept', async () => {
  const result = await wip(server, ['license', 'install', issueTestLicense({}, { privateKey: FOREIGN_PRIVATE_KEY })]);
  assert.is(result.code, 1);
  // the last line is the error; before it the security event is logged (level warn) to stderr
  assert.match(result.stderr.trim().split('\n').pop()!, /^wip: Invalid license key: .*bad_signature/);
  const show = JSON.parse((await wip(server, ['--json', 'license', 'show'])).stdout);
  assert.is(show.licenseId, 'L-inline');
});

cli.run();
