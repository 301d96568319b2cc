import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { version } from '../../package.json';
import { issueTestLicense } from '../helpers/licenses';
import { runtimeInfo } from '#lib/node-runtime';
import { pinnedNodeVersion } from '../../scripts/pinned-node';
import { startTestServer } from '../helpers/server';
import { DOMAIN_TEST_ENV } from '../helpers/domain';
import { edited, fetchBundle, finishedJob, publishedKeys } from '../helpers/records';

/**
 * The single executable, end to end: built by scripts/build-binary.ts (reused
 * when it is newer than every source it is made from), then run as an operator
 * would, with no Node.js involved: --version, install, serve, sign in, a PDF
 * rendered by the bundled pdfkit, the license keys baked into the build, the
 * common-password list carried as an asset, SIGTERM.
 */
const root = path.resolve(__dirname, '..', '..', '..');
const binary = path.join(root, 'dist', 'wip');
const ADMIN_PASSWORD = 'binary-admin-password';

function newestSourceMtime(): number {
  const walk = (p: string): number => {
    const stat = fs.statSync(p);
    if (!stat.isDirectory()) return stat.mtimeMs;
    return Math.max(0, ...fs.readdirSync(p).map((name) => walk(path.join(p, name))));
  };
  return Math.max(
    ...[
      'src',
      'migrations',
      'config',
      'scripts/build-binary.ts',
      'scripts/bundle-plugins.ts',
      'scripts/sea-main.ts',
      'scripts/pinned-node.ts',
      'package.json',
      'package-lock.json',
    ].map((p) => walk(path.join(root, p))),
  );
}

