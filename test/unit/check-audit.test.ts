import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { auditVerdict } from '../../scripts/check-audit';

/**
 * The CI audit (scripts/check-audit.ts) runs the real `npm audit` against a registry on loopback that answers the
 * advisory endpoint as the npm registry does: a high advisory in a production dependency fails, a moderate one
 * passes, a registry without the endpoint (as the mirror CI uses here: 405) or no registry at all is a warning.
 */

const ROOT = path.resolve(__dirname, '..', '..', '..');
const SCRIPT = path.join(ROOT, 'dist', 'scripts', 'check-audit.js');
const test = suite('dependency audit');

type Answer = { status: number; body: unknown };

/** A registry on loopback: the advisory endpoint answers `answer`; package documents are not there (404). */
async function registry(answer: Answer): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const advisories = req.method === 'POST' && req.url === '/-/npm/v1/security/advisories/bulk';
      res.writeHead(advisories ? answer.status : 404, { 'content-type': 'application/json' });
      res.end(advisories ? JSON.stringify(answer.body) : '{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function audit(url: string): Promise<{ code: number | null; out: string }> {
  // a fresh npm cache for each run: npm keeps what it made of an advisory by its id, and the user's cache is left alone
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-audit-cache-'));
  return new Promise<{ code: number | null; out: string }>((resolve, reject) => {
    // the project's lockfile, the script's own npm
    const child = spawn(process.execPath, [SCRIPT, '--registry', url], {
      cwd: ROOT,
      // nothing but the loopback registry: no update check of npm itself
      env: { ...process.env, npm_config_cache: cache, npm_config_audit_level: '', npm_config_update_notifier: 'false' },
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  }).finally(() => fs.rmSync(cache, { recursive: true, force: true }));
}

const advisory = (severity: string) => ({
  zod: [
    {
      id: 1,
      url: 'https://github.com/advisories/GHSA-wip-test',
      title: 'a test advisory',
      severity,
      vulnerable_versions: '<999.0.0',
      cwe: [],
      cvss: { score: 0, vectorString: null },
    },
  ],
});

test('a high advisory in a production dependency fails the run, naming the package and the advisory', async () => {
  const reg = await registry({ status: 200, body: advisory('high') });
  try {
    const { code, out } = await audit(reg.url);
    assert.is(code, 1, out);
    assert.match(out, /^high {5}zod \(https:\/\/github\.com\/advisories\/GHSA-wip-test\)$/m);
    assert.match(out, /— fails: fix or update .*zod/);
  } finally {
    await reg.close();
  }
});

test('a moderate advisory is listed and passes', async () => {
  const reg = await registry({ status: 200, body: advisory('moderate') });
  try {
    const { code, out } = await audit(reg.url);
    assert.is(code, 0, out);
    assert.match(out, /^moderate zod/m);
    assert.match(out, /0 critical, 0 high, \d+ moderate, 0 low — passes/);
  } finally {
    await reg.close();
  }
});

test('a registry without the advisory endpoint is a warning, and passes', async () => {
  const reg = await registry({ status: 405, body: '' });
  try {
    const { code, out } = await audit(reg.url);
    assert.is(code, 0, out);
    assert.match(out, /^WARNING: the advisory service did not answer \(405 Method Not Allowed.*\): the dependency audit did not run$/m);
  } finally {
    await reg.close();
  }
});

test('no registry at all (refused connection) is a warning, and passes', async () => {
  const reg = await registry({ status: 200, body: {} });
  await reg.close(); // its port, now closed
  const { code, out } = await audit(reg.url);
  assert.is(code, 0, out);
  assert.match(out, /^WARNING: the advisory service did not answer \(.*ECONNREFUSED.*\): the dependency audit did not run$/m);
});

test('output that is no report at all is a warning', () => {
  assert.equal(auditVerdict(''), {
    exitCode: 0,
    lines: ['WARNING: npm audit gave no report (no output): the dependency audit did not run'],
  });
});

test.run();
