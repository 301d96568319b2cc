import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { request, type TestServer } from './server';

export const BIN = path.resolve(__dirname, '..', '..', '..', 'bin', 'wip');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `wip ...` as a user would, in a child process; `node`: started by another Node.js than the suite's (a machine's own). */
export function runCli(args: string[], options: { env?: Record<string, string>; input?: string; node?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.node ?? process.execPath, [BIN, ...args], {
      env: { ...process.env, WIP_BCRYPT_COST: '4', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

export interface SpawnedDaemon {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `wip serve` on a free loopback port (or `host`, `port`: a restart on the same origin) and waits for its "listening" log line; `node` as for runCli.
 * `args` go before `serve` (global options), `serveArgs` after it (the command's own flags).
 */
export function startDaemon(
  args: string[],
  env: Record<string, string> = {},
  options: { timeoutMs?: number; host?: string; port?: number; node?: string; serveArgs?: string[] } = {},
): Promise<SpawnedDaemon> {
  return new Promise((resolve, reject) => {
    const serve = ['serve', '--host', options.host ?? '127.0.0.1', '--port', String(options.port ?? 0), ...(options.serveArgs ?? [])];
    const child = spawn(options.node ?? process.execPath, [BIN, ...args, ...serve], {
      env: { ...process.env, WIP_BCRYPT_COST: '4', WIP_LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      // leave no daemon behind that starts after all
      child.kill('SIGKILL');
      reject(new Error(`daemon did not start: ${out}${err}`));
    }, options.timeoutMs ?? 15_000);
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', (d) => {
      out += d;
      const match = /wip listening on (http:\/\/[^"\s]+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({
          child,
          url: match[1].replace('localhost', '127.0.0.1'),
          stdout: () => out,
          stop: async (signal = 'SIGTERM') => {
            child.kill(signal);
            return exited;
          },
        });
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited with ${code}: ${out}${err}`));
    });
  });
}

/** The little of TestServer the factories and request helpers need, for a spawned daemon. */
export const daemonAsServer = (daemon: SpawnedDaemon) =>
  ({ url: daemon.url, request: (m: string, p: string, o?: object) => request(daemon.url, m, p, o) }) as unknown as TestServer;
