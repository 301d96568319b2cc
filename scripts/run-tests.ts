/**
 * Runs every compiled test file (dist/test/**\/*.test.js) in its own process,
 * two at a time, and ends with the line `N passed, N failed`. Exit 1 when any
 * test failed or a file crashed. Pass substrings to run only matching files.
 * `--postgres`: the suites that run on both backends (POSTGRES_SUITES), on
 * PostgreSQL (WIP_TEST_BACKEND=postgres, test/helpers/server.ts); with
 * substrings, those files on PostgreSQL.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';

/** Authentication, tenancy, users, licensing and the work-instruction domain: the HTTP suites CI runs on both backends. */
const POSTGRES_SUITES = [
  '/db/postgres-',
  '/http/client-auth.',
  '/http/client-security.',
  '/http/lockout-csrf.',
  '/http/two-factor.',
  '/http/account-mail.',
  '/http/admin-user.',
  '/http/admin-client-license.',
  '/http/admin-license-on-prem.',
  '/http/client-license.',
  '/http/agreements.',
  '/http/working-together.',
  '/http/editorial.',
  '/http/update-sensors.',
  '/http/usage-reports.',
  '/graphql/',
];

const root = path.resolve(__dirname, '..', 'test');
const postgres = process.argv.includes('--postgres');
const filters = process.argv.slice(2).filter((arg) => arg !== '--postgres');
const selection = filters.length > 0 ? filters : postgres ? POSTGRES_SUITES : [];
const files = findTests(root).filter((f) => selection.length === 0 || selection.some((x) => f.includes(x)));
const backendEnv = postgres ? { WIP_TEST_BACKEND: 'postgres' } : {};
const parallel = Math.max(1, Math.min(os.availableParallelism(), 4));

interface Outcome { file: string; passed: number; failed: number; crashed: boolean; output: string }

function findTests(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return findTests(full);
    return entry.name.endsWith('.test.js') ? [full] : [];
  }).sort();
}

function runFile(file: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--enable-source-maps', file], { env: { ...process.env, ...backendEnv, NO_COLOR: '1', FORCE_COLOR: '0' } });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => {
      let total = 0, passed = 0, skipped = 0;
      for (const m of output.matchAll(/Total:\s+(\d+)/g)) total += Number(m[1]);
      for (const m of output.matchAll(/Passed:\s+(\d+)/g)) passed += Number(m[1]);
      for (const m of output.matchAll(/Skipped:\s+(\d+)/g)) skipped += Number(m[1]);
      const failed = total - passed - skipped;
      resolve({ file, passed, failed, crashed: code !== 0 && failed === 0, output });
    });
  });
}

async function main(): Promise<void> {
  const queue = [...files];
  const outcomes: Outcome[] = [];
  const started = Date.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let file = queue.shift(); file; file = queue.shift()) {
        const outcome = await runFile(file);
        outcomes.push(outcome);
        const name = path.relative(root, file);
        const mark = outcome.failed || outcome.crashed ? 'FAIL' : 'ok  ';
        process.stdout.write(`${mark} ${name} (${outcome.passed} passed${outcome.failed ? `, ${outcome.failed} failed` : ''})\n`);
        if (outcome.failed || outcome.crashed) process.stdout.write(outcome.output.replace(/^/gm, '    ') + '\n');
      }
    }),
  );
  const passed = outcomes.reduce((n, o) => n + o.passed, 0);
  const failed = outcomes.reduce((n, o) => n + o.failed + (o.crashed ? 1 : 0), 0);
  process.stdout.write(`\n${files.length} test files${postgres ? ' on PostgreSQL' : ''} in ${((Date.now() - started) / 1000).toFixed(1)}s\n`);
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  if (failed > 0 || files.length === 0) process.exitCode = 1;
}

void main();
