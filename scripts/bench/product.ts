import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeCursor } from '#db/pagination';
import { cpuSeconds, json, load, mainThreadCpuSeconds, median, recordLoad, root, startWip, stopProcess, type LoadFigures } from './harness';
import { OPERATORS, SEED_PASSWORD, seededDataDir, SEED_DIR, type SeedInfo } from './seed';

const CONNECTIONS = 32;

/** A daemon on the seeded data directory and client 1's owner signed in. */
async function seededDaemon() {
  const seed = await seededDataDir();
  const wip = await startWip(SEED_DIR, { WIP_SIGN_IN_RATE_LIMIT_MAX: '100000000' });
  const owner = await json(`${wip.url}/api/client/auth/sign-in`, 'POST', { email: seed.clients[0].ownerEmail, password: SEED_PASSWORD });
  return { seed, wip, auth: { authorization: `Bearer ${owner.token}` } };
}

function withDaemon(run: (d: Awaited<ReturnType<typeof seededDaemon>>) => Promise<Record<string, unknown>>) {
  return async () => {
    const daemon = await seededDaemon();
    try {
      return await run(daemon);
    } finally {
      await stopProcess(daemon.wip.child);
    }
  };
}

/**
 * The warm-up before a fresh daemon's first recorded load, not recorded: a daemon's first seconds under load cost
 * 1.5–4× its steady CPU a request while V8 optimizes the request path (scripts/bench/HISTORY.md, wave 10), and
 * these scenarios measure a running server; the executable's start is the `binary` scenario's. A further load on
 * the same daemon (another depth of the user list) warms SQLite's page cache for 1 s.
 */
const FIRST_WARM_UP_SECONDS = 5;

const seedFigures = (seed: SeedInfo) => ({
  users: seed.users,
  templates: seed.templates,
  jobs: seed.jobs,
  stepValues: seed.stepValues,
  seedSeconds: seed.seconds,
});

/** The user list of client 1 (90,000 users) from cursors at the start, the middle and the end: p99 < 20 ms at any depth. */
export const usersScenario = withDaemon(async ({ seed, wip, auth }) => {
  const { first, last } = seed.userIds;
  const depths: Record<string, unknown> = {};
  for (const depth of [0, 0.5, 0.999]) {
    const cursor = depth === 0 ? '' : `&cursor=${encodeCursor(Math.floor(first + depth * (last - first)))}`;
    const url = `${wip.url}/api/admin/user?limit=50${cursor}`;
    const page = (await (await fetch(url, { headers: auth })).json()) as { data: { items: unknown[] } };
    if (page.data.items.length === 0) throw new Error(`empty page at depth ${depth}`);
    await load({ url, connections: CONNECTIONS, headers: auth, duration: depth === 0 ? FIRST_WARM_UP_SECONDS : 1 });
    const figures = await load({ url, connections: CONNECTIONS, headers: auth }, wip.child);
    console.log(
      `users at depth ${depth}: ${figures.reqPerSec} req/s, ${figures.serverCpuUsPerRequest ?? '?'} µs server CPU a page, p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms (target p99 < 20 ms)`,
    );
    depths[String(depth)] = figures;
  }
  return { seed: seedFigures(seed), userListDeepCursor: { connections: CONNECTIONS, pageSize: 50, byDepth: depths, p99TargetMs: 20 } };
});

const JOBS_QUERY = `{ jobs(first: 50) { edges { node { id title state template { id title } version { id number state } assignees { id email firstName lastName } } } } }`;

/** GraphQL: 50 jobs with their template, version and assignees: p99 < 50 ms. */
export const graphqlScenario = withDaemon(async ({ wip, auth }) => {
  const body = JSON.stringify({ query: JOBS_QUERY });
  const check = (await (
    await fetch(`${wip.url}/api/client/graphql`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body })
  ).json()) as any;
  if (check.errors || check.data.jobs.edges.length !== 50) throw new Error(`GraphQL jobs query: ${JSON.stringify(check).slice(0, 500)}`);
  await load({
    url: `${wip.url}/api/client/graphql`,
    method: 'POST',
    connections: CONNECTIONS,
    headers: { ...auth, 'content-type': 'application/json' },
    body,
    duration: FIRST_WARM_UP_SECONDS,
  });
  const figures = await load(
    {
      url: `${wip.url}/api/client/graphql`,
      method: 'POST',
      connections: CONNECTIONS,
      headers: { ...auth, 'content-type': 'application/json' },
      body,
    },
    wip.child,
  );
  console.log(
    `graphql 50 jobs: ${figures.reqPerSec} req/s, ${figures.serverCpuUsPerRequest ?? '?'} µs server CPU a query, p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms (target p99 < 50 ms)`,
  );
  return { graphqlJobs50: { ...figures, connections: CONNECTIONS, p99TargetMs: 50 } };
});

