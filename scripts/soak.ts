/**
 * `npm run soak`: mixed, realistic load against a real daemon (a child
 * process) for SOAK_SECONDS (default 600) from SOAK_TENANTS simulated clients
 * (default 3): sign-ins, reads (REST and GraphQL), job recordings, uploads and
 * PDF reports. At each sample (every minute; more often for runs shorter than
 * six minutes) it prints throughput and p99 per operation, and the daemon's
 * RSS, heap and open file descriptors (from /metrics) and the SQLite WAL size.
 * Pass (exit 0): no 5xx, no growth trend in RSS, heap or descriptors, the WAL
 * checkpointed (bounded). Results also go to .soak/results.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { daemonAsServer, startDaemon } from '../test/helpers/cli';
import { installedDataDir, ROOT, runWip } from '../test/helpers/spawn-wip';
import { buildClient, buildUser, signIn, PASSWORD, type BuiltClient } from '../test/helpers/factories';
import { createJob, DOMAIN_TEST_ENV, publishedTemplate } from '../test/helpers/domain';
import { gid, gql } from '../test/helpers/graphql';
import { upload } from '../test/helpers/upload';
import type { TestServer } from '../test/helpers/server';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const TENANTS = Number(process.env.SOAK_TENANTS ?? 3);
const SAMPLE_MS = Math.min(60, Math.max(5, SECONDS / 6)) * 1000;
const MB = 2 ** 20;

interface Sample {
  at: number;
  requests: number;
  p99: Record<string, number>;
  rssMb: number;
  heapMb: number;
  fds: number;
  walMb: number;
}

const latencies = new Map<string, number[]>();
const serverErrors: string[] = [];
let requests = 0;

/** Times one operation; a 5xx (or no answer while the load runs) is recorded as a failure. */
async function timed(op: string, run: () => Promise<{ status: number; text?: string }>): Promise<void> {
  const started = performance.now();
  try {
    const res = await run();
    if (res.status >= 500) serverErrors.push(`${op}: ${res.status} ${res.text?.slice(0, 200) ?? ''}`);
  } catch (error) {
    if (!stopping) serverErrors.push(`${op}: ${(error as Error).message}`);
  }
  requests++;
  const list = latencies.get(op) ?? [];
  list.push(performance.now() - started);
  latencies.set(op, list);
}

let stopping = false;

async function tenantLoad(
  server: TestServer,
  client: BuiltClient,
  operator: { email: string; token: string },
  templateId: number,
): Promise<void> {
  const owner = client.owner.token;
  const job = await createJob(server, owner, { templateId });
  const loops = [
    async () =>
      timed('sign-in', async () => ({
        status: await signIn(server, operator.email, PASSWORD, client.id).then(
          () => 200,
          () => 400,
        ),
      })),
    async () => timed('read me', () => server.request('GET', '/api/client/auth/me', { token: operator.token })),
    async () =>
      timed('read jobs (GraphQL)', async () =>
        gql(
          server,
          operator.token,
          '{ jobs(first: 20) { edges { node { id title state } } } templates(first: 20) { edges { node { id title } } } }',
        ),
      ),
    async () =>
      timed('record step', async () => {
        const res = await gql(server, operator.token, 'mutation($i: RecordStepInput!) { recordStep(input: $i) { revision job { id } } }', {
          i: {
            jobId: gid('Job', job.id),
            stepId: 'measure',
            status: 'DONE',
            values: [
              { key: 'torque', value: 15 },
              { key: 'note', value: `at ${Date.now()}` },
            ],
          },
        });
        return res;
      }),
    async () => timed('upload', () => upload(server, owner, [{ name: 'photo.bin', data: Buffer.alloc(32 * 1024, requests % 251) }])),
    async () =>
      timed('PDF report', async () => {
        const res = await fetch(`${server.url}/api/client/get-as-pdf/getJobHistoryAsPdf/${job.id}`, {
          headers: { authorization: `Bearer ${owner}` },
        });
        await res.arrayBuffer();
        return { status: res.status };
      }),
  ];
  await Promise.all(
    loops.map(async (loop, i) => {
      // uploads and reports are the heavier, rarer operations of a shop floor
      const pause = i >= 4 ? 200 : i === 0 ? 500 : 0;
      while (!stopping) {
        await loop();
        if (pause) await new Promise((r) => setTimeout(r, pause));
      }
    }),
  );
}

async function daemonMetrics(url: string): Promise<{ rssMb: number; heapMb: number; fds: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    rssMb: value('process_resident_memory_bytes') / MB,
    heapMb: value('nodejs_heap_size_used_bytes') / MB,
    fds: value('process_open_fds'),
  };
}

function p99(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))];
}

