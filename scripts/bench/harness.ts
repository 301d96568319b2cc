import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import type autocannon from 'autocannon';
import { pinnedNodePath } from '../pinned-node';
import type { LoadJob } from './load-generator';
import type { RecordFigures, RecordingOperator } from './record-load';

/** The repository root (scripts run from dist/scripts/bench). */
export const root = path.resolve(__dirname, '..', '..', '..');
const children: ChildProcess[] = [];

/**
 * Starts a node process and resolves with the first capture of `ready` in its
 * output (its URL). Output goes to a file (.bench/<name>.log), not a pipe: the
 * daemon's request log must not cost the benchmarking process anything.
 */
export function startProcess(
  name: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ url: string; child: ChildProcess; logFile: string }> {
  const dir = path.join(root, '.bench');
  fs.mkdirSync(dir, { recursive: true });
  const logFile = path.join(dir, `${name}.log`);
  const fd = fs.openSync(logFile, 'w');
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', fd, 'inherit'] });
  fs.closeSync(fd);
  children.push(child);
  return new Promise((resolve, reject) => {
    const poll = setInterval(() => {
      const match = ready.exec(fs.readFileSync(logFile, 'utf8'));
      if (match) {
        clearInterval(poll);
        resolve({ url: match[1].replace('localhost', '127.0.0.1'), child, logFile });
      }
    }, 5);
    child.on('close', (code) => {
      clearInterval(poll);
      reject(new Error(`process exited ${code}: ${fs.readFileSync(logFile, 'utf8').slice(-2000)}`));
    });
  });
}

/** Ends one process and waits for its exit (a CPU profile is written at exit). */
export function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export function killAll(): void {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
}

/** The wip daemon on a data directory, on a free loopback port, with budgets no benchmark reaches. */
export async function startWip(dataDir: string, extraEnv: Record<string, string> = {}, name = 'wip') {
  // BENCH_PROFILE=1: a CPU profile of every daemon, written to .bench/profiles when it stops
  const nodeArgs = process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', path.join(root, '.bench', 'profiles')] : [];
  const started = Date.now();
  const wip = await startProcess(
    name,
    [...nodeArgs, 'bin/wip', '--data-dir', dataDir, 'serve', '--host', '127.0.0.1', '--port', '0'],
    {
      WIP_ADMIN_PASSWORD: 'bench-admin-password',
      WIP_RATE_LIMIT_MAX: '100000000',
      WIP_RATE_LIMIT_ANONYMOUS_MAX: '100000000',
      WIP_SIGN_IN_RATE_LIMIT_MAX: '100000000',
      WIP_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      ...extraEnv,
    },
    /wip listening on (http:\/\/[^"\s]+)/,
  );
  return { ...wip, startedInMs: Date.now() - started };
}

export async function json<T = any>(url: string, method: string, body: unknown, token?: string): Promise<T> {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const parsed = (await res.json()) as { success: boolean; data: any };
  if (!parsed.success) throw new Error(`${method} ${url}: ${JSON.stringify(parsed)}`);
  return parsed.data as T;
}

export interface LoadFigures {
  reqPerSec: number;
  /** CPU time (user + system, all threads) the server process spent per answered request, in µs: steadier than req/s on a shared machine */
  serverCpuUsPerRequest?: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  errors: number;
  non2xx: number;
}

/** The fields of /proc/<pid>/stat after the command name (Linux; undefined elsewhere or when gone). */
function procStat(pid: number | string | undefined): string[] | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  } catch {
    return undefined;
  }
}

/** CPU seconds used so far by a process (Linux /proc; undefined elsewhere). */
export function cpuSeconds(pid: number | undefined): number | undefined {
  const fields = procStat(pid);
  return fields && (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in USER_HZ (100 on Linux)
}

/**
 * CPU seconds used so far by a process's main thread: its JavaScript, without
 * V8's and libuv's helper threads. On an idle machine a start's wall time is
 * about this; on a shared one it is the steadier figure.
 */
export function mainThreadCpuSeconds(pid: number | undefined): number | undefined {
  const fields = pid === undefined ? undefined : procStat(`${pid}/task/${pid}`);
  return fields && (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds of a process and its children (PostgreSQL: the postmaster, its backends and workers); NaN off Linux. */
export function treeCpuSeconds(pid: number): number {
  let total = cpuSeconds(pid) ?? NaN;
  for (const name of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    const fields = procStat(name);
    if (fields && Number(fields[1]) === pid) total += cpuSeconds(Number(name)) ?? 0;
  }
  return total;
}

/** The parent of a process (Linux /proc). */
export function parentPid(pid: number): number | undefined {
  const fields = procStat(pid);
  return fields && Number(fields[1]);
}

/**
 * autocannon for BENCH_SECONDS, in a load generator process of its own (bench/load-generator.ts); with `server`
 * (the pid answering), also its CPU time per request, read just before the run starts and as its result arrives.
 */
export async function load(opts: autocannon.Options, server?: ChildProcess): Promise<LoadFigures> {
  let cpuBefore: number | undefined;
  const result = await runLoadGenerator<autocannon.Result>(
    { autocannon: opts.amount ? opts : { duration: Number(process.env.BENCH_SECONDS ?? 5), ...opts } },
    () => (cpuBefore = cpuSeconds(server?.pid)),
  );
  const cpuAfter = cpuSeconds(server?.pid);
  return {
    reqPerSec: Math.round(result.requests.average),
    ...(cpuBefore !== undefined &&
      cpuAfter !== undefined && { serverCpuUsPerRequest: Math.round(((cpuAfter - cpuBefore) * 1e6) / Math.max(1, result.requests.total)) }),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

/**
 * Operators recording steps for BENCH_SECONDS (bench/record-load.ts), in a load generator process of its own;
 * `started` is called the moment before they start.
 */
export function recordLoad(operators: RecordingOperator[], started?: () => void): Promise<RecordFigures> {
  return runLoadGenerator({ record: { operators, seconds: Number(process.env.BENCH_SECONDS ?? 5) } }, started);
}

/**
 * Runs one load in a new load generator process on the pinned Node.js (the product's runtime; this one where it is
 * not installed): `started` is called the moment before it starts loading, after the process's own start and warm-up.
 */
function runLoadGenerator<T>(job: LoadJob, started: () => void = () => {}): Promise<T> {
  const runtime = pinnedNodePath(root) ?? process.execPath;
  const child = spawn(runtime, [path.join(__dirname, 'load-generator.js')], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let result: T | undefined;
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      if (line === 'ready') {
        started();
        child.stdin.end(JSON.stringify(job) + '\n');
      } else {
        resolve((result = JSON.parse(line) as T));
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (!result) reject(new Error(`the load generator exited ${code} without a result`));
    });
  });
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function writeResults(results: Record<string, unknown>): string {
  const dir = path.join(root, '.bench');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'results.json');
  fs.writeFileSync(file, JSON.stringify(results, null, 2) + '\n');
  return file;
}
