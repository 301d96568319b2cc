import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { z } from 'zod';
import defaults from '../config/default.json';
import { parseDuration } from '#lib/duration';
import { parseCidr } from '#lib/network-policy';

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
/**
 * Exact browser origins, comma-separated (or a JSON array in the config file),
 * normalised as a browser sends them in `Origin` (lower-case host, no default
 * port). `*` is refused: credentialed CORS (the session cookie) cannot use a
 * wildcard, and echoing any origin would hand every site on the web the API.
 */
const originList = z.union([z.string(), z.array(z.string())]).transform((value, ctx) => {
  const items = (Array.isArray(value) ? value : value.split(',')).map((item) => item.trim()).filter(Boolean);
  return items.map((item) => {
    if (item.includes('*')) {
      ctx.addIssue({
        code: 'custom',
        message: `"${item}" is not allowed: the API answers with credentials (cookies), which browsers never allow for a wildcard origin; list each web app origin exactly, e.g. https://app.example.com`,
      });
      return item;
    }
    const origin = exactOrigin(item);
    if (!origin)
      ctx.addIssue({
        code: 'custom',
        message: `"${item}" is not an origin: use scheme://host[:port] without a path, e.g. https://app.example.com`,
      });
    return origin ?? item;
  });
});

function exactOrigin(text: string): string | undefined {
  try {
    const url = new URL(text);
    const bare =
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      !url.username &&
      !url.password &&
      url.pathname === '/' &&
      !url.search &&
      !url.hash;
    return bare ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Route groups that may get per-principal budgets of their own (see http/middleware/rate-limit.ts). */
export const RATE_LIMIT_GROUPS = ['graphql', 'admin', 'client', 'ops'] as const;
export type RateLimitGroup = (typeof RATE_LIMIT_GROUPS)[number];

/** `graphql=3000,admin=600` (or a JSON object in the config file): requests per window, per principal, per group. */
const rateLimitGroups = z.union([z.string(), z.record(z.string(), z.union([z.number(), z.string()]))]).transform((value, ctx) => {
  const entries =
    typeof value === 'string'
      ? value
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean)
          .map((item) => item.split('=').map((part) => part.trim()))
      : Object.entries(value).map(([group, max]) => [group, String(max)]);
  const groups: Partial<Record<RateLimitGroup, number>> = {};
  for (const [group, max] of entries) {
    const n = Number(max);
    if (!RATE_LIMIT_GROUPS.includes(group as RateLimitGroup) || !Number.isInteger(n) || n < 1) {
      ctx.addIssue({
        code: 'custom',
        message: `"${group}=${max}": use group=max with a group of ${RATE_LIMIT_GROUPS.join(', ')} and a whole number ≥ 1`,
      });
      continue;
    }
    groups[group as RateLimitGroup] = n;
  }
  return groups;
});
/** Comma-separated durations (or a JSON array): the delays between webhook attempts. */
const durationList = z.union([z.string(), z.array(z.union([z.string(), z.number()]))]).transform((value, ctx) => {
  const items = (Array.isArray(value) ? value : value.split(','))
    .map((item) => (typeof item === 'string' ? item.trim() : item))
    .filter((item) => item !== '');
  try {
    return items.map((item) => parseDuration(item));
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});
/** Comma-separated CIDRs (or a JSON array). */
const cidrList = z.union([z.string(), z.array(z.string())]).transform((value, ctx) => {
  const items = (Array.isArray(value) ? value : value.split(',')).map((item) => item.trim()).filter(Boolean);
  for (const item of items) {
    if (!parseCidr(item))
      ctx.addIssue({ code: 'custom', message: `"${item}" is not a network: use CIDR notation such as 10.0.0.0/8 or fd00::/8` });
  }
  return items;
});

/** An http(s) URL, or '' for "not configured". */
const optionalHttpUrl = z.union([z.literal(''), z.url({ protocol: /^https?$/ })]);
/** Comma-separated names (or a JSON array). */
const nameList = z.union([z.string(), z.array(z.string())]).transform((value, ctx) => {
  const items = (Array.isArray(value) ? value : value.split(',')).map((item) => item.trim()).filter(Boolean);
  for (const item of items)
    if (!/^[A-Za-z0-9_.[\]-]{1,64}$/.test(item)) ctx.addIssue({ code: 'custom', message: `"${item}" is not a parameter name` });
  return items;
});
/** Comma-separated path prefixes (or a JSON array), each starting with "/" and made of plain path characters. */
const pathPrefixList = z.union([z.string(), z.array(z.string())]).transform((value, ctx) => {
  const items = (Array.isArray(value) ? value : value.split(',')).map((item) => item.trim()).filter(Boolean);
  for (const item of items)
    if (!/^\/[A-Za-z0-9_\-/.]*$/.test(item) || item.includes('..'))
      ctx.addIssue({ code: 'custom', message: `"${item}" is not a path prefix such as /geocode/` });
  return items;
});
/** `TYPE=Template name,…` (or a JSON object in the config file): work-order type → template name. */
const templateMap = z.union([z.string(), z.record(z.string(), z.string())]).transform((value, ctx) => {
  const entries =
    typeof value === 'string'
      ? value
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean)
          .map((item) => [item.slice(0, item.indexOf('=')).trim(), item.slice(item.indexOf('=') + 1).trim()] as const)
      : Object.entries(value);
  const map: Record<string, string> = {};
  for (const [type, name] of entries) {
    if (!type || !name) {
      ctx.addIssue({ code: 'custom', message: `"${type}=${name}": use TYPE=Template name` });
      continue;
    }
    map[type] = name;
  }
  return map;
});

const ConfigSchema = z
  .object({
    env: z.enum(['production', 'development', 'test']),
    dataDir: z.string().min(1),
    host: z.string().min(1),
    port: integer.min(0).max(65535),
    publicUrl: z.string(),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    /** auto: readable lines when stdout is a terminal, JSON otherwise; json; pretty */
    logFormat: z.enum(['auto', 'json', 'pretty']),
    /** share of successful, fast requests that leave a request log line (1 = all, 0.1 = one in ten); errors and slow requests always do */
    requestLogSample: z.coerce.number().min(0).max(1),
    /** a request taking at least this long is always logged, whatever requestLogSample says */
    requestLogSlow: duration,
    accessTokenTtl: duration,
    refreshTokenTtl: duration,
    sessionIdleTtl: duration,
    bcryptCost: integer.min(4).max(15),
    bodyLimit: z.string().regex(/^\d+(kb|mb)?$/i, 'use a size such as 1mb or 512kb'),
    /** largest multipart upload (all its files together), enforced while streaming */
    maxUpload: z.string().regex(/^\d+(kb|mb|gb)?$/i, 'use a size such as 512mb or 2gb'),
    trustProxy: bool,
    /**
     * with trustProxy, how many reverse proxies append to X-Forwarded-For: the
     * client is that many entries from the right. Entries further left are
     * whatever the client sent, and would let it pick its own address.
     */
    proxyHops: integer.min(1).max(10),
    /** web apps on other origins allowed to call the API from a browser (CORS, and the cross-site check) */
    corsOrigins: originList,
    rateLimitWindow: duration,
    /** per authenticated principal (user, system admin) and window, for route groups without their own budget */
    rateLimitMax: integer.min(1),
    /** per client IP and window, for requests without (valid) credentials */
    rateLimitAnonymousMax: integer.min(1),
    rateLimitGroups,
    signInRateLimitMax: integer.min(1),
    /** createSchedule/updateSchedule per user and rateLimitWindow (each walks its rule) */
    scheduleRuleRateLimitMax: integer.min(1),
    /** GraphQL queries executing at once per process (more wait their turn, first come first served) */
    graphqlConcurrency: integer.min(1).max(64),
    /** GraphQL queries allowed to wait for their turn; past it 503 SERVICE_UNAVAILABLE with Retry-After */
    graphqlQueueMax: integer.min(1).max(100_000),
    /** longest one image check (upload) or re-encode (PDF) may run; past it the upload is refused 422, the PDF prints a placeholder */
    imageJobTimeout: duration,
    /** images that may wait for the image worker; past it uploads get 503 SERVICE_UNAVAILABLE with Retry-After */
    imageQueueMax: integer.min(0).max(1000),
    adminPassword: z.string().min(8).optional(),
    /** how long rows of the `logs` table are kept; pruned on start and daily */
    logRetention: duration,
    /** `off` or `daily`: the daemon writes a backup into backupDir once a day */
    backupSchedule: z.enum(['off', 'daily']),
    /** how many scheduled backups are kept (older ones are deleted) */
    backupRetention: integer.min(1).max(3650),
    /** where scheduled and pre-upgrade backups go; default <data-dir>/backups */
    backupDir: z.string(),
    // mail: without smtpUrl every message is kept in <data-dir>/outbox/ as .eml
    smtpUrl: z.string(),
    mailFrom: z.string().min(3),
    mailPollInterval: duration,
    mailMaxAttempts: integer.min(1),
    /** how long mail and push rows are kept once sent, stored or failed for good (pending ones always stay); pruned on start and daily */
    outboxRetention: duration,
    /** how long a node owns a delivery it claimed (mail, push, webhooks): a node that dies mid-send leaves it to another after this */
    outboxLease: duration,
    // web push: the VAPID contact (https: or mailto: URL; empty: publicUrl when https, else mailto: mailFrom's address)
    pushSubject: z.union([z.literal(''), z.string().regex(/^(https:\/\/|mailto:)\S+$/, 'use an https: or mailto: URL')]),
    pushPollInterval: duration,
    pushMaxAttempts: integer.min(1),
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
    /** bearer token Prometheus presents to GET /metrics; unset: loopback callers only */
    metricsToken: z.string().min(16, 'use at least 16 characters').optional(),
    /** PEM certificate (chain) and key files: serve HTTPS */
    tlsCert: z.string().min(1).optional(),
    tlsKey: z.string().min(1).optional(),
    /** serve HTTPS with a certificate from a CA generated and kept in <data-dir>/tls */
    tlsSelfSigned: bool,
    /** comma-separated host names and IPs for the self-signed certificate; empty: this host's name, localhost, 127.0.0.1, ::1 */
    tlsHosts: z.string(),
    /** with TLS: also listen on this plain-HTTP port and redirect to HTTPS; 0 = off */
    httpRedirectPort: integer.min(0).max(65535),
    /** oldest TLS version accepted; TLS 1.0/1.1 are never offered */
    tlsMinVersion: z.enum(['TLSv1.2', 'TLSv1.3']),
    /**
     * OpenSSL cipher list (TLS 1.3 suites, TLS_…, in the same list). The default
     * is Mozilla's "intermediate" profile without DHE: forward-secret ECDHE with
     * AEAD only, so no static-RSA key exchange and no CBC.
     */
    tlsCiphers: z.string().min(1),
    /** a template ZIP import may expand to at most this much (counted while inflating) */
    importMaxUnzipped: z.string().regex(/^\d+(kb|mb|gb)?$/i, 'use a size such as 512mb or 2gb'),
    /** http(s) URL of the update manifest GET /api/client/check-updates compares with; empty: only <data-dir>/updates/manifest.json */
    updateUrl: z.union([z.literal(''), z.url({ protocol: /^https?$/ })]),
    // events and webhooks
    /** delays between webhook attempts after the first; after the last one a delivery has failed */
    webhookRetrySchedule: durationList,
    /** networks webhooks may reach besides public addresses (see src/lib/network-policy.ts) */
    webhookAllowedNetworks: cidrList,
    /** networks identity providers (OIDC discovery, keys, token endpoint; the directory's graph API) may be reached on besides public addresses */
    ssoAllowedNetworks: cidrList,
    /** how often the daemon looks for due webhook deliveries */
    webhookPollInterval: duration,
    /** how far ahead occurrences of schedules become jobs (docs/recurring-and-follow-up-jobs.md) */
    scheduleHorizon: duration,
    /** how often the daemon looks for occurrences of schedules to create */
    schedulePollInterval: duration,
    /** jobs one schedule makes in one round of the worker; the rest follow in the next rounds */
    scheduleMaxJobsPerRound: integer.min(1).max(100_000),
    /** jobs all the schedules of one client make in one round; the rest follow in the next rounds */
    scheduleMaxJobsPerClientRound: integer.min(1).max(100_000),
    /** jobs one schedule makes for the occurrences of any 24 hours; past it an occurrence is skipped (DAILY_LIMIT) */
    scheduleMaxJobsPerDay: integer.min(1).max(100_000),
    /** how long events are kept: the Last-Event-ID replay window of the live stream and the delivery log */
    eventRetention: duration,
    /** comment line sent on idle live streams */
    eventStreamHeartbeat: duration,
    eventStreamMaxPerUser: integer.min(1).max(100),
    // integrations: each is off (503 INTEGRATION_NOT_CONFIGURED) until its URL is set
    /** how long any integration upstream may take to answer (connect to last byte) */
    integrationTimeout: duration,
    /** customer portal: GET /api/client/customer-portal signs a short-lived link to this URL with customerPortalSecret */
    customerPortalUrl: optionalHttpUrl,
    customerPortalSecret: z.string().min(32, 'use at least 32 characters').optional(),
    /** code-hosting tracker (GitHub/Gitea issues API): base API URL, owner/repository, token */
    bugTrackerUrl: optionalHttpUrl,
    bugTrackerRepository: z.union([z.literal(''), z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'use owner/repository')]),
    bugTrackerToken: z.string().min(1).optional(),
    /** maps upstream (geocoding, tiles): its base URL, the path prefixes and query parameters apps may use, the API key */
    mapsUrl: optionalHttpUrl,
    mapsAllowedPaths: pathPrefixList,
    mapsAllowedParams: nameList,
    mapsApiKey: z.string().min(1).optional(),
    /** the query parameter the maps API key travels in */
    mapsApiKeyParam: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/),
    /** largest maps answer passed through */
    mapsMaxResponse: z.string().regex(/^\d+(kb|mb)?$/i, 'use a size such as 5mb or 512kb'),
    /**
     * the plant's RFC 3161 time-stamping authority: with a URL, record
     * bundles and audit checkpoints carry its timestamp token; '' for none
     */
    timestampAuthorityUrl: optionalHttpUrl,
    /** enterprise software (ERP): base URL of its work-order API, bearer token, work-order type → template name */
    erpUrl: optionalHttpUrl,
    erpToken: z.string().min(1).optional(),
    erpTemplateMap: templateMap,
    /** shared secret of the container platform's notifications (HMAC-SHA256 of the raw body) */
    containerNotificationSecret: z.string().min(32, 'use at least 32 characters').optional(),
    // scale-out: without databaseUrl, embedded SQLite in <data-dir>/wip.db exactly as a single node always ran
    /** postgres://user:pass@host:port/db?sslmode=...: several nodes share one PostgreSQL (14 or newer) */
    databaseUrl: z
      .string()
      .regex(/^postgres(ql)?:\/\/\S+$/, 'use postgres://user:password@host:port/database')
      .optional(),
    /** connections each node keeps to PostgreSQL */
    databasePoolSize: integer.min(1).max(500),
    /** PostgreSQL mode: the key the secrets shared by all nodes are encrypted with in the database */
    masterKey: z.string().min(32, 'use at least 32 characters').optional(),
    /** `local` (<data-dir>/files, which may be a shared mount) or `s3://bucket/prefix` (an S3-compatible object store) */
    fileStore: z.union([
      z.literal('local'),
      z.string().regex(/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/\S*)?$/, 'use local or s3://bucket/prefix'),
    ]),
    /** the object store's URL (MinIO, Ceph…); empty: AWS S3 of fileStoreRegion */
    fileStoreEndpoint: z.union([z.literal(''), z.url({ protocol: /^https?$/ })]),
    fileStoreRegion: z.string().min(1),
    /** bucket in the path (MinIO and most S3-compatible stores) instead of the host name */
    fileStorePathStyle: bool,
    fileStoreAccessKeyId: z.string().optional(),
    fileStoreSecretAccessKey: z.string().optional(),
    /** multipart upload part size in bytes (S3's minimum is 5 MiB) */
    fileStorePartSize: integer.min(5 * 1024 * 1024),
    /** PostgreSQL backups: the folder of pg_dump/pg_restore; empty: PATH, then /usr/lib/postgresql/<version>/bin and /usr/pgsql-<version>/bin */
    pgToolsDir: z.string(),
  })
  .superRefine((config, ctx) => {
    if (config.databaseUrl !== undefined && config.masterKey === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['masterKey'],
        message:
          'required with databaseUrl: set WIP_MASTER_KEY (or WIP_MASTER_KEY_FILE) to the same string of at least 32 characters on every node; it encrypts the secrets the nodes share in the database',
      });
    }
    if ((config.tlsCert === undefined) !== (config.tlsKey === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['tlsCert'], message: 'tlsCert and tlsKey go together' });
    }
    if (config.tlsCert !== undefined && config.tlsSelfSigned) {
      ctx.addIssue({ code: 'custom', path: ['tlsSelfSigned'], message: 'use either tlsCert/tlsKey or tlsSelfSigned' });
    }
    // OpenSSL is the judge of a cipher list: refuse one it rejects now, not at the first handshake
    try {
      tls.createSecureContext({ ciphers: config.tlsCiphers, minVersion: config.tlsMinVersion });
    } catch (error) {
      ctx.addIssue({ code: 'custom', path: ['tlsCiphers'], message: `not usable by OpenSSL: ${(error as Error).message}` });
    }
  });

