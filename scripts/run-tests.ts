/**
 * Runs every compiled test file (dist/test/**\/*.test.js) in its own process,
 * two at a time, and ends with the line `N passed, N failed`. Exit 1 when any
 * test failed or a file crashed. Pass substrings to run only matching files.
 * `--postgres`: the suites that run on both backends (BOTH_BACKENDS), on
 * PostgreSQL (WIP_TEST_BACKEND=postgres, test/helpers/server.ts); with
 * substrings, the matching files on PostgreSQL (but none marked sqlite-only).
 * `--both` (npm test): the selection on SQLite, then its part that runs on
 * both backends on PostgreSQL.
 * Before the files that need PostgreSQL, one check that the test server
 * starts: when it cannot, they do not run and the run has one failure that
 * says why (test/helpers/postgres-preflight.ts).
 * `--changed` (npm run test:quick): instead of substrings, the files the changes since main concern
 * (scripts/related-tests.ts); none: nothing to run, and the run says so.
 * `--coverage`, or CI=true: the files of the rule layers (COVERED: test/unit, test/services) write V8 coverage
 * (NODE_V8_COVERAGE) on SQLite, and the run ends with `c8 report` (.c8rc.json) and, when every file ran, the floors
 * (scripts/coverage-floors.ts).
 * Every file (and the check) runs on the pinned Node.js (scripts/pinned-node.ts),
 * the one the executable embeds, whichever node started this script (npm
 * scripts already start it on that one; `node dist/scripts/run-tests.js` in a
 * shell whose node is the machine's 20 would not); elsewhere than Linux x64,
 * on this process's node.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import readline from 'node:readline';
import { checkCoverageFloors } from './coverage-floors';
import { pinnedNodePath } from './pinned-node';
import { changedSinceMain, relatedTests } from './related-tests';

const root = path.resolve(__dirname, '..', 'test');
/** the TypeScript sources, where the sqlite-only markers are read (the compiled files put helpers above them) */
const sourceRoot = path.resolve(__dirname, '..', '..', 'test');

/**
 * The folders of test/ whose every suite runs on SQLite and again on
 * PostgreSQL: their servers start through test/helpers/server.ts, their
 * services' Deps through test/helpers/service-deps.ts, whose backend
 * WIP_TEST_BACKEND picks. A suite that cannot or should not says so in
 * its first lines with `// sqlite-only: <the reason>`; the runner refuses a
 * marker without a reason, one further down, or one outside these folders, so
 * the reason is always where a reader of the file sees it. (test/db/postgres-*
 * use PostgreSQL whatever the backend, so they run once, with the rest; the
 * CLI, browser and other suites run on SQLite.)
 */
const BOTH_BACKENDS = ['http', 'graphql', 'services'];
const MARKER_LINES = 10;
const MARKER = /^\s*\/\/\s*sqlite-only\b:?(.*)$/;
const checkout = path.resolve(root, '..', '..');
const FLAGS = ['--postgres', '--both', '--changed', '--coverage'];
const postgresOnly = process.argv.includes('--postgres');
const both = process.argv.includes('--both');
const changed = process.argv.includes('--changed');
const coverageAsked = process.argv.includes('--coverage') || process.env.CI === 'true';
const coverageData = path.join(checkout, 'coverage', 'tmp');
/**
 * Coverage measures how far the rules are proven where they live: by the unit and service suites, below HTTP (the
 * floors are for src/domain, src/policies and src/services). Collected from every suite it cost half as much CPU
 * again; the HTTP, GraphQL and browser suites prove contracts, not coverage. On SQLite only: the same code runs on both.
 */
const COVERED = ['unit', 'services'];
const topFolder = (file: string) => path.relative(root, file).split(path.sep)[0];
const filters = process.argv.slice(2).filter((arg) => !FLAGS.includes(arg));
const matching = (list: string[], words: string[]) => list.filter((f) => words.length === 0 || words.some((x) => f.includes(x)));
const inBothFolders = (file: string) => BOTH_BACKENDS.includes(path.relative(root, file).split(path.sep)[0]);
const all = findTests(root);
const sqliteOnly = readMarkers(all); // every file, whatever the selection: a bad marker fails any run
/** a compiled test file's source, relative to the checkout */
const sourceOf = (file: string) => path.join('test', path.relative(root, file)).replace(/\.js$/, '.ts');
const selected = changed ? changedSelection() : matching(all, filters);
const onPostgres = selected
  .filter((file) => (postgresOnly && filters.length > 0) || inBothFolders(file))
  .filter((file) => !sqliteOnly.has(file));
/** each run: the files, and whether on PostgreSQL */
const runs: { files: string[]; postgres: boolean }[] = postgresOnly
  ? [{ files: onPostgres, postgres: true }]
  : [{ files: selected, postgres: false }, ...(both && onPostgres.length > 0 ? [{ files: onPostgres, postgres: true }] : [])];
