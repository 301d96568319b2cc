import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_PASSWORD } from './server';

/** The repository root (tests run from dist/test/...). */
export const ROOT = path.resolve(__dirname, '..', '..', '..');
const BIN = path.join(ROOT, 'bin', 'wip');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment a CLI test runs `wip` with: fast bcrypt, quiet logs, its own data dir. */
export function cliEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('WIP_') && value !== undefined) env[key] = value;
  return { ...env, WIP_DATA_DIR: dataDir, WIP_BCRYPT_COST: '4', WIP_LOG_LEVEL: 'warn', WIP_ADMIN_PASSWORD: ADMIN_PASSWORD, WIP_ENV: 'test', ...extra };
}

/** Runs `node bin/wip <args>` as a user would and collects its output. */
export function runWip(args: string[], env: Record<string, string>, input?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/** Starts `node bin/wip <args>` and leaves it running (a daemon). */
export function spawnWip(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A fresh temporary folder, and a data directory inside it initialised with `wip install`. */
export async function installedDataDir(extraEnv: Record<string, string> = {}): Promise<{ root: string; dataDir: string; env: Record<string, string> }> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-cli-'));
  const dataDir = path.join(root, 'data');
  const env = cliEnv(dataDir, extraEnv);
  const result = await runWip(['install'], env);
  if (result.code !== 0) throw new Error(`wip install failed: ${result.stderr}`);
  return { root, dataDir, env };
}
