import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli, type CliResult } from './cli';
import { ADMIN_PASSWORD } from './server';

/** The repository root (tests run from dist/test/...). */
export const ROOT = path.resolve(__dirname, '..', '..', '..');

/** The environment a CLI test runs `wip` with: fast bcrypt, quiet logs, its own data dir, no WIP_* from outside. */
export function cliEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('WIP_') && value !== undefined) env[key] = value;
  return {
    ...env,
    WIP_DATA_DIR: dataDir,
    WIP_BCRYPT_COST: '4',
    WIP_LOG_LEVEL: 'warn',
    WIP_ADMIN_PASSWORD: ADMIN_PASSWORD,
    WIP_ENV: 'test',
    ...extra,
  };
}

/** `runCli` with exactly the environment given (see cliEnv). */
export function runWip(args: string[], env: Record<string, string>): Promise<CliResult> {
  return runCli(args, { env });
}

/** A fresh temporary folder, and a data directory inside it initialised with `wip install`. */
export async function installedDataDir(
  extraEnv: Record<string, string> = {},
): Promise<{ root: string; dataDir: string; env: Record<string, string> }> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-cli-'));
  const dataDir = path.join(root, 'data');
  const env = cliEnv(dataDir, extraEnv);
  const result = await runWip(['install'], env);
  if (result.code !== 0) throw new Error(`wip install failed: ${result.stderr}`);
  return { root, dataDir, env };
}