const jobs = runs.flatMap((run) => run.files.map((file) => ({ file, postgres: run.postgres })));
/** a run with no unit or service file on SQLite (CI's PostgreSQL-only step) has no coverage to report */
const coverage = coverageAsked && jobs.some((job) => !job.postgres && COVERED.includes(topFolder(job.file)));
const parallel = Math.max(1, Math.min(os.availableParallelism(), 4));
const runtime = pinnedNodePath(path.resolve(root, '..', '..')) ?? process.execPath;

interface Outcome {
  file: string;
  passed: number;
  failed: number;
  crashed: boolean;
  output: string;
  /** wall time of the file's process, in seconds */
  seconds: number;
  /** CPU time of the file's own process (not of a browser, PostgreSQL or CLI it starts), in seconds */
  cpuSeconds?: number;
}

function findTests(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return findTests(full);
      return entry.name.endsWith('.test.js') ? [full] : [];
    })
    .sort();
}

/**
 * The files marked sqlite-only, with their reasons. Exits (nothing run) on a
 * marker without a reason, below the first lines, or outside BOTH_BACKENDS.
 */
function readMarkers(files: string[]): Map<string, string> {
  const marked = new Map<string, string>();
  const refused: string[] = [];
  for (const file of files) {
    const relative = path.relative(root, file);
    const source = path.join(sourceRoot, relative.replace(/\.js$/, '.ts'));
    if (!fs.existsSync(source)) continue;
    fs.readFileSync(source, 'utf8')
      .split('\n')
      .forEach((line, index) => {
        const match = MARKER.exec(line);
        if (!match) return;
        const reason = match[1].trim();
        const where = `test/${relative.replace(/\.js$/, '.ts')}:${index + 1}`;
        if (!inBothFolders(file))
          refused.push(
            `${where}: a sqlite-only marker outside ${BOTH_BACKENDS.map((d) => `test/${d}`).join(', ')}, whose suites run on SQLite only anyway`,
          );
        else if (index >= MARKER_LINES)
          refused.push(`${where}: the sqlite-only marker must be in the first ${MARKER_LINES} lines, where a reader sees it`);
        else if (reason.length < 10)
          refused.push(`${where}: the sqlite-only marker needs its reason: \`// sqlite-only: <why this suite cannot run on PostgreSQL>\``);
        else marked.set(file, reason);
      });
  }
  if (refused.length > 0) {
    process.stderr.write(`run-tests: refused, nothing run:\n${refused.map((r) => `  ${r}\n`).join('')}`);
    process.exit(1);
  }
  return marked;
}

/** The files the changes since main concern; exits (nothing to run) when there are none. */
function changedSelection(): string[] {
  const files = changedSinceMain(checkout);
  const related = new Set(relatedTests(files, all.map(sourceOf)));
  if (related.size === 0) {
    process.stdout.write(`no test file concerns the ${files.length} files changed since main; npm test -- WORD runs those matching WORD\n`);
    process.exit(0);
  }
  return all.filter((file) => related.has(sourceOf(file)));
}

/** The runs on PostgreSQL, and the files that use the test PostgreSQL server themselves (test/db/postgres-*, …). */
function needsPostgres(job: { file: string; postgres: boolean }): boolean {
  return job.postgres || /require\("\.\.\/helpers\/postgres"\)/.test(fs.readFileSync(job.file, 'utf8'));
}

/**
 * The run's test PostgreSQL (test/helpers/postgres-preflight.ts): started once, so that one that cannot start is
 * one failure with its reason; then shared by the files that run on PostgreSQL, each dropping its databases after it.
 */
interface SharedPostgres {
  adminUrl: string;
  /** drops the databases of a finished test process */
  dropDatabasesOf(pid: number): Promise<void>;
  stop(): void;
}

function startSharedPostgres(): Promise<SharedPostgres | { unavailable: string }> {
  return new Promise((resolve) => {
    const child = spawn(runtime, ['--enable-source-maps', path.join(root, 'helpers', 'postgres-preflight.js')], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const dropped = new Map<number, () => void>();
    const lines = readline.createInterface({ input: child.stdout });
    lines.once('line', (adminUrl) =>
      resolve({
        adminUrl,
        dropDatabasesOf: (pid) =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            dropped.set(pid, done);
            child.stdin.write(`drop ${pid}\n`);
          }),
        stop: () => child.stdin.end(),
      }),
    );
    lines.on('line', (line) => {
      const pid = Number(/^dropped (\d+)$/.exec(line)?.[1]);
      dropped.get(pid)?.();
      dropped.delete(pid);
    });
    child.on('close', (code) => {
      // a server gone mid-run: nothing left to drop, and its files fail on their own
      for (const done of dropped.values()) done();
      dropped.clear();
      resolve({ unavailable: stderr.trim() || `exit code ${code}` });
    });
  });
}

