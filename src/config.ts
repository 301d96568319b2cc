import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import defaults from '../config/default.json';
import { parseDuration } from './lib/duration';

/**
 * Configuration, merged in this order (later wins):
 * config/default.json < config file (<data-dir>/config.json or --config) < WIP_* env < CLI flags.
 * Every key has a WIP_<SCREAMING_SNAKE> env name (port → WIP_PORT, accessTokenTtl → WIP_ACCESS_TOKEN_TTL).
 */
const duration = z.union([z.string(), z.number()]).transform((value, ctx) => {
  try {
    return parseDuration(value);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});
const integer = z.coerce.number().int();
const bool = z.union([z.boolean(), z.enum(['true', 'false', '1', '0'])]).transform((v) => v === true || v === 'true' || v === '1');

const ConfigSchema = z.object({
  env: z.enum(['production', 'development', 'test']),
  dataDir: z.string().min(1),
  host: z.string().min(1),
  port: integer.min(0).max(65535),
  publicUrl: z.string(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
  accessTokenTtl: duration,
  refreshTokenTtl: duration,
  sessionIdleTtl: duration,
  bcryptCost: integer.min(4).max(15),
  bodyLimit: z.string().regex(/^\d+(kb|mb)?$/i, 'use a size such as 1mb or 512kb'),
  trustProxy: bool,
  rateLimitWindow: duration,
  rateLimitMax: integer.min(1),
  signInRateLimitMax: integer.min(1),
  adminPassword: z.string().min(8).optional(),
  // mail (issue 3): without smtpUrl every message is kept in <data-dir>/outbox/ as .eml
  smtpUrl: z.string(),
  mailFrom: z.string().min(3),
  mailPollInterval: duration,
  mailMaxAttempts: integer.min(1),
  inviteTokenTtl: duration,
  resetTokenTtl: duration,
  // brute force: failures per account (email) and per IP in a sliding window
  lockoutMaxFailures: integer.min(1),
  lockoutIpMaxFailures: integer.min(1),
  lockoutWindow: duration,
  lockoutDuration: duration,
  // self-service create-account: off by default on an appliance
  selfServiceAccounts: bool,
  selfServiceSeats: integer.min(1),
  /** after a license key expires: full service with a warning for this long, then read-only */
  licenseGracePeriod: duration,
  /** how far the clock may go back (below the newest time seen) before it counts as a rollback */
  licenseClockTolerance: duration,
  /** refuse client routes until the current MSA (per client) and EULA (per user) are accepted */
  agreementGate: bool,
});

export type Config = z.infer<typeof ConfigSchema>;
export type ConfigInput = Partial<Record<keyof z.input<typeof ConfigSchema>, unknown>>;

export const CONFIG_KEYS = Object.keys(ConfigSchema.shape) as (keyof Config)[];

/** `accessTokenTtl` → `WIP_ACCESS_TOKEN_TTL`. */
export function envName(key: string): string {
  return 'WIP_' + key.replace(/([A-Z])/g, '_$1').toUpperCase();
}

export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv;
  /** CLI flags, already named like config keys. */
  flags?: ConfigInput;
  /** Explicit config file (--config); otherwise <data-dir>/config.json when it exists. */
  configFile?: string;
}

/** @throws Error with every invalid key listed, so `wip` can print one clear line. */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const fromEnv: ConfigInput = {};
  for (const key of CONFIG_KEYS) {
    const value = env[envName(key)];
    if (value !== undefined && value !== '') fromEnv[key] = value;
  }
  const flags = stripUndefined(options.flags ?? {});
  const dataDir = path.resolve(String(flags.dataDir ?? fromEnv.dataDir ?? './data'));
  const fileName = options.configFile ?? path.join(dataDir, 'config.json');
  const fromFile = readConfigFile(fileName, options.configFile !== undefined);

  const merged = { ...defaults, ...fromFile, ...fromEnv, ...flags, dataDir };
  const parsed = ConfigSchema.safeParse(merged);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`invalid configuration: ${problems.join('; ')}`);
  }
  return parsed.data;
}

function readConfigFile(fileName: string, required: boolean): ConfigInput {
  let text: string;
  try {
    text = fs.readFileSync(fileName, 'utf8');
  } catch (error) {
    if (!required && (error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`cannot read config file ${fileName}: ${(error as Error).message}`);
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('not a JSON object');
    return value as ConfigInput;
  } catch (error) {
    throw new Error(`config file ${fileName} is not valid JSON: ${(error as Error).message}`);
  }
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** Body size limit in bytes. */
export function bodyLimitBytes(config: Config): number {
  const match = /^(\d+)(kb|mb)?$/i.exec(config.bodyLimit)!;
  const factor = { kb: 1024, mb: 1024 * 1024 }[(match[2] ?? '').toLowerCase() as 'kb' | 'mb'] ?? 1;
  return Number(match[1]) * factor;
}