/**
 * 32 operators, each signed in and recording the steps of their own open job
 * (re-recording in a loop) as fast as answers come: throughput and latency.
 * Every answer is a committed, fsynced write (synchronous=FULL).
 */
export const recordScenario = withDaemon(async ({ seed, wip }) => {
  const operators = await Promise.all(
    seed.operators.slice(0, OPERATORS).map(async (op) => ({
      url: wip.url,
      jobId: op.jobId,
      token: (await json(`${wip.url}/api/client/auth/sign-in`, 'POST', { email: op.email, password: SEED_PASSWORD })).token as string,
    })),
  );
  let cpuBefore: number | undefined;
  const load = await recordLoad(operators, () => (cpuBefore = cpuSeconds(wip.child.pid)));
  const cpuAfter = cpuSeconds(wip.child.pid);
  const serverCpuUsPerWrite =
    cpuBefore !== undefined && cpuAfter !== undefined ? Math.round(((cpuAfter - cpuBefore) * 1e6) / Math.max(1, load.requests)) : undefined;
  const figures = { ...load, serverCpuUsPerWrite };
  console.log(
    `recording: ${figures.writesPerSec} writes/s, p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms, ${figures.errors} errors, ${serverCpuUsPerWrite} µs server CPU per write`,
  );
  return { recordStepValues: figures };
});

/** The meter report of client 1 over the whole seeded year (1M step values), by month, five times in a row: < 1 s. */
export const meterScenario = withDaemon(async ({ seed, wip, auth }) => {
  const url = `${wip.url}/api/client/meter-report?period=month&from=${seed.from}&to=${seed.to}`;
  const times: number[] = [];
  let steps = 0;
  const cpuBefore = cpuSeconds(wip.child.pid);
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    const res = (await (await fetch(url, { headers: auth })).json()) as { success: boolean; data: { totals: { stepsRecorded: number } } };
    times.push(Number((performance.now() - started).toFixed(1)));
    if (!res.success) throw new Error(JSON.stringify(res));
    steps = res.data.totals.stepsRecorded;
  }
  const cpuAfter = cpuSeconds(wip.child.pid);
  // the daemon's CPU per report: steadier than wall time on a shared machine
  const serverCpuMsPerReport =
    cpuBefore !== undefined && cpuAfter !== undefined ? Math.round(((cpuAfter - cpuBefore) * 1000) / times.length) : undefined;
  console.log(
    `meter report over ${steps} step records: ${times.join(', ')} ms (target < 1000 ms), ${serverCpuMsPerReport} ms server CPU per report`,
  );
  return {
    meterReport: {
      stepsRecorded: steps,
      runsMs: times,
      medianMs: median(times),
      maxMs: Math.max(...times),
      targetMs: 1000,
      serverCpuMsPerReport,
    },
  };
});

function rssMb(pid: number | undefined): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024);
}

/**
 * The single executable (dist/wip from `npm run build:binary`; `node bin/wip`
 * when it is not built, said in the results): start to the first answered
 * request on an installed data directory, idle RSS, and RSS after 10k and
 * after BENCH_RSS_REQUESTS (default 1,000,000) authenticated requests.
 */
