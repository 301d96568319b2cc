import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer } from '../helpers/server';

const ROOT = path.resolve(__dirname, '..', '..', '..');

interface SpectralResult {
  code: string;
  severity: number;
  message: string;
  path: string[];
}

// Spectral (spectral:oas and the OWASP API security ruleset) on the document the server serves, with the
// committed ruleset (.spectral.yaml: the rules that do not fit are off there, each with its reason): no error.
test('the served OpenAPI document passes spectral:oas and the OWASP ruleset with zero errors', async () => {
  const server = await startTestServer();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-spectral-'));
  try {
    const res = await server.request('GET', '/api/openapi.json');
    assert.is(res.status, 200);
    const file = path.join(dir, 'openapi.json');
    fs.writeFileSync(file, res.text);
    const bin = path.join(ROOT, 'node_modules', '.bin', 'spectral');
    const { stdout } = await promisify(execFile)(
      bin,
      ['lint', file, '--ruleset', path.join(ROOT, '.spectral.yaml'), '--format', 'json', '--quiet', '--fail-severity', 'error'],
      {
        maxBuffer: 64 * 1024 * 1024,
      },
    ).catch((error: { stdout?: string; stderr?: string }) => {
      if (!error.stdout) throw new Error(`spectral failed to run: ${error.stderr}`);
      return { stdout: error.stdout };
    });
    const results = JSON.parse(stdout) as SpectralResult[];
    const errors = results.filter((r) => r.severity === 0);
    assert.is(
      errors.length,
      0,
      errors
        .slice(0, 20)
        .map((e) => `${e.code} at ${e.path.join('.')}: ${e.message}`)
        .join('\n'),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await server.stop();
  }
});

test.run();