/** Least-squares slope per sample of `values`. */
function slope(values: number[]): number {
  const n = values.length;
  const mx = (n - 1) / 2;
  const my = values.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  values.forEach((y, x) => {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  });
  return den === 0 ? 0 : num / den;
}

async function main(): Promise<void> {
  const { root, dataDir, env: baseEnv } = await installedDataDir();
  const env = {
    ...baseEnv,
    ...DOMAIN_TEST_ENV,
    WIP_LOG_LEVEL: 'warn',
    WIP_RATE_LIMIT_MAX: '100000000',
    WIP_RATE_LIMIT_ANONYMOUS_MAX: '100000000',
  };
  if ((await runWip(['license', 'install', path.join(ROOT, 'test', 'fixtures', 'test-suite.lic')], env)).code !== 0)
    throw new Error('license install failed');
  const daemon = await startDaemon([], env, { timeoutMs: 60_000 });
  const server = daemonAsServer(daemon);
  try {
    const tenants = [];
    for (let t = 0; t < TENANTS; t++) {
      const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
      const template = await publishedTemplate(server, client);
      const operator = await buildUser(server, client, { roles: ['operator'] });
      tenants.push({ client, operator: { email: operator.email, token: operator.token! }, templateId: template.templateId });
    }
    console.log(`soak: ${SECONDS} s, ${TENANTS} tenants, a sample every ${SAMPLE_MS / 1000} s`);
    const load = Promise.all(tenants.map((t) => tenantLoad(server, t.client, t.operator, t.templateId)));
    const samples: Sample[] = [];
    const started = Date.now();
    let counted = 0;
    while (Date.now() - started < SECONDS * 1000) {
      await new Promise((r) => setTimeout(r, Math.min(SAMPLE_MS, SECONDS * 1000 - (Date.now() - started))));
      const wal = path.join(dataDir, 'wip.db-wal');
      const sample: Sample = {
        at: Math.round((Date.now() - started) / 1000),
        requests: requests - counted,
        p99: Object.fromEntries([...latencies].map(([op, values]) => [op, Math.round(p99(values))])),
        ...(await daemonMetrics(daemon.url)),
        walMb: fs.existsSync(wal) ? fs.statSync(wal).size / MB : 0,
      };
      counted = requests;
      latencies.clear();
      samples.push(sample);
      console.log(
        `${String(sample.at).padStart(5)} s  ${(sample.requests / (SAMPLE_MS / 1000)).toFixed(0).padStart(5)} req/s  RSS ${sample.rssMb.toFixed(0)} MB  heap ${sample.heapMb.toFixed(0)} MB  fds ${sample.fds}  WAL ${sample.walMb.toFixed(1)} MB  p99 ms ${JSON.stringify(sample.p99)}`,
      );
    }
    stopping = true;
    await load;

    // the first sample includes warm-up (JIT, caches, pools filling): trends are judged after it
    const steady = samples.slice(1);
    const problems: string[] = [];
    if (serverErrors.length > 0) problems.push(`${serverErrors.length} 5xx / failed requests, e.g. ${serverErrors.slice(0, 3).join('; ')}`);
    if (steady.length >= 3) {
      const trend = (name: string, values: number[], allowedTotal: number) => {
        const growth = slope(values) * (values.length - 1);
        if (growth > allowedTotal) problems.push(`${name} grows: +${growth.toFixed(1)} over the run (allowed ${allowedTotal})`);
      };
      trend(
        'RSS (MB)',
        steady.map((s) => s.rssMb),
        Math.max(50, 0.25 * steady[0].rssMb),
      );
      trend(
        'heap (MB)',
        steady.map((s) => s.heapMb),
        Math.max(25, 0.25 * steady[0].heapMb),
      );
      trend(
        'open fds',
        steady.map((s) => s.fds),
        10,
      );
    }
    const walMax = Math.max(...samples.map((s) => s.walMb));
    if (walMax > 64) problems.push(`WAL reached ${walMax.toFixed(1)} MB: not checkpointed`);
    const summary = { seconds: SECONDS, tenants: TENANTS, requests, errors: serverErrors.length, samples, problems };
    fs.mkdirSync(path.join(ROOT, '.soak'), { recursive: true });
    fs.writeFileSync(path.join(ROOT, '.soak', 'results.json'), JSON.stringify(summary, null, 2));
    console.log(
      problems.length === 0
        ? `PASS: ${requests} requests, no 5xx, no growth trend, WAL at most ${walMax.toFixed(1)} MB`
        : `FAIL:\n  ${problems.join('\n  ')}`,
    );
    if (problems.length > 0) process.exitCode = 1;
  } finally {
    stopping = true;
    await daemon.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
