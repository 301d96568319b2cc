/**
 * `npm run bench -- --postgres`: the same two request paths on embedded SQLite
 * and on PostgreSQL, in one run, and one PostgreSQL node against two:
 *  - /auth/me: authenticated GET, 32 connections (split across the nodes);
 *  - record:   32 operators recording step values of their own jobs (split across the nodes).
 * PostgreSQL is the test helper's embedded server (test/helpers/postgres.ts),
 * started durable (fsync and synchronous commits on), so writes compare fairly
 * with SQLite's synchronous=FULL. Each setup gets a small seed made through the
 * API: one client, a published template of 10 NUMBER steps, 32 operators with
 * an open job each.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { cpuSeconds, load, recordLoad, startWip, stopProcess, treeCpuSeconds, parentPid, type LoadFigures } from './harness';
import { rolledBackTransactions, testPostgres } from '../../test/helpers/postgres';
import { daemonAsServer } from '../../test/helpers/cli';
import { ADMIN_PASSWORD, TEST_MASTER_KEY } from '../../test/helpers/server';
import { buildClient, buildUser, type BuiltClient } from '../../test/helpers/factories';
import { createJob, publishedTemplate } from '../../test/helpers/domain';

const CONNECTIONS = 32;
const OPERATORS = 32;
const CONTENT = {
  sections: [
    {
      title: 'Inspection',
      steps: Array.from({ length: 10 }, (_, s) => ({
        id: `s${s + 1}`,
        title: `Step ${s + 1}`,
        fields: [{ key: 'v', type: 'NUMBER', unit: 'bar', min: 0, max: 100, required: true }],
      })),
    },
  ],
};

interface Node {
  url: string;
  child: ChildProcess;
}

export async function postgresScenario(): Promise<Record<string, unknown>> {
  const pg = await testPostgres({ durable: true });
  const postmaster = await postmasterPid(pg.adminUrl);
  const dirs: string[] = [];
  const nodes: Node[] = [];
  const dataDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-bench-pg-'));
    dirs.push(dir);
    return dir;
  };
  const start = async (env: Record<string, string> = {}) => {
    // bcrypt cost 4: the seed signs in 34 users; neither measured path hashes a password
    const node = await startWip(
      dataDir(),
      { WIP_ADMIN_PASSWORD: ADMIN_PASSWORD, WIP_BCRYPT_COST: '4', WIP_LOG_LEVEL: 'warn', ...env },
      `wip-${nodes.length + 1}`,
    );
    nodes.push(node);
    return node;
  };
  try {
    const sqliteNode = await start();
    const sqlite = await measure('SQLite, one node', [sqliteNode], await seed(sqliteNode), {});
    await stopProcess(sqliteNode.child);

    const env = { WIP_DATABASE_URL: await pg.freshDatabaseUrl(), WIP_MASTER_KEY: TEST_MASTER_KEY };
    const first = await start(env);
    const work = await seed(first);
    const database = { postmaster, url: env.WIP_DATABASE_URL };
    const one = await measure('PostgreSQL, one node', [first], work, database);
    const second = await start(env);
    const two = await measure('PostgreSQL, two nodes', [first, second], work, database);
    return {
      postgres: {
        note: 'nodes, PostgreSQL and the load generator share this machine; PostgreSQL durable (fsync, synchronous_commit on)',
        connections: CONNECTIONS,
        operators: OPERATORS,
        sqliteOneNode: sqlite,
        postgresOneNode: one,
        postgresTwoNodes: two,
      },
    };
  } finally {
    for (const node of nodes) await stopProcess(node.child);
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * One client, its owner signed in, and 32 operators each with an open job,
 * within the evaluation allowance (25 full and 25 connect seats): 25
 * operators on connect seats, the rest on full ones.
 */
async function seed(node: Node) {
  const server = daemonAsServer(node as never);
  const client: BuiltClient = await buildClient(server, { seats: { full: 10, connect: 25 } });
  const { templateId } = await publishedTemplate(server, client, CONTENT, 'Bench inspection');
  // all at once: writers of one client queue for it (src/db/transaction.ts), seat counting included
  const operators = await Promise.all(
    Array.from({ length: OPERATORS }, async (_, i) => {
      const user = await buildUser(server, client, { roles: ['operator'], licenseType: i < 25 ? 'connect' : 'full' });
      const job = await createJob(server, client.owner.token, { templateId, title: 'Bench job', assigneeIds: [user.id] });
      return { token: user.token!, jobId: job.id as number };
    }),
  );
  return { ownerToken: client.owner.token, operators };
}