function runFile(file: string, postgres: SharedPostgres | null): Promise<Outcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    const backendEnv = postgres ? { WIP_TEST_BACKEND: 'postgres', WIP_TEST_POSTGRES_URL: postgres.adminUrl } : {};
    const coverageEnv = coverage && !postgres && COVERED.includes(topFolder(file)) ? { NODE_V8_COVERAGE: coverageData } : {};
    const child = spawn(runtime, ['--enable-source-maps', '--require', path.join(__dirname, 'test-process-report.js'), file], {
      env: { ...process.env, ...backendEnv, ...coverageEnv, NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const closed = new Promise<number | null>((done) => child.on('close', done));
    void closed.then(async (code) => {
      if (postgres) await postgres.dropDatabasesOf(child.pid!);
      let total = 0,
        passed = 0,
        skipped = 0;
      for (const m of output.matchAll(/Total:\s+(\d+)/g)) total += Number(m[1]);
      for (const m of output.matchAll(/Passed:\s+(\d+)/g)) passed += Number(m[1]);
      for (const m of output.matchAll(/Skipped:\s+(\d+)/g)) skipped += Number(m[1]);
      const failed = total - passed - skipped;
      const seconds = (Date.now() - started) / 1000;
      const cpu = /\n#wip-test-cpu-ms (\d+)\n/.exec(output);
      const cpuSeconds = cpu ? Number(cpu[1]) / 1000 : undefined;
      output = output.replace(/\n#wip-test-cpu-ms \d+\n/, '');
      resolve({ file, passed, failed, crashed: code !== 0 && failed === 0, output, seconds, cpuSeconds });
    });
  });
}

async function main(): Promise<void> {
  const started = Date.now();
  process.stdout.write(
    `tests run on ${runtime === process.execPath ? `this node (${process.version})` : path.relative(process.cwd(), runtime)}\n`,
  );
  const outcomes: Outcome[] = [];
  let queue = [...jobs];
  if (coverage) fs.rmSync(path.dirname(coverageData), { recursive: true, force: true });
  if (postgresOnly || both) {
    for (const file of selected.filter((f) => sqliteOnly.has(f)))
      process.stdout.write(`skip ${path.relative(root, file)} [postgres]: sqlite-only: ${sqliteOnly.get(file)}\n`);
  }
  const postgresJobs = jobs.filter(needsPostgres);
  const postgres = postgresJobs.length > 0 ? await startSharedPostgres() : null;
  const shared = postgres && 'adminUrl' in postgres ? postgres : null;
  const unavailable = postgres && 'unavailable' in postgres ? postgres.unavailable : null;
  if (unavailable) {
    queue = queue.filter((job) => !postgresJobs.includes(job));
    const names = [...new Set(postgresJobs.map((job) => path.relative(root, job.file)))];
    process.stdout.write(
      `FAIL PostgreSQL for the tests cannot start, so ${postgresJobs.length} runs that need it were skipped (${names.join(', ')}):\n${unavailable.replace(/^/gm, '    ')}\n`,
    );
    outcomes.push({ file: 'PostgreSQL', passed: 0, failed: 0, crashed: true, output: unavailable, seconds: 0 });
  }
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let job = queue.shift(); job; job = queue.shift()) {
        const outcome = await runFile(job.file, job.postgres ? shared : null);
        const name = path.relative(root, job.file) + (job.postgres ? ' [postgres]' : '');
        outcomes.push({ ...outcome, file: name });
        const mark = outcome.failed || outcome.crashed ? 'FAIL' : 'ok  ';
        process.stdout.write(
          `${mark} ${name} (${outcome.passed} passed${outcome.failed ? `, ${outcome.failed} failed` : ''}, ${outcome.seconds.toFixed(1)}s, cpu ${outcome.cpuSeconds?.toFixed(1) ?? '?'}s)\n`,
        );
        if (outcome.failed || outcome.crashed) process.stdout.write(outcome.output.replace(/^/gm, '    ') + '\n');
      }
    }),
  );
  const passed = outcomes.reduce((n, o) => n + o.passed, 0);
  const failed = outcomes.reduce((n, o) => n + o.failed + (o.crashed ? 1 : 0), 0);
  const onPg = jobs.filter((job) => job.postgres).length;
  process.stdout.write(
    `\n${jobs.length} test files${onPg ? ` (${onPg} on PostgreSQL)` : ''} in ${((Date.now() - started) / 1000).toFixed(1)}s\n`,
  );
  const slowest = [...outcomes].sort((a, b) => b.seconds - a.seconds).slice(0, 10);
  if (outcomes.length > 1)
    process.stdout.write(
      `slowest files (wall time; the CPU time of the file's own process):\n${slowest
        .map((o) => `  ${o.seconds.toFixed(1).padStart(6)}s  ${o.cpuSeconds?.toFixed(1).padStart(6) ?? '     ?'}s  ${o.file}\n`)
        .join('')}`,
    );
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  shared?.stop();
  if (failed > 0 || jobs.length === 0) process.exitCode = 1;
  if (coverage && !checkCoverageFloors(checkout, { floors: filters.length === 0 && !changed })) process.exitCode = 1;
}

void main();
