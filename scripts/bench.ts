/**
 * `npm run bench`: HTTP benchmarks on loopback against real processes.
 *  1. a bare Koa JSON route (the ceiling) vs authenticated GET /api/client/auth/me on the wip daemon;
 *     target: ≥ 0.6 × the bare route.
 *  2. GET /api/client/auth/me latency while 16 clients sign in continuously (bcrypt in the worker pool);
 *     target: p99 < 50 ms.
 * Results go to stdout and .bench/results.json. Durations: BENCH_SECONDS (default 5).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

const root = path.resolve(__dirname, '..', '..');
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const children: ChildProcess[] = [];

function startProcess(args: string[], env: Record<string, string>, ready: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const match = ready.exec(out);
      if (match) resolve(match[1]!.replace('localhost', '127.0.0.1'));
    });
    child.on('close', (code) => reject(new Error(`process exited ${code}: ${out}`)));
  });
}

async function json(url: string, method: string, body: unknown, token?: string): Promise<any> {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    body: JSON.stringify(body),
  });
  const parsed = (await res.json()) as { success: boolean; data: any };
  if (!parsed.success) throw new Error(`${method} ${url}: ${JSON.stringify(parsed)}`);
  return parsed.data;
}

function load(opts: autocannon.Options): Promise<autocannon.Result> {
  return autocannon({ duration: seconds, ...opts });
}

async function main(): Promise<void> {
  const bare = await startProcess(
    ['-e', `const Koa=require('koa');const app=new Koa();app.use(ctx=>{ctx.body={success:true,data:{ok:true}}});const s=app.listen(0,'127.0.0.1',()=>console.log('bare on http://127.0.0.1:'+s.address().port))`],
    {},
    /bare on (\S+)/,
  );
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-bench-'));
  const wip = await startProcess(
    ['bin/wip', '--data-dir', dataDir, 'serve', '--host', '127.0.0.1', '--port', '0'],
    { WIP_ADMIN_PASSWORD: 'bench-admin-password', WIP_RATE_LIMIT_MAX: '100000000', WIP_SIGN_IN_RATE_LIMIT_MAX: '100000000', WIP_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info' },
    /wip listening on (http:\/\/[^"\s]+)/,
  );
  // a client, an owner and a signed-in token
  const admin = await json(`${wip}/api/admin/auth/sign-in`, 'POST', { username: 'admin', password: 'bench-admin-password' });
  await json(`${wip}/api/admin/client`, 'POST', { name: 'Bench', owner: { email: 'bench@example.test', password: 'owner-pass-for-load-test' } }, admin.token);
  const signedIn = await json(`${wip}/api/client/auth/sign-in`, 'POST', { email: 'bench@example.test', password: 'owner-pass-for-load-test' });

  console.log(`benchmarks: ${seconds}s each, 10 connections, ${os.availableParallelism()} cores`);
  const bareResult = await load({ url: `${bare}/`, connections: 10 });
  const meResult = await load({ url: `${wip}/api/client/auth/me`, connections: 10, headers: { authorization: `Bearer ${signedIn.token}` } });
  const ratio = meResult.requests.average / bareResult.requests.average;

  const [storm, during] = await Promise.all([
    load({
      url: `${wip}/api/client/auth/sign-in`,
      connections: 16,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.test', password: 'owner-pass-for-load-test' }),
    }),
    load({ url: `${wip}/api/client/auth/me`, connections: 4, headers: { authorization: `Bearer ${signedIn.token}` } }),
  ]);

  const results = {
    date: new Date().toISOString(),
    seconds,
    bareKoaReqPerSec: Math.round(bareResult.requests.average),
    meReqPerSec: Math.round(meResult.requests.average),
    meVsBareRatio: Number(ratio.toFixed(2)),
    meRatioTarget: 0.6,
    signInsPerSecDuringStorm: Number(storm.requests.average.toFixed(1)),
    meP99MsDuringSignInStorm: during.latency.p99,
    meP99TargetMs: 50,
    errors: bareResult.errors + meResult.errors + storm.errors + during.errors,
    non2xx: meResult.non2xx + storm.non2xx + during.non2xx,
  };
  console.table(results);
  fs.mkdirSync(path.join(root, '.bench'), { recursive: true });
  fs.writeFileSync(path.join(root, '.bench', 'results.json'), JSON.stringify(results, null, 2) + '\n');
  for (const child of children) child.kill('SIGTERM');
  fs.rmSync(dataDir, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  for (const child of children) child.kill('SIGKILL');
  process.exitCode = 1;
});
