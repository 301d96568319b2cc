/**
 * `npm run build`, after `tsc -p tsconfig.json` (incremental: dist/.tsbuildinfo): the rest of the build — the typed
 * client, the type checks of the console, the floor app and its service worker, and their esbuild bundles — each step
 * skipped when none of the files it read last time changed. A step's inputs are what it really read: the files tsc
 * lists (`--listFiles`), or for a script, the modules it loaded and the files esbuild bundled (written to
 * WIP_BUILD_INPUTS, see writeBuildInputs). They are recorded with their modification time and size in
 * dist/.build/<step>.json once the step succeeded; a file changed while the step ran is recorded as unknown, so the
 * next build runs the step again. A failed step leaves no record and fails the build. `--force`: every step runs.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');
const records = path.join(root, 'dist', '.build');
const tsc = path.join(root, 'node_modules', '.bin', 'tsc');

type Step = { name: string; tsconfig: string } | { name: string; script: string };

/** In the order they must run: the console's type check reads the client's schema.d.ts. */
const STEPS: Step[] = [
  { name: 'client', script: 'dist/scripts/build-client.js' },
  { name: 'console-types', tsconfig: 'src/console/tsconfig.json' },
  { name: 'app-types', tsconfig: 'src/app/tsconfig.json' },
  { name: 'sw-types', tsconfig: 'src/app/sw.tsconfig.json' },
  { name: 'console', script: 'dist/scripts/build-console.js' },
  { name: 'app', script: 'dist/scripts/build-app.js' },
];

/** A file's modification time and size, or null when it is gone. */
function signature(file: string): string | null {
  try {
    const stat = fs.statSync(file);
    return `${stat.mtimeMs}:${stat.size}`;
  } catch {
    return null;
  }
}

/** Folders whose files are written by tools, not people: a new file there is read only once something imports it. */
const GENERATED = ['dist', 'node_modules'].map((dir) => path.join(root, dir));

/**
 * The inputs and the source folders that hold them (a file added to or removed from a folder changes its time: a new
 * file a tsconfig's `include` would pick up reruns the check).
 */
function withFolders(files: string[]): string[] {
  const all = new Set<string>();
  for (const file of files) {
    all.add(file);
    if (GENERATED.some((dir) => file.startsWith(dir + path.sep))) continue;
    for (let dir = path.dirname(file); dir.startsWith(root + path.sep); dir = path.dirname(dir)) all.add(dir);
  }
  return [...all];
}

function upToDate(step: Step): boolean {
  const record = path.join(records, `${step.name}.json`);
  if (!fs.existsSync(record)) return false;
  const inputs = JSON.parse(fs.readFileSync(record, 'utf8')) as Record<string, string | null>;
  return Object.keys(inputs).length > 0 && Object.entries(inputs).every(([file, known]) => known !== null && signature(file) === known);
}

function record(step: Step, inputs: string[], started: number): void {
  const entries = withFolders(inputs.map((file) => path.resolve(root, file))).map((file) => {
    const known = signature(file);
    const changedSince = known !== null && Number(known.split(':')[0]) >= started;
    return [file, changedSince ? null : known];
  });
  fs.mkdirSync(records, { recursive: true });
  fs.writeFileSync(path.join(records, `${step.name}.json`), JSON.stringify(Object.fromEntries(entries), null, 1) + '\n');
}

/** Runs the step; its inputs, or null when it failed (its output already shown). */
function run(step: Step): string[] | null {
  if ('tsconfig' in step) {
    const result = spawnSync(tsc, ['-p', step.tsconfig, '--listFiles'], { cwd: root, encoding: 'utf8' });
    const lines = result.stdout.split('\n').filter(Boolean);
    // --listFiles prints absolute paths; everything else is a diagnostic
    const files = lines.filter((line) => path.isAbsolute(line) && fs.existsSync(line));
    const rest = lines.filter((line) => !files.includes(line)).join('\n');
    if (rest) process.stdout.write(rest + '\n');
    process.stderr.write(result.stderr);
    return result.status === 0 ? [path.resolve(root, step.tsconfig), ...files] : null;
  }
  const list = path.join(records, `${step.name}.inputs`);
  fs.mkdirSync(records, { recursive: true });
  fs.rmSync(list, { force: true });
  const result = spawnSync(process.execPath, [step.script], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, WIP_BUILD_INPUTS: list },
  });
  if (result.status !== 0 || !fs.existsSync(list)) return null;
  return JSON.parse(fs.readFileSync(list, 'utf8')) as string[];
}

function main(): void {
  const force = process.argv.includes('--force');
  for (const step of STEPS) {
    if (!force && upToDate(step)) {
      process.stdout.write(`build: ${step.name} up to date\n`);
      continue;
    }
    const started = Date.now();
    fs.rmSync(path.join(records, `${step.name}.json`), { force: true });
    const inputs = run(step);
    if (!inputs) {
      process.stderr.write(`build: ${step.name} failed\n`);
      process.exit(1);
    }
    record(step, inputs, started);
    process.stdout.write(`build: ${step.name} built in ${((Date.now() - started) / 1000).toFixed(1)}s\n`);
  }
}

main();