function ensureBinary(): void {
  if (fs.existsSync(binary) && fs.statSync(binary).mtimeMs > newestSourceMtime()) return;
  const started = Date.now();
  execFileSync(process.execPath, [path.join(root, 'dist', 'scripts', 'build-binary.js')], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  process.stdout.write(`  (built dist/wip in ${((Date.now() - started) / 1000).toFixed(1)}s)\n`);
}

/** Environment of a clean shell: no WIP_* from the test runner, cheap bcrypt. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('WIP_') && k !== 'NODE_OPTIONS'));
  return { ...env, WIP_BCRYPT_COST: '4', ...extra };
}

const Binary = suite<{ dataDir: string; daemon?: ChildProcess }>('dist/wip (single executable)', { dataDir: '' });

Binary.before((context) => {
  ensureBinary();
  context.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-binary-'));
});

Binary.after((context) => {
  if (context.daemon && context.daemon.exitCode === null) context.daemon.kill('SIGKILL');
  fs.rmSync(context.dataDir, { recursive: true, force: true });
});

Binary('--version prints the package version; --version --json the build and the embedded runtime', () => {
  const result = spawnSync(binary, ['--version'], { env: cleanEnv(), encoding: 'utf8' });
  assert.is(result.status, 0, result.stderr);
  assert.is(result.stdout.trim(), version);
  assert.is(result.stderr, '', 'nothing on stderr (no experimental or require warnings)');
  const json = spawnSync(binary, ['--version', '--json'], { env: cleanEnv(), encoding: 'utf8' });
  assert.is(json.status, 0, json.stderr);
  assert.equal(JSON.parse(json.stdout).runtime, runtimeInfo(pinnedNodeVersion()), 'the Node.js pinned in package.json');
});

Binary('install initialises the data directory and caches the native addon by hash', ({ dataDir }) => {
  const result = spawnSync(binary, ['--data-dir', dataDir, '--json', 'install'], {
    env: cleanEnv({ WIP_ADMIN_PASSWORD: ADMIN_PASSWORD }),
    encoding: 'utf8',
    cwd: os.tmpdir(),
  });
  assert.is(result.status, 0, result.stderr);
  const report = JSON.parse(result.stdout);
  assert.is(report.adminCreated, true);
  assert.ok(report.appliedMigrations.length > 0);
  const cached = fs.readdirSync(path.join(dataDir, '.cache', 'native'));
  assert.is(cached.length, 1);
  assert.match(cached[0], new RegExp(`^wip-${version.replace(/\./g, '\\.')}-`));

  // a damaged cached addon is detected by its hash and written again
  const addon = path.join(dataDir, '.cache', 'native', cached[0], 'better_sqlite3.node');
  fs.chmodSync(addon, 0o600);
  fs.writeFileSync(addon, 'garbage');
  const again = spawnSync(binary, ['--data-dir', dataDir, '--json', 'install'], { env: cleanEnv(), encoding: 'utf8' });
  assert.is(again.status, 0, again.stderr);
  assert.is(JSON.parse(again.stdout).changed, false);
  assert.ok(fs.statSync(addon).size > 100_000);
});

Binary('the administration commands run from the executable too', ({ dataDir }) => {
  const status = spawnSync(binary, ['--data-dir', dataDir, '--json', 'migrate', '--status'], { env: cleanEnv(), encoding: 'utf8' });
  assert.is(status.status, 0, status.stderr);
  const migrations = JSON.parse(status.stdout) as { name: string; applied: boolean }[];
  assert.ok(migrations.length > 0 && migrations.every((m) => m.applied));
  const admins = spawnSync(binary, ['--data-dir', dataDir, '--json', 'admin', 'list'], { env: cleanEnv(), encoding: 'utf8' });
  assert.is(admins.status, 0, admins.stderr);
  assert.equal(
    (JSON.parse(admins.stdout) as { username: string }[]).map((a) => a.username),
    ['admin'],
  );
  const unit = spawnSync(binary, ['--data-dir', dataDir, 'install', '--systemd', '--user', 'nobody', '--print'], {
    env: cleanEnv(),
    encoding: 'utf8',
  });
  assert.is(unit.status, 0, unit.stderr);
  // the unit starts the executable itself, not node + a script
  const execWord = (word: string) => (/\s/.test(word) ? `"${word}"` : word); // quoted when the checkout's path holds a space
  assert.ok(unit.stdout.includes(`\nExecStart=${execWord(binary)} --data-dir ${execWord(dataDir)} serve\n`), unit.stdout);
});

Binary(
  'backup, restore, doctor, support-bundle and logs export run from the executable (the SQLite addon from the cache)',
  ({ dataDir }) => {
    const run = (args: string[], dir = dataDir) =>
      spawnSync(binary, ['--data-dir', dir, '--json', ...args], { env: cleanEnv(), encoding: 'utf8' });
    const archive = path.join(dataDir, '..', `${path.basename(dataDir)}-backup.tar.gz`);
    try {
      const backup = run(['backup', '--output', archive]);
      assert.is(backup.status, 0, backup.stderr);
      assert.is(JSON.parse(backup.stdout).file, archive);
      const doctor = run(['doctor']);
      assert.ok(doctor.status === 0 || doctor.status === 1, doctor.stderr);
      const checks = JSON.parse(doctor.stdout).checks as { name: string; status: string; message: string }[];
      assert.is(checks.find((c) => c.name === 'database')!.status, 'OK');
      const pinned = runtimeInfo(pinnedNodeVersion());
      assert.equal(
        checks.find((c) => c.name === 'runtime'),
        { name: 'runtime', status: 'OK', message: `Node.js ${pinned.version}, release line supported until ${pinned.supportedUntil}` },
      );
      const restoredDir = `${dataDir}-restored`;
      const restore = run(['restore', archive], restoredDir);
      assert.is(restore.status, 0, restore.stderr);
      assert.ok(fs.existsSync(path.join(restoredDir, 'wip.db')));
      fs.rmSync(restoredDir, { recursive: true, force: true });
      const bundle = run(['support-bundle', '--output', `${archive}.zip`]);
      assert.is(bundle.status, 0, bundle.stderr);
      const exported = run(['logs', 'export']);
      assert.is(exported.status, 0, exported.stderr);
    } finally {
      fs.rmSync(archive, { force: true });
      fs.rmSync(`${archive}.zip`, { force: true });
    }
  },
);

Binary('verify-bundle checks a record bundle on a machine with no data directory', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-binary-verify-'));
  try {
    const server = await startTestServer({ env: DOMAIN_TEST_ENV });
    let text: string;
    try {
      const { job, operator } = await finishedJob(server);
      text = (await fetchBundle(server, operator.token!, job.id, true)).text;
      fs.writeFileSync(path.join(dir, 'keys.json'), JSON.stringify(await publishedKeys(server)));
    } finally {
      await server.stop();
    }
    fs.writeFileSync(path.join(dir, 'bundle.json'), text);
    fs.writeFileSync(
      path.join(dir, 'tampered.json'),
      edited(text, (p) => (p.steps[0].values[0].value = 11)),
    );
    // no --data-dir, no WIP_DATA_DIR, a working directory with nothing else in it
    const run = (file: string) =>
      spawnSync(binary, ['verify-bundle', file, '--key', 'keys.json'], { env: cleanEnv(), encoding: 'utf8', cwd: dir });
    const ok = run('bundle.json');
    assert.is(ok.status, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /VERIFIED: the record is intact/);
    const bad = run('tampered.json');
    assert.is(bad.status, 1, bad.stdout);
    assert.match(bad.stdout, /FAIL: signature: the signature does not verify/);
    assert.equal(fs.readdirSync(dir).sort(), ['bundle.json', 'keys.json', 'tampered.json'], 'no data directory made');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

Binary('trusts the license keys built in, never a .pem placed beside the executable', () => {
  // a copy of the executable in a directory of its own, with an attacker's key
  // where the source tree keeps its keys (config/license-keys beside the program)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-binary-keys-'));
  try {
    const copy = path.join(dir, 'wip');
    try {
      fs.linkSync(binary, copy);
    } catch {
      fs.copyFileSync(binary, copy);
      fs.chmodSync(copy, 0o755);
    }
    const evil = generateKeyPairSync('rsa', {
      modulusLength: 3072,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    fs.mkdirSync(path.join(dir, 'config', 'license-keys'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'config', 'license-keys', 'evil.pem'), evil.publicKey);
    fs.writeFileSync(path.join(dir, 'config', 'license-keys', 'dev-evil.pem'), evil.publicKey);
    const dataDir = path.join(dir, 'data');
    const run = (args: string[]) =>
      spawnSync(copy, ['--data-dir', dataDir, ...args], {
        env: cleanEnv({ WIP_ENV: 'test', WIP_ADMIN_PASSWORD: ADMIN_PASSWORD }),
        encoding: 'utf8',
        cwd: dir,
      });
    const install = run(['install']);
    assert.is(install.status, 0, install.stderr);

    for (const kid of ['evil', 'dev-evil']) {
      const forged = run(['license', 'install', issueTestLicense({ kid, licenseId: `L-forged-${kid}` }, { privateKey: evil.privateKey })]);
      assert.is(forged.status, 1, `a license signed with ${kid}.pem beside the binary was accepted: ${forged.stdout}`);
      assert.match(forged.stderr, new RegExp(`signed with key "${kid}", which this build does not trust`));
    }
    const genuine = run(['--json', 'license', 'install', issueTestLicense({ licenseId: 'L-binary-dev' })]);
    assert.is(genuine.status, 0, genuine.stderr);
    const overview = JSON.parse(genuine.stdout) as { licenseId: string; evaluation: boolean; status: string };
    assert.equal([overview.licenseId, overview.evaluation, overview.status], ['L-binary-dev', false, 'active']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

Binary('serve answers a sign-in over HTTP and stops cleanly on SIGTERM', async (context) => {
  const started = Date.now();
  const daemon = spawn(binary, ['--data-dir', context.dataDir, 'serve', '--host', '127.0.0.1', '--port', '0'], {
    env: cleanEnv({ WIP_LOG_LEVEL: 'info' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  context.daemon = daemon;
  let stdout = '';
  let stderr = '';
  daemon.stderr.on('data', (d) => (stderr += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening" line within 15s: ${stdout}${stderr}`)), 15_000);
    daemon.stdout.on('data', (d) => {
      stdout += d;
      const match = /"url":"(http:\/\/[^"]+)"/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    daemon.once('exit', (code) => reject(new Error(`daemon exited with ${code}: ${stdout}${stderr}`)));
  });
  const signIn = await fetch(`${url}/api/admin/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
  });
  const body = (await signIn.json()) as { success: boolean; data: { token: string } };
  assert.is(signIn.status, 200);
  assert.is(body.success, true);
  assert.type(body.data.token, 'string');
  process.stdout.write(`  (first sign-in answered ${Date.now() - started} ms after spawn)\n`);

  // the runtime the executable embeds is the pinned one, whatever node built it, and it says until when that line is maintained
  const versionInfo = (await (await fetch(`${url}/api/client/version`)).json()) as {
    data: { runtime: unknown; build: { commit: string } };
  };
  assert.equal(versionInfo.data.runtime, runtimeInfo(pinnedNodeVersion()));
  assert.is.not(versionInfo.data.build.commit, 'dev');

  const health = await fetch(`${url}/healthz`);
  assert.is(health.status, 200);
  const ready = await fetch(`${url}/readyz`);
  assert.is(ready.status, 200, await ready.clone().text());
  const metrics = await fetch(`${url}/metrics`);
  assert.is(metrics.status, 200);
  assert.match(await metrics.text(), /wip_http_requests_total\{method="POST",route="\/api\/admin\/auth\/sign-in",status="200"\} 1/);

  // the API description and its reference page's files, from inside the executable (SEA assets)
  const openapi = await fetch(`${url}/api/openapi.json`);
  assert.is(openapi.status, 200);
  assert.is(((await openapi.json()) as { openapi: string }).openapi, '3.1.0');
  for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css', 'start.js']) {
    const asset = await fetch(`${url}/api/docs/${file}`);
    assert.is(asset.status, 200, file);
    assert.ok((await asset.text()).length > (file === 'start.js' ? 10 : 10_000), file);
  }

  // the admin console's page and its hashed files, from inside the executable
  const consolePage = await fetch(`${url}/console/`);
  assert.is(consolePage.status, 200);
  const consoleHtml = await consolePage.text();
  const consoleFiles = [...consoleHtml.matchAll(/(?:src|href)="(\/console\/main-[A-Z0-9]+\.(?:js|css))"/g)].map((m) => m[1]);
  assert.is(consoleFiles.length, 2, consoleHtml);
  for (const file of consoleFiles) {
    const asset = await fetch(`${url}${file}`);
    assert.is(asset.status, 200, file);
    assert.match(asset.headers.get('cache-control') ?? '', 'immutable');
    assert.ok((await asset.text()).length > 1000, file);
  }

  // the floor app: its page at /app/ and at a deep link, its hashed files, its service worker
  for (const pagePath of ['/app/', '/app/jobs/1/run']) {
    const appPage = await fetch(`${url}${pagePath}`);
    assert.is(appPage.status, 200, pagePath);
    assert.is(appPage.headers.get('cache-control'), 'no-cache', pagePath);
    assert.match(appPage.headers.get('content-security-policy') ?? '', "script-src 'self'");
  }
  const appHtml = await (await fetch(`${url}/app/`)).text();
  const appFiles = [...appHtml.matchAll(/(?:src|href)="(\/app\/[a-z]+-[A-Z0-9]+\.(?:js|css|svg|webmanifest))"/g)].map((m) => m[1]);
  assert.ok(appFiles.some((f) => f.endsWith('.js')) && appFiles.some((f) => f.endsWith('.css')), appHtml);
  for (const file of appFiles) {
    const asset = await fetch(`${url}${file}`);
    assert.is(asset.status, 200, file);
    assert.match(asset.headers.get('cache-control') ?? '', 'immutable');
    assert.ok((await asset.text()).length > 100, file);
  }
  const worker = await fetch(`${url}/app/sw.js`);
  assert.is(worker.status, 200);
  assert.is(worker.headers.get('cache-control'), 'no-cache');
  const workerSource = await worker.text();
  for (const file of appFiles) assert.ok(workerSource.includes(file), `the service worker precaches ${file}`);
  // the record bundle verifier page and its self-contained download, from inside the executable
  const verifierPage = await fetch(`${url}/verify/`);
  assert.is(verifierPage.status, 200);
  const verifierScript = /src="(\/console\/verify-[A-Z0-9]+\.js)"/.exec(await verifierPage.text())?.[1];
  assert.ok(verifierScript);
  assert.is((await fetch(`${url}${verifierScript}`)).status, 200);
  assert.is((await fetch(`${url}/verify/wip-verifier.html`)).status, 200);
  const signingKeys = (await (await fetch(`${url}/.well-known/wip-signing-keys.json`)).json()) as { keys: { kid: string }[] };
  assert.is(signingKeys.keys.length, 1);

  // the MSA rendered from Markdown by the bundled pdfkit (standard fonts from inside the executable)
  const api = async (method: string, route: string, token: string, payload?: unknown) => {
    const res = await fetch(`${url}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(payload !== undefined && { 'content-type': 'application/json' }) },
      ...(payload !== undefined && { body: JSON.stringify(payload) }),
    });
    return { status: res.status, body: (await res.json()) as { data: { id: number } } };
  };
  const admin = body.data.token;
  const msa = await api('POST', '/api/admin/agreement', admin, {
    kind: 'msa',
    version: 'bin-1',
    title: 'Master Services Agreement',
    bodyMarkdown:
      '# MSA\n\n## Scope\n\n1. **Services** as ordered\n- item\n\n---\n\nText with a [link](https://example.test) and *emphasis*.',
  });
  assert.is(msa.status, 201, JSON.stringify(msa.body));
  const email = 'owner@binary.example.test';
  const client = await api('POST', '/api/admin/client', admin, {
    name: 'Binary Works',
    owner: { email, password: ADMIN_PASSWORD },
    seats: { full: 1, connect: 1 },
  });
  assert.is(client.status, 201, JSON.stringify(client.body));
  const ownerSignIn = await fetch(`${url}/api/client/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: ADMIN_PASSWORD, clientId: client.body.data.id }),
  });
  assert.is(ownerSignIn.status, 200, await ownerSignIn.clone().text());
  const ownerToken = ((await ownerSignIn.json()) as { data: { token: string } }).data.token;
  const download = await fetch(`${url}/api/client/download-agreement`, { headers: { authorization: `Bearer ${ownerToken}` } });
  const pdf = Buffer.from(await download.arrayBuffer());
  assert.is(download.status, 200, pdf.toString('utf8'));
  assert.is(download.headers.get('content-type'), 'application/pdf');
  assert.match(download.headers.get('content-disposition') ?? '', /filename="msa-bin-1\.pdf"/);
  assertWellFormedPdf(pdf);
  assert.ok(pdf.includes('/BaseFont /Helvetica-Bold') && pdf.includes('/BaseFont /Helvetica'), 'the standard fonts are used');

  // XLIFF files are read and written by a worker thread whose script travels inside the executable as an asset
  const msaAccepted = await fetch(`${url}/api/client/accept-msa`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ version: 'bin-1' }),
  });
  assert.is(msaAccepted.status, 200, await msaAccepted.text());
  const created = await fetch(`${url}/api/client/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'mutation($i: CreateTemplateInput!) { createTemplate(input: $i) { template { databaseId } version { databaseId } } }',
      variables: { i: { title: 'Binary pump', content: { sections: [{ sectionId: 'prep', title: 'Preparation', steps: [] }] } } },
    }),
  });
  const createdText = await created.text();
  assert.is(created.status, 200, createdText);
  const createdBody = JSON.parse(createdText) as {
    data: { createTemplate: { template: { databaseId: number }; version: { databaseId: number } } };
  };
  const { template, version } = createdBody.data.createTemplate;
  const xlf = `${url}/api/client/templates/${template.databaseId}/versions/${version.databaseId}/translations/de.xlf`;
  const exported = await fetch(xlf, { headers: { authorization: `Bearer ${ownerToken}` } });
  const exportedXml = await exported.text();
  assert.is(exported.status, 200, exportedXml);
  assert.match(exportedXml, /<source>Preparation<\/source>/);
  const imported = await fetch(xlf, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/xliff+xml' },
    body: exportedXml
      .replace('<source>Preparation</source>', '<source>Preparation</source><target>Vorbereitung</target>')
      .replace('state="initial"', 'state="translated"'),
  });
  const importedText = await imported.text();
  assert.is(imported.status, 200, importedText);
  assert.is((JSON.parse(importedText) as { data: { changed: number } }).data.changed, 1);

  // the common-password list (config/common-passwords.txt) travels inside the executable as an asset
  const common = await fetch(`${url}/api/client/auth/change-password`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ currentPassword: ADMIN_PASSWORD, newPassword: 'QwertyUiop123' }),
  });
  const refusal = await common.text();
  assert.is(common.status, 422, refusal);
  assert.match(refusal, /too common/);

  const exitCode = await new Promise<number | null>((resolve) => {
    // 'close', not 'exit': the output pipes are read to their end
    daemon.once('close', (code) => resolve(code));
    daemon.kill('SIGTERM');
  });
  assert.is(exitCode, 0, stderr);
  assert.match(stdout, /shutting down/);
});

Binary('serve --log-format pretty prints readable lines from inside the executable', async ({ dataDir }) => {
  const daemon = spawn(binary, ['--data-dir', dataDir, 'serve', '--host', '127.0.0.1', '--port', '0', '--log-format', 'pretty'], {
    env: cleanEnv({ WIP_LOG_LEVEL: 'info' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  daemon.stderr.on('data', (d) => (stderr += d));
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening" line within 15s: ${stdout}${stderr}`)), 15_000);
    daemon.stdout.on('data', (d) => {
      stdout += d;
      const found = stdout.split('\n').find((l) => l.includes('wip listening on'));
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    });
  });
  const exitCode = await new Promise<number | null>((resolve) => {
    daemon.once('close', (code) => resolve(code));
    daemon.kill('SIGTERM');
  });
  assert.match(line, /^\[\d{4}-\d\d-\d\d [\d:.]+\] INFO: wip listening on http/);
  assert.is(exitCode, 0, stderr);
  assert.is(stderr, '');
});

/**
 * A complete PDF file: header, the trailer's startxref pointing at the
 * cross-reference table, an /Info with the title, and a /Length for each
 * stream that matches the bytes between `stream` and `endstream`.
 */
function assertWellFormedPdf(pdf: Buffer): void {
  assert.is(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
  const text = pdf.toString('latin1');
  assert.ok(text.trimEnd().endsWith('%%EOF'), 'ends with %%EOF');
  const startxref = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(text);
  assert.ok(startxref, 'has startxref');
  assert.is(text.slice(Number(startxref[1]), Number(startxref[1]) + 4), 'xref');
  const streams = [...text.matchAll(/\/Length (\d+)[^]*?>>\s*stream\n/g)];
  assert.ok(streams.length > 0, 'has content streams');
  for (const match of streams) {
    const start = match.index + match[0].length;
    const length = Number(match[1]);
    assert.match(text.slice(start + length, start + length + 11), /^\n?endstream/, `stream at ${start} is ${length} bytes long`);
  }
  assert.match(text, /\/Type \/Page\b/);
}

Binary.run();
