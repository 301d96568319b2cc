/**
 * `npm run test:watch [-- WORD…]`: on every change under src/ or test/, the incremental build (`npm run build`,
 * scripts/build.ts) and then the test files the change concerns (scripts/related-tests.ts) and those whose path
 * contains a WORD, on SQLite (scripts/run-tests.ts). A change made while a run is going on waits for its end.
 * Ctrl-C ends it.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { relatedTests } from './related-tests';

const checkout = path.resolve(__dirname, '..', '..');
const words = process.argv.slice(2);
/** an editor saves a file in several writes, and a checkout changes many: one run for them all */
const SETTLE_MS = 300;

const pending = new Set<string>();
let timer: NodeJS.Timeout | undefined;
let running = false;

function testFiles(dir: string): string[] {
  return fs.readdirSync(path.join(checkout, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(file);
    return entry.name.endsWith('.test.ts') ? [file] : [];
  });
}

function run(): void {
  if (running) return;
  running = true;
  const changed = [...pending];
  pending.clear();
  const selection = relatedTests(changed, testFiles('test'));
  // run-tests matches substrings of the compiled paths: test/x/y.test.ts → test/x/y.test.js
  const filters = [...selection.map((file) => file.replace(/\.ts$/, '.js')), ...words];
  process.stdout.write(`\n── ${changed.join(', ')}\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const build = spawnSync(npm, ['run', '--silent', 'build'], { cwd: checkout, stdio: 'inherit' });
  if (build.status !== 0) process.stdout.write('── the build failed: fix it, the next change runs again\n');
  else if (filters.length === 0)
    process.stdout.write('── built; no test file concerns this change (npm run test:watch -- WORD adds some)\n');
  else spawnSync(process.execPath, [path.join(__dirname, 'run-tests.js'), ...filters], { cwd: checkout, stdio: 'inherit' });
  running = false;
  process.stdout.write('── watching src/ and test/\n');
  if (pending.size > 0) run();
}

for (const dir of ['src', 'test']) {
  fs.watch(path.join(checkout, dir), { recursive: true }, (_event, name) => {
    if (!name) return;
    pending.add(path.join(dir, name.toString()));
    clearTimeout(timer);
    timer = setTimeout(run, SETTLE_MS);
  });
}
process.stdout.write(`── watching src/ and test/${words.length ? ` (and running the files matching ${words.join(', ')})` : ''}\n`);
