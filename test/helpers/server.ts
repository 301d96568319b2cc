import fs from 'node:fs';
import type http from 'node:http';
import type https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '#config';
import { createDeps } from '#composition';
import type { AppDeps as Deps } from '#workers';
import { ManualClock } from '#lib/clock';
import { startServer } from '#cli/serve';
import { withTransaction } from '#db/transaction';
import { insertInstalledLicense } from '#repos/licensing/index';
import { decodeLicenseKey } from '#licensing/key';
import { TEST_BACKEND, testPostgres } from './postgres';
import { checkExchange } from './openapi-exchange';

/**
 * The backend switch (TEST_BACKEND, test/helpers/postgres.ts): with
 * WIP_TEST_BACKEND=postgres every test server runs on a fresh database of the
 * test PostgreSQL server instead of SQLite in its data directory. A restart on
 * the same data directory gets the same database.
 */
export { TEST_BACKEND };
export const TEST_MASTER_KEY = 'test-master-key-of-at-least-32-characters';
const databaseOfDataDir = new Map<string, string>();

async function backendEnv(dataDir: string, env: Record<string, string> = {}, backend = TEST_BACKEND): Promise<Record<string, string>> {
  if (backend !== 'postgres' || env.WIP_DATABASE_URL) return {};
  let url = databaseOfDataDir.get(dataDir);
  if (!url) {
    url = await (await testPostgres()).freshDatabaseUrl();
    databaseOfDataDir.set(dataDir, url);
    // as an operator would: `wip --data-dir DIR …` commands the tests run find the same database
    const configFile = path.join(dataDir, 'config.json');
    if (!fs.existsSync(configFile))
      fs.writeFileSync(configFile, JSON.stringify({ databaseUrl: url, masterKey: TEST_MASTER_KEY }), { mode: 0o600 });
  }
  return { WIP_DATABASE_URL: url, WIP_MASTER_KEY: TEST_MASTER_KEY };
}

/**
 * The license key test servers run with unless told otherwise: signed with the
 * development key, valid to 2099, practically unlimited, so suites can create
 * as many clients and seats as they like. Pass `license: 'evaluation'` to start
 * without a key (evaluation allowance), or a key of your own.
 */
export const TEST_SUITE_LICENSE = fs
  .readFileSync(path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'test-suite.lic'), 'utf8')
  .trim();

export const ADMIN_PASSWORD = 'test-admin-password';

/** The settings every test daemon starts from: loopback, any free port, cheap bcrypt, quiet logs (WIP_TEST_LOG_LEVEL to see them). */
export function testDaemonEnv(dataDir: string): Record<string, string> {
  return {
    WIP_ENV: 'test',
    WIP_HOST: '127.0.0.1',
    WIP_PORT: '0',
    WIP_BCRYPT_COST: '4',
    WIP_LOG_LEVEL: process.env.WIP_TEST_LOG_LEVEL ?? 'silent',
    WIP_ADMIN_PASSWORD: ADMIN_PASSWORD,
    WIP_DATA_DIR: dataDir,
  };
}

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** raw request body (sent as is) */
  raw?: string;
  token?: string;
  headers?: Record<string, string>;
  /**
   * false: skip the exchange check against the served OpenAPI document. Only for a test of what the daemon
   * itself loads or does (the check reads /api/openapi.json from the same daemon, which builds the document).
   */
  checked?: boolean;
}

export interface TestServer {
  url: string;
  /** the listening socket server (its 'connection' events: when the server has accepted a connection) */
  listener: http.Server | https.Server;
  deps: Deps;
  clock: ManualClock;
  dataDir: string;
  request<T = any>(method: string, urlPath: string, options?: RequestOptions): Promise<TestResponse<T>>;
  /** stops the daemon; `keepData` leaves the data directory for a next server (a restart) */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

/**
 * A real server on a loopback port with its own temporary data directory, built
 * through the same start-up path as `wip serve`. `env` takes WIP_* names.
 */
export async function startTestServer(
  options: {
    env?: Record<string, string>;
    clock?: ManualClock;
    license?: 'evaluation' | string;
    /** start on the data directory of a stopped server (`stop({ keepData: true })`): a restart */
    dataDir?: string;
    /** this backend whatever WIP_TEST_BACKEND says */
    backend?: 'sqlite' | 'postgres';
  } = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'wip-test-'));
  const clock = options.clock ?? new ManualClock();
  const config = loadConfig({
    env: {
      ...testDaemonEnv(dataDir),
      ...(await backendEnv(dataDir, options.env, options.backend)),
      ...options.env,
    },
  });
  const running = await startServer(createDeps(config, { clock }));
  // The exchange check (openapi-exchange.ts) compiles an operation's validators on its first answer, pausing this
  // process (server and client alike) for a moment on a busy machine; a 5 s keep-alive could then end a pooled
  // socket just as the next request is written on it (ECONNRESET). Idle sockets still close on stop.
  running.server.keepAliveTimeout = 60_000;
  const license = options.license ?? TEST_SUITE_LICENSE;
  if (license !== 'evaluation' && !options.dataDir) await preinstallLicense(running.deps, license);
  const url = running.url.replace('localhost', '127.0.0.1');
  return {
    url,
    listener: running.server,
    deps: running.deps,
    clock,
    dataDir,
    request: (method, urlPath, opts = {}) => request(url, method, urlPath, opts),
    async stop(stopOptions = {}) {
      await running.stop();
      if (!stopOptions.keepData) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function request<T = any>(
  baseUrl: string,
  method: string,
  urlPath: string,
  options: RequestOptions = {},
): Promise<TestResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.raw;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  if (options.raw !== undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(baseUrl + urlPath, { method, headers, body, redirect: 'manual' }).catch(
    (error: Error & { cause?: Error }) => {
      throw new Error(`${method} ${urlPath}: ${error.message} (${error.cause?.message ?? 'no cause'})`, { cause: error });
    },
  );
  // an event stream never ends by itself: answer its status and headers, and hang up
  let answer: TestResponse<T>;
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    await response.body?.cancel();
    answer = { status: response.status, headers: response.headers, body: undefined as T, text: '' };
  } else {
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    answer = { status: response.status, headers: response.headers, body: parsed as T, text };
  }
  // the exchange against the served OpenAPI document: a contradiction fails the test that made it
  if (options.checked !== false)
    await checkExchange(baseUrl, { method, url: new URL(baseUrl + urlPath), requestHeaders: headers, requestBody: body, response: answer });
  return answer;
}

/** Installs a key as setup (no HTTP round trip, no event-log entry). */
async function preinstallLicense(deps: Deps, key: string): Promise<void> {
  const { payload } = decodeLicenseKey(key);
  await withTransaction(deps.db, (trx) =>
    insertInstalledLicense(trx, {
      license_key: key,
      kid: payload.kid,
      license_id: payload.licenseId,
      licensee: payload.licensee.name,
      expires_at: payload.expiresAt,
      installed_at: new Date().toISOString(),
      installed_by: 'test-setup',
    }),
  );
}

/**
 * 503 INTEGRATION_NOT_CONFIGURED describes the server's configuration (no upstream
 * set for an integration), not the input: the sweeps over every route accept it.
 */
export function unconfiguredIntegration(status: number, body: any): boolean {
  return status === 503 && body?.error?.code === 'INTEGRATION_NOT_CONFIGURED';
}