export async function binaryScenario(): Promise<Record<string, unknown>> {
  const binary = path.join(root, 'dist', 'wip');
  const useBinary = fs.existsSync(binary);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-bench-bin-'));
  const env = {
    WIP_ADMIN_PASSWORD: 'bench-admin-password',
    WIP_LOG_LEVEL: 'info',
    WIP_RATE_LIMIT_MAX: '100000000',
    WIP_SIGN_IN_RATE_LIMIT_MAX: '100000000',
  };
  const { spawn } = await import('node:child_process');
  const start = () => {
    const started = performance.now();
    const logFile = path.join(root, '.bench', 'binary.log');
    const fd = fs.openSync(logFile, 'w');
    const args = ['--data-dir', dataDir, 'serve', '--host', '127.0.0.1', '--port', '0'];
    const child = useBinary
      ? spawn(binary, args, { env: { ...process.env, ...env }, stdio: ['ignore', fd, 'inherit'] })
      : spawn(process.execPath, [path.join(root, 'bin', 'wip'), ...args], {
          env: { ...process.env, ...env },
          stdio: ['ignore', fd, 'inherit'],
        });
    fs.closeSync(fd);
    return new Promise<{ child: typeof child; url: string; firstAnswerMs: number; mainThreadCpuMs?: number }>((resolve, reject) => {
      const poll = setInterval(async () => {
        const match = /wip listening on (http:\/\/[^"\s]+)/.exec(fs.readFileSync(logFile, 'utf8'));
        if (!match) return;
        clearInterval(poll);
        const url = match[1].replace('localhost', '127.0.0.1');
        const res = await fetch(`${url}/healthz`);
        if (!res.ok) reject(new Error(`healthz ${res.status}`));
        const firstAnswerMs = Math.round(performance.now() - started);
        const cpu = mainThreadCpuSeconds(child.pid);
        resolve({ child, url, firstAnswerMs, ...(cpu !== undefined && { mainThreadCpuMs: Math.round(cpu * 1000) }) });
      }, 2);
      child.on('close', (code) => {
        clearInterval(poll);
        reject(new Error(`exited ${code}`));
      });
    });
  };
  // the first start installs (migrations, secrets, the admin); measured: the starts after it
  await stopProcess((await start()).child);
  const starts: number[] = [];
  // the daemon's main-thread CPU until its first answer: the steadier figure on a shared machine
  const startCpu: number[] = [];
  for (let i = 0; i < 3; i++) {
    const s = await start();
    starts.push(s.firstAnswerMs);
    if (s.mainThreadCpuMs !== undefined) startCpu.push(s.mainThreadCpuMs);
    await stopProcess(s.child);
  }
  const daemon = await start();
  try {
    await new Promise((r) => setTimeout(r, 2000));
    const idleRssMb = rssMb(daemon.child.pid);
    const admin = await json(`${daemon.url}/api/admin/auth/sign-in`, 'POST', { username: 'admin', password: 'bench-admin-password' });
    await json(
      `${daemon.url}/api/admin/client`,
      'POST',
      { name: 'Bench', owner: { email: 'owner@example.test', password: SEED_PASSWORD } },
      admin.token,
    );
    const signedIn = await json(`${daemon.url}/api/client/auth/sign-in`, 'POST', { email: 'owner@example.test', password: SEED_PASSWORD });
    const headers = { authorization: `Bearer ${signedIn.token}` };
    const total = Number(process.env.BENCH_RSS_REQUESTS ?? 1_000_000);
    const first: LoadFigures = await load(
      { url: `${daemon.url}/api/client/auth/me`, connections: CONNECTIONS, headers, amount: 10_000 },
      daemon.child,
    );
    const after10k = rssMb(daemon.child.pid);
    const rest = await load(
      { url: `${daemon.url}/api/client/auth/me`, connections: CONNECTIONS, headers, amount: total - 10_000 },
      daemon.child,
    );
    const afterAll = rssMb(daemon.child.pid);
    const figures = {
      executable: useBinary ? 'dist/wip (single executable)' : 'node bin/wip (dist/wip not built: npm run build:binary)',
      startToFirstAnswerMs: starts,
      startMainThreadCpuMs: startCpu,
      startTargetMs: 250,
      idleRssMb,
      idleRssTargetMb: 120,
      rssAfter10kMb: after10k,
      requests: total,
      rssAfterAllMb: afterAll,
      rssGrowth: Number((afterAll / after10k).toFixed(2)),
      rssGrowthTarget: 1.5,
      errors: first.errors + first.non2xx + rest.errors + rest.non2xx,
    };
    console.log(
      `binary: start ${starts.join(', ')} ms (main-thread CPU ${startCpu.join(', ')} ms); idle RSS ${idleRssMb} MB; RSS ${after10k} MB after 10k, ${afterAll} MB after ${total} requests`,
    );
    return { singleExecutable: figures };
  } finally {
    await stopProcess(daemon.child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