/** /auth/me and step recording with the load split evenly across `nodes`; CPU per request of the nodes (and of PostgreSQL). */
async function measure(
  label: string,
  nodes: Node[],
  work: Awaited<ReturnType<typeof seed>>,
  database: { postmaster?: number; url?: string },
) {
  const cpu = () => nodes.reduce((n, node) => n + (cpuSeconds(node.child.pid) ?? NaN), 0);
  const dbCpu = () => (database.postmaster === undefined ? NaN : treeCpuSeconds(database.postmaster));
  const perRequest = (seconds: number, requests: number) =>
    Number.isFinite(seconds) ? Math.round((seconds * 1e6) / Math.max(1, requests)) : undefined;
  const auth = { authorization: `Bearer ${work.ownerToken}` };
  const me = (duration?: number) =>
    Promise.all(
      nodes.map((node) =>
        load({
          url: `${node.url}/api/client/auth/me`,
          connections: CONNECTIONS / nodes.length,
          headers: auth,
          ...(duration && { duration }),
        }),
      ),
    );

  await me(2); // warm-up (JIT, caches, pool connections), not recorded
  let [nodesBefore, dbBefore] = [cpu(), dbCpu()];
  const meRuns: LoadFigures[] = await me();
  const meRequests = meRuns.reduce((n, r) => n + r.requests, 0);
  const authMe = {
    reqPerSec: meRuns.reduce((n, r) => n + r.reqPerSec, 0),
    p99Ms: Math.max(...meRuns.map((r) => r.p99Ms)),
    nodeCpuUsPerRequest: perRequest(cpu() - nodesBefore, meRequests),
    databaseCpuUsPerRequest: perRequest(dbCpu() - dbBefore, meRequests),
    requests: meRequests,
    errors: meRuns.reduce((n, r) => n + r.errors + r.non2xx, 0),
  };

  const rollbacksBefore = database.url && (await rolledBack(database.url));
  [nodesBefore, dbBefore] = [cpu(), dbCpu()];
  const recorded = await recordLoad(work.operators.map((op, i) => ({ ...op, url: nodes[i % nodes.length].url })));
  const record = {
    ...recorded,
    nodeCpuUsPerRequest: perRequest(cpu() - nodesBefore, recorded.requests),
    databaseCpuUsPerRequest: perRequest(dbCpu() - dbBefore, recorded.requests),
    // SERIALIZABLE conflicts (one client's writers append to one audit chain): each rolled back and retried by the node
    ...(database.url && {
      rolledBackTransactionsPerWrite: Number(
        (((await rolledBack(database.url)) - Number(rollbacksBefore)) / Math.max(1, recorded.requests)).toFixed(2),
      ),
    }),
  };
  const db = (figure: number | undefined) => (figure === undefined ? '' : ` + ${figure} µs database`);
  console.log(
    `${label}: /auth/me ${authMe.reqPerSec} req/s (p99 ${authMe.p99Ms} ms, ${authMe.nodeCpuUsPerRequest} µs node CPU${db(authMe.databaseCpuUsPerRequest)} per request, ${authMe.errors} errors)`,
  );
  const rollbacks =
    'rolledBackTransactionsPerWrite' in record ? `, ${record.rolledBackTransactionsPerWrite} rolled-back transactions per write` : '';
  console.log(
    `${label}: recording ${record.writesPerSec} writes/s (p50 ${record.p50Ms} ms, p99 ${record.p99Ms} ms, ${record.nodeCpuUsPerRequest} µs node CPU${db(record.databaseCpuUsPerRequest)} per write${rollbacks}, ${record.errors} errors)`,
  );
  return { nodes: nodes.length, authMe, record };
}

/** Rolled-back transactions, after waiting for the backends' statistics to be flushed. */
async function rolledBack(url: string): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 1500));
  return rolledBackTransactions(url);
}

/** The PostgreSQL server's main process: the parent of a backend. */
async function postmasterPid(adminUrl: string): Promise<number | undefined> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    return parentPid(rows[0].pid); // undefined off Linux: no database CPU figures
  } finally {
    await client.end();
  }
}
