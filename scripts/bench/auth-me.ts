import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { json, load, median, root, startProcess, startWip, stopProcess, type LoadFigures } from './harness';

const CONNECTIONS = 32;

/**
 * The request path on a fresh data directory: authenticated GET /api/client/auth/me against bare Koa + @koa/router
 *    answering the same envelope, in paired rounds (one after the other,
 *    order alternating, so load from elsewhere on the machine hits both);
 *    target ≥ 0.6 × bare (stretch 0.75);
 * BENCH_ROUNDS (default 3) paired rounds;
 */
export async function authMeScenarios(): Promise<Record<string, unknown>> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const { wip, auth, close } = await freshDaemon();
  try {
    const meBody = await (await fetch(`${wip.url}/api/client/auth/me`, { headers: auth })).text();
    const bare = await startProcess(
      'bare',
      ['dist/scripts/bench/bare-koa.js'],
      { BENCH_BODY: JSON.stringify(JSON.parse(meBody).data) },
      /bare on (\S+)/,
    );
    const bareBody = await (await fetch(`${bare.url}/api/client/auth/me`)).text();
    if (bareBody.length !== meBody.length) throw new Error(`bare body ${bareBody.length} bytes, /auth/me ${meBody.length}`);

    // warm-up (JIT, caches) of both, not recorded
    await load({ url: `${bare.url}/api/client/auth/me`, connections: CONNECTIONS, duration: 2 });
    await load({ url: `${wip.url}/api/client/auth/me`, connections: CONNECTIONS, headers: auth, duration: 2 });
    const pairs: { bare: LoadFigures; me: LoadFigures; ratio: number; cpuRatio?: number }[] = [];
    for (let round = 0; round < rounds; round++) {
      const runBare = () => load({ url: `${bare.url}/api/client/auth/me`, connections: CONNECTIONS }, bare.child);
      const runMe = () => load({ url: `${wip.url}/api/client/auth/me`, connections: CONNECTIONS, headers: auth }, wip.child);
      let b: LoadFigures, m: LoadFigures;
      if (round % 2 === 0) {
        b = await runBare();
        m = await runMe();
      } else {
        m = await runMe();
        b = await runBare();
      }
      const ratio = Number((m.reqPerSec / b.reqPerSec).toFixed(3));
      const cpuRatio =
        b.serverCpuUsPerRequest && m.serverCpuUsPerRequest
          ? Number((b.serverCpuUsPerRequest / m.serverCpuUsPerRequest).toFixed(3))
          : undefined;
      pairs.push({ bare: b, me: m, ratio, cpuRatio });
      console.log(
        `round ${round + 1}: bare ${b.reqPerSec} req/s (p99 ${b.p99Ms} ms, ${b.serverCpuUsPerRequest} µs CPU/req), ` +
          `/auth/me ${m.reqPerSec} req/s (p99 ${m.p99Ms} ms, ${m.serverCpuUsPerRequest} µs CPU/req), ratio ${ratio}, CPU ratio ${cpuRatio}`,
      );
    }
    await stopProcess(bare.child);

    const ratios = pairs.map((p) => p.ratio);
    return {
      authMe: {
        connections: CONNECTIONS,
        bodyBytes: meBody.length,
        rounds: pairs,
        ratioMedian: median(ratios),
        ratioMin: Math.min(...ratios),
        ratioMax: Math.max(...ratios),
        ratioTarget: 0.6,
        // bare CPU per request / wip CPU per request: what the req/s ratio would be with the server alone on a core
        cpuRatioMedian: median(pairs.map((p) => p.cpuRatio ?? NaN)),
        ratioStretch: 0.75,
        errors: pairs.reduce((n, p) => n + p.bare.errors + p.me.errors + p.me.non2xx, 0),
      },
    };
  } finally {
    await close();
  }
}

/** A daemon on a fresh data directory with one client whose owner is signed in. */
async function freshDaemon() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-bench-'));
  const wip = await startWip(dataDir);
  const admin = await json(`${wip.url}/api/admin/auth/sign-in`, 'POST', { username: 'admin', password: 'bench-admin-password' });
  await json(
    `${wip.url}/api/admin/client`,
    'POST',
    { name: 'Bench', owner: { email: OWNER.email, password: OWNER.password } },
    admin.token,
  );
  const signedIn = await json(`${wip.url}/api/client/auth/sign-in`, 'POST', OWNER);
  return {
    wip,
    auth: { authorization: `Bearer ${signedIn.token}` },
    async close() {
      await stopProcess(wip.child);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const OWNER = { email: 'bench@example.test', password: 'owner-pass-for-load-test' };

/** /auth/me at 4 connections while 16 clients sign in continuously (bcrypt in the worker pool); target p99 < 50 ms. */
export async function signInStormScenario(): Promise<Record<string, unknown>> {
  const { wip, auth, close } = await freshDaemon();
  try {
    const [storm, during] = await Promise.all([
      load({
        url: `${wip.url}/api/client/auth/sign-in`,
        connections: 16,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(OWNER),
      }),
      load({ url: `${wip.url}/api/client/auth/me`, connections: 4, headers: auth }),
    ]);
    console.log(`sign-ins ${storm.reqPerSec}/s; /auth/me meanwhile ${during.reqPerSec} req/s, p99 ${during.p99Ms} ms (target < 50 ms)`);
    return {
      signInStorm: {
        signInsPerSec: storm.reqPerSec,
        meDuringStorm: during,
        meP99TargetMs: 50,
        errors: storm.errors + storm.non2xx + during.errors + during.non2xx,
      },
    };
  } finally {
    await close();
  }
}
