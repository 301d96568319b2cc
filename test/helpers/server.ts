import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { createDeps, type Deps } from '../../src/deps';
import { ManualClock } from '../../src/lib/clock';
import { startServer } from '../../src/cli/serve';

export const ADMIN_PASSWORD = 'test-admin-password';

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
}

export interface TestServer {
  url: string;
  deps: Deps;
  clock: ManualClock;
  dataDir: string;
  request<T = any>(method: string, urlPath: string, options?: RequestOptions): Promise<TestResponse<T>>;
  stop(): Promise<void>;
}

/**
 * A real server on a loopback port with its own temporary data directory, built
 * through the same start-up path as `wip serve`. `env` takes WIP_* names.
 */
export async function startTestServer(options: { env?: Record<string, string>; clock?: ManualClock } = {}): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-test-'));
  const clock = options.clock ?? new ManualClock();
  const config = loadConfig({
    env: {
      WIP_ENV: 'test',
      WIP_HOST: '127.0.0.1',
      WIP_PORT: '0',
      WIP_BCRYPT_COST: '4',
      WIP_LOG_LEVEL: 'silent',
      WIP_ADMIN_PASSWORD: ADMIN_PASSWORD,
      WIP_DATA_DIR: dataDir,
      ...options.env,
    },
  });
  const running = await startServer(createDeps(config, { clock }));
  const url = running.url.replace('localhost', '127.0.0.1');
  return {
    url,
    deps: running.deps,
    clock,
    dataDir,
    request: (method, urlPath, opts = {}) => request(url, method, urlPath, opts),
    async stop() {
      await running.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function request<T = any>(baseUrl: string, method: string, urlPath: string, options: RequestOptions = {}): Promise<TestResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.raw;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  if (options.raw !== undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(baseUrl + urlPath, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}