/** A configuration value (file, env or flag) that is not acceptable: a usage error (`wip` exits 2). */
export class ConfigError extends Error {}

export type Config = z.infer<typeof ConfigSchema>;
export type ConfigInput = Partial<Record<keyof z.input<typeof ConfigSchema>, unknown>>;

export const CONFIG_KEYS = Object.keys(ConfigSchema.shape) as (keyof Config)[];

/** Keys that hold secrets: never printed, never in a support bundle; set them in a file with WIP_<KEY>_FILE. */
export const SECRET_CONFIG_KEYS: readonly (keyof Config)[] = [
  'adminPassword',
  'metricsToken',
  'customerPortalSecret',
  'bugTrackerToken',
  'mapsApiKey',
  'erpToken',
  'containerNotificationSecret',
  'databaseUrl',
  'masterKey',
  'fileStoreSecretAccessKey',
];

/** What `wip install` writes to a new <data-dir>/config.json: the keys an operator usually edits. */
export const OPERATOR_CONFIG_KEYS: readonly (keyof Config)[] = [
  'host',
  'port',
  'publicUrl',
  'logLevel',
  'logFormat',
  'trustProxy',
  'proxyHops',
  'corsOrigins',
  'tlsSelfSigned',
  'tlsHosts',
  'httpRedirectPort',
  'accessTokenTtl',
  'refreshTokenTtl',
  'sessionIdleTtl',
  'bodyLimit',
  'maxUpload',
  'rateLimitWindow',
  'rateLimitMax',
  'rateLimitAnonymousMax',
  'rateLimitGroups',
  'signInRateLimitMax',
];

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

