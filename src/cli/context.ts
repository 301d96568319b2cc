import type { Command } from 'commander';
import { loadConfig, type Config, type ConfigInput } from '#config';
import { closeDeps, createDeps } from '#composition';
import { loadSharedSecrets } from '#ops/bootstrap';
import type { AppDeps } from '#workers';
import { migrationStatus } from '#db/migrator';
import { createLogger } from '#logger';

/** Raised for a failure the user can act on: printed as one line, exit 1. */
export class CliError extends Error {}

/** A flag or argument with an unacceptable value: printed as one line, exit 2 (like commander's own usage errors). */
export class UsageError extends CliError {}

export interface GlobalOptions {
  dataDir?: string;
  config?: string;
  json?: boolean;
}

export function globalOptions(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

export function configFrom(command: Command, flags: ConfigInput = {}): Config {
  const opts = globalOptions(command);
  return loadConfig({ flags: { ...flags, dataDir: opts.dataDir }, configFile: opts.config });
}

/**
 * Builds Deps for a one-shot command (stderr logging, so stdout stays clean for
 * --json), runs it, and always closes the database.
 */
export async function withDeps<T>(
  command: Command,
  work: (deps: AppDeps) => Promise<T>,
  options: { requireMigrated?: boolean } = {},
): Promise<T> {
  const config = configFrom(command);
  const deps = createDeps(config, { logger: createLogger({ logLevel: 'warn' }, process.stderr) });
  try {
    if (options.requireMigrated !== false) {
      const pending = (await migrationStatus(deps.db)).filter((m) => !m.applied);
      if (pending.length > 0)
        throw new CliError(`the data directory ${config.dataDir} is not initialised or not migrated; run "wip install" or "wip migrate"`);
      await loadSharedSecrets(deps);
    }
    return await work(deps);
  } finally {
    await closeDeps(deps);
  }
}

/** Prints human text, or the exact JSON value with --json. */
export function output(command: Command, human: string, json: unknown): void {
  if (globalOptions(command).json) process.stdout.write(JSON.stringify(json, null, 2) + '\n');
  else process.stdout.write(human + '\n');
}

/** Reads a password given with --password or, safer (not in shell history or ps), with --password-stdin. */
export async function readPassword(opts: { password?: string; passwordStdin?: boolean }): Promise<string> {
  if (opts.password !== undefined && opts.passwordStdin) throw new CliError('use either --password or --password-stdin, not both');
  if (opts.password !== undefined) return opts.password;
  if (!opts.passwordStdin) throw new CliError('a password is required: --password-stdin or --password P');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (!password) throw new CliError('no password on standard input');
  return password;
}
