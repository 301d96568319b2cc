import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';

/** The repository root (scripts run from dist/scripts/bench). */
export const root = path.resolve(__dirname, '..', '..', '..');
const children: ChildProcess[] = [];

/** Starts a node process and resolves with the first capture of `ready` on its stdout (its URL). */
export function startProcess(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    let out = '';
    let done = false;
    child.stdout!.on('data', (d: Buffer) => {
      if (done) return; // the daemon's request log is not kept
      out += d;
      const match = ready.exec(out);
      if (match) {
        done = true;
        out = '';
        resolve({ url: match[1]!.replace('localhost', '127.0.0.1'), child });
      }
    });
    child.on('close', (code) => reject(new Error(`process exited ${code}: ${out}`)));
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
export async function startWip(dataDir: string, extraEnv: Record<string, string> = {}, nodeArgs: string[] = []) {
  const started = Date.now();
  const wip = await startProcess(
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

export async function json(url: string, method: string, body: unknown, token?: string): Promise<any> {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const parsed = (await res.json()) as { success: boolean; data: any };
  if (!parsed.success) throw new Error(`${method} ${url}: ${JSON.stringify(parsed)}`);
  return parsed.data;
}

export interface LoadFigures {
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  errors: number;
  non2xx: number;
}

export async function load(opts: autocannon.Options): Promise<LoadFigures> {
  const result = await autocannon({ duration: Number(process.env.BENCH_SECONDS ?? 5), ...opts });
  return {
    reqPerSec: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function writeResults(results: Record<string, unknown>): string {
  const dir = path.join(root, '.bench');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'results.json');
  fs.writeFileSync(file, JSON.stringify(results, null, 2) + '\n');
  return file;
}