/** @throws ConfigError with every invalid key listed, so `wip` can print one clear line; Error for an unreadable file. */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const merged = mergeConfigInput(options);
  // jitless: zod would first generate and compile a parser specialised to this ~80-key object (several ms of
  // every start and CLI command) for the one parse a process makes
  const parsed = ConfigSchema.safeParse(merged, { jitless: true });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  return parsed.data;
}

/** The raw (unparsed) values of every layer merged, as an operator would write them (durations stay "24h"). */
function mergeConfigInput(options: LoadConfigOptions): ConfigInput & { dataDir: string } {
  const env = options.env ?? process.env;
  const fromEnv: ConfigInput = {};
  for (const key of CONFIG_KEYS) {
    const name = envName(key);
    const value = env[name];
    const file = env[`${name}_FILE`];
    if (value !== undefined && value !== '' && file)
      throw new ConfigError(`invalid configuration: set either ${name} or ${name}_FILE, not both`);
    if (value !== undefined && value !== '') fromEnv[key] = value;
    else if (file) fromEnv[key] = readValueFile(name, file);
  }
  const flags = stripUndefined(options.flags ?? {});
  const dataDir = path.resolve(String(flags.dataDir ?? fromEnv.dataDir ?? './data'));
  const fileName = options.configFile ?? configFilePath(dataDir);
  const fromFile = readConfigFile(fileName, options.configFile !== undefined);
  return { ...defaults, ...fromFile, ...fromEnv, ...flags, dataDir };
}

