import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

/**
 * No fixed sleep in the tests (docs/testing.md): a pause long enough on a quiet machine is too short on a busy
 * one, and a pause that "proves" something did not happen proves nothing. Wait on the state with `waitFor`
 * (test/helpers/wait.ts), a locator or `waitInPage`; prove an absence with the clock (ManualClock, or node:test's
 * mock timers for the app's own pauses), with an event the server emits when it decided, or with a later event
 * that would have come after it. This scans every test source for the shapes a sleep takes.
 */

const TEST_ROOT = path.resolve(__dirname, '..', '..', '..', 'test');

const SLEEPS: { shape: RegExp; what: string }[] = [
  { shape: /\bwaitForTimeout\s*\(/, what: "Playwright's waitForTimeout" },
  // `new Promise((r) => setTimeout(r, 200))`, `setTimeout(resolve, ms)`, `setTimeout(() => done(), 50)`
  { shape: /\bsetTimeout\(\s*(?:\(\)\s*=>\s*)?\w+(?:\(\))?\s*,/, what: 'a promise a timer resolves' },
  { shape: /['"](?:node:)?timers\/promises['"]/, what: 'timers/promises' },
  { shape: /\bAtomics\.wait\s*\(/, what: 'Atomics.wait' },
  { shape: /\bsleep\s+\d/, what: 'a shell sleep' },
];

/**
 * The sleeps that stay, per file (its path under test/), each with how many and why. A new one needs an entry
 * here, with its reason, in review.
 */
const ALLOWED: Record<string, { count: number; why: string }> = {
  'helpers/wait.ts': { count: 1, why: "waitFor's own pause between two looks at the condition: the one polling loop" },
  'helpers/memory.ts': {
    count: 1,
    why: 'heap samples spaced in time: the smallest of three is the retained heap (a measurement, nothing is awaited)',
  },
  'helpers/exactly-once.ts': {
    count: 1,
    why: "a device's pause between retries while the server is busy or restarting; each retry asks again (bounded by giveUpMs)",
  },
  'helpers/postgres.ts': {
    count: 1,
    why: 'a detached shell that removes the test cluster once this process is gone: sh has no way to wait for a process it did not start',
  },
  'cli/crash-safety.test.ts': { count: 1, why: 'the SIGKILL comes at a random moment of the load: the moment is what is tested' },
  'cli/exactly-once-crash.test.ts': {
    count: 1,
    why: '`sleep` processes are the subject (one left a zombie, one holding the pid): the test waits on /proc, not on them',
  },
};
/** this file: its examples and shapes are sleeps on purpose */
const SELF = 'unit/no-fixed-sleeps.test.ts';

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Each sleep in `text` (comments skipped): its line number and what it is. */
function sleepsIn(text: string): { line: number; what: string }[] {
  const found: { line: number; what: string }[] = [];
  text.split('\n').forEach((line, i) => {
    const code = line.trim();
    if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return;
    for (const { shape, what } of SLEEPS) if (shape.test(code)) found.push({ line: i + 1, what });
  });
  return found;
}

const test = suite('tests: no fixed sleeps');

test('the scan finds each shape a sleep takes, and not a timeout guard, a comment or a pause the test clock moves', () => {
  const sleeps = [
    'await new Promise((r) => setTimeout(r, 200));',
    'await new Promise((resolve) => setTimeout(resolve, ms));',
    'await new Promise<void>((done) => setTimeout(() => done(), 50));',
    'await page.waitForTimeout(300);',
    "import { setTimeout as sleep } from 'node:timers/promises';",
    'Atomics.wait(view, 0, 0, 100);',
    "spawn('sh', ['-c', 'sleep 1; kill $1']);",
  ];
  for (const line of sleeps) assert.is(sleepsIn(line).length, 1, line);
  const notSleeps = [
    "setTimeout(() => reject(new Error('stream did not open')), 15_000).unref();",
    "const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);",
    'mock.timers.tick(1);',
    '// a fixed sleep such as setTimeout(r, 200) proves nothing',
    ' * (never page.waitForTimeout(300))',
    'await new Promise<void>((resolve) => setImmediate(resolve));',
  ];
  for (const line of notSleeps) assert.equal(sleepsIn(line), [], line);
});

test('no test source sleeps outside the allowlist; every entry of the allowlist is still needed', () => {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const file of sources(TEST_ROOT)) {
    const name = path.relative(TEST_ROOT, file).split(path.sep).join('/');
    if (name === SELF) continue;
    const found = sleepsIn(fs.readFileSync(file, 'utf8'));
    if (found.length === 0) continue;
    seen.add(name);
    const allowed = ALLOWED[name]?.count ?? 0;
    if (found.length > allowed)
      problems.push(`test/${name}: ${found.map((f) => `line ${f.line} (${f.what})`).join(', ')}${allowed ? ` — ${allowed} allowed` : ''}`);
    else if (found.length < allowed) problems.push(`test/${name}: ${found.length} sleeps, the allowlist says ${allowed}: lower it`);
  }
  for (const name of Object.keys(ALLOWED)) if (!seen.has(name)) problems.push(`test/${name} sleeps no more: remove its allowlist entry`);
  assert.equal(problems, [], `fixed sleeps (wait on a condition, move a clock, or await an event instead):\n${problems.join('\n')}`);
});

test.run();