export function configFilePath(dataDir: string): string {
  return path.join(dataDir, 'config.json');
}

/**
 * Writes <data-dir>/config.json for `wip install` when there is none: the keys
 * an operator usually edits, with their current values (defaults, or what env
 * and flags said at install time). Never overwrites an existing file, never
 * writes a secret. Returns whether it wrote.
 */
export function writeConfigFileIfMissing(options: LoadConfigOptions = {}): { file: string; written: boolean } {
  const merged = mergeConfigInput(options);
  const file = configFilePath(merged.dataDir);
  const values = Object.fromEntries(OPERATOR_CONFIG_KEYS.filter((key) => merged[key] !== undefined).map((key) => [key, merged[key]]));
  fs.mkdirSync(merged.dataDir, { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(file, JSON.stringify(values, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { file, written: false };
    throw error;
  }
  return { file, written: true };
}

/** WIP_<KEY>_FILE (Docker/systemd credentials style): the file's content, without the final newline. */
function readValueFile(name: string, file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    throw new Error(
      `invalid configuration: cannot read ${name}_FILE ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      { cause: error },
    );
  }
}

function readConfigFile(fileName: string, required: boolean): ConfigInput {
  let text: string;
  try {
    text = fs.readFileSync(fileName, 'utf8');
  } catch (error) {
    if (!required && (error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`cannot read config file ${fileName}: ${(error as Error).message}`, { cause: error });
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('not a JSON object');
    return value;
  } catch (error) {
    throw new ConfigError(`config file ${fileName} is not valid JSON: ${(error as Error).message}`);
  }
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** Body size limit in bytes. */
export function bodyLimitBytes(config: Config): number {
  return sizeInBytes(config.bodyLimit);
}

/** Upload size limit (WIP_MAX_UPLOAD) in bytes. */
export function maxUploadBytes(config: Config): number {
  return sizeInBytes(config.maxUpload);
}

/** "512kb", "1mb", "2gb" or a plain byte count (sizes already validated by the schema). */
function sizeInBytes(text: string): number {
  const match = /^(\d+)(kb|mb|gb)?$/i.exec(text)!;
  const factor = { kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(match[2] ?? '').toLowerCase() as 'kb' | 'mb' | 'gb'] ?? 1;
  return Number(match[1]) * factor;
}

/** Largest maps answer passed through (WIP_MAPS_MAX_RESPONSE), in bytes. */
export function mapsMaxResponseBytes(config: Config): number {
  return sizeInBytes(config.mapsMaxResponse);
}

/** How far a template ZIP import may expand (WIP_IMPORT_MAX_UNZIPPED), in bytes. */
export function importMaxUnzippedBytes(config: Config): number {
  const match = /^(\d+)(kb|mb|gb)?$/i.exec(config.importMaxUnzipped)!;
  const factor = { kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(match[2] ?? '').toLowerCase() as 'kb' | 'mb' | 'gb'] ?? 1;
  return Number(match[1]) * factor;
}
