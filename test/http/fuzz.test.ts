import { createHash } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { buildAppSchema } from '#graphql/schema';
import { bodyLimitBytes } from '#config';
import { startTestServer, unconfiguredIntegration, type TestServer } from '../helpers/server';
import { adminToken, buildClient } from '../helpers/factories';
import { publishedTemplate, createJob, DOMAIN_TEST_ENV } from '../helpers/domain';
import { mulberry32 } from '../helpers/prng';
import { retainedHeap } from '../helpers/memory';
import { badGraphQLCase, badRestCase, graphqlOperations, pick, restOperations, shrinkCandidates, type FuzzCase } from '../helpers/fuzz';

// A fuzzer driven by the API descriptions: every REST operation of
// /api/openapi.json and every GraphQL query and mutation of the schema gets
// generated bad input (see helpers/fuzz.ts). Pass: no 5xx, every REST answer
// an error envelope with a 4xx status, every GraphQL answer well-formed with
// extensions.code on each error, no change to the data, bounded memory, and
// the server still answers. A failing case is shrunk and printed with the
// seed that reproduces it. FUZZ_BUDGET (cases) and FUZZ_SEED on demand.

const BUDGET = Number(process.env.FUZZ_BUDGET ?? 3000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);

let server: TestServer;
let tokens: Record<FuzzCase['principal'], string | undefined>;
const fuzz = suite(`fuzzing from the API descriptions (${BUDGET} cases, seed ${SEED})`);

fuzz.before(async () => {
  server = await startTestServer({ env: { ...DOMAIN_TEST_ENV, WIP_RATE_LIMIT_MAX: '10000000', WIP_RATE_LIMIT_ANONYMOUS_MAX: '10000000' } });
  const client = await buildClient(server);
  // data for the operations to (not) touch
  const template = await publishedTemplate(server, client);
  await createJob(server, client.owner.token, { templateId: template.templateId });
  tokens = { admin: await adminToken(server), user: client.owner.token, none: undefined };
});
fuzz.after(async () => server.stop());

/** A digest per table of everything stored: on SQLite read beside the server as another process would. */
async function digest(): Promise<Map<string, string>> {
  const { db } = server.deps;
  if (db.dialect === 'postgres') {
    // each table's rows as text, sorted (a heap has no stable order), hashed by PostgreSQL; but rate_limits, the
    // counters every request adds to, refused or not (shared by the nodes there; SQLite's live in memory)
    const tables = await sql<{
      name: string;
    }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' and table_name <> 'rate_limits' order by 1`.execute(
      db.kysely,
    );
    const hashes: [string, string][] = [];
    for (const { name } of tables.rows) {
      const hash = await sql<{
        d: string;
      }>`select md5(coalesce(string_agg(t::text, E'\n' order by t::text), '')) as d from ${sql.table(name)} t`.execute(db.kysely);
      hashes.push([name, hash.rows[0].d]);
    }
    return new Map(hashes);
  }
  const file = new Database(path.join(server.dataDir, 'wip.db'), { readonly: true });
  try {
    const tables = file.prepare("select name from sqlite_master where type = 'table' order by name").all() as { name: string }[];
    return new Map(
      // every table, sessions included: the test clock stands still, so not even a session's last-seen time moves
      tables.map((t) => [
        t.name,
        createHash('sha256')
          .update(JSON.stringify(file.prepare(`select * from "${t.name}"`).raw().all()))
          .digest('hex'),
      ]),
    );
  } finally {
    file.close();
  }
}

/** Why the answer to `c` fails the pass criteria, or undefined when it passes. */
async function problemWith(c: FuzzCase): Promise<string | undefined> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = tokens[c.principal];
  if (token) headers.authorization = `Bearer ${token}`;
  let body: Buffer | undefined;
  if (c.raw !== undefined) body = Buffer.from(c.raw, 'latin1');
  else if (c.json !== undefined) body = Buffer.from(JSON.stringify(c.json));
  if (body) headers['content-type'] = c.contentType ?? 'application/json';
  let res: Response;
  try {
    res = await fetch(server.url + c.path, { method: c.method, headers, body, redirect: 'manual' });
  } catch (error) {
    return `no answer: ${(error as Error).message}`;
  }
  const text = await res.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    return `${res.status} answer is not JSON: ${text.slice(0, 200)}`;
  }
  if (res.status >= 500 && !unconfiguredIntegration(res.status, parsed)) return `${res.status}: ${text.slice(0, 300)}`;
  const envelope = parsed?.success === false && typeof parsed.error?.code === 'string' && typeof parsed.error?.message === 'string';
  if (c.api === 'rest') {
    if (res.status < 400) return `${res.status}: accepted bad input: ${text.slice(0, 300)}`;
    return envelope ? undefined : `${res.status} without an error envelope: ${text.slice(0, 200)}`;
  }
  // GraphQL: errors raised before the GraphQL handler (415, 413, 429) keep the envelope
  if (envelope && res.status >= 400) return undefined;
  const errors = parsed?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return `${res.status}: no errors for a bad GraphQL request: ${text.slice(0, 300)}`;
  if (!errors.every((e: any) => typeof e.message === 'string' && typeof e.extensions?.code === 'string'))
    return `error without extensions.code: ${text.slice(0, 300)}`;
  return undefined;
}

/** The smallest variant of a failing case that still fails (greedy, bounded). */
async function shrink(c: FuzzCase): Promise<FuzzCase> {
  let smallest = c;
  for (let step = 0; step < 200; step++) {
    let smaller: FuzzCase | undefined;
    for (const candidate of shrinkCandidates(smallest)) {
      if (await problemWith(candidate)) {
        smaller = candidate;
        break;
      }
    }
    if (!smaller) break;
    smallest = smaller;
  }
  return smallest;
}

const show = (c: FuzzCase) =>
  JSON.stringify({ ...c, json: c.json === undefined ? undefined : JSON.stringify(c.json).slice(0, 2000), raw: c.raw?.slice(0, 2000) });

fuzz('no 5xx, well-formed 4xx answers, no data change, bounded memory, and the server still answers', async () => {
  const random = mulberry32(SEED);
  const openapi = (await server.request('GET', '/api/openapi.json')).body;
  // the API only: the console's pages (/console/, /auth/set-password/:token …) are static HTML that reads its token in the browser
  const rest = restOperations(openapi).filter((op) => op.path.startsWith('/api/') && op.path !== '/api/client/graphql');
  const graphql = graphqlOperations(buildAppSchema());
  assert.ok(rest.length > 50 && graphql.length > 20, `${rest.length} REST, ${graphql.length} GraphQL operations`);
  const bodyLimit = bodyLimitBytes(server.deps.config);

  const before = await digest();
  const covered = new Set<string>();
  const failures: string[] = [];
  const started = Date.now();
  let heapAfterWarmUp: number | undefined;
  const timing = new Map<string, number>();
  for (let i = 0; i < BUDGET; i++) {
    const c = random() < 0.6 ? badRestCase(random, pick(random, rest), bodyLimit) : badGraphQLCase(random, pick(random, graphql));
    if (!c) continue; // an operation without any input: nothing to get wrong
    covered.add(c.operation);
    const t0 = Date.now();
    const problem = await problemWith(c);
    if (process.env.FUZZ_TIMING)
      timing.set(c.what.replace(/ \S+ of/, ' … of'), (timing.get(c.what.replace(/ \S+ of/, ' … of')) ?? 0) + Date.now() - t0);
    if (problem) {
      const small = await shrink(c);
      failures.push(
        `case ${i} (FUZZ_SEED=${SEED}) ${c.operation} — ${c.what}: ${problem}\n    shrunk (${(await problemWith(small)) ?? 'passes when sent again'}): ${show(small)}`,
      );
      if (failures.length >= 5) break;
    }
    // at the first case from 200 on: case 200 itself may be one skipped above
    if (i >= 200 && heapAfterWarmUp === undefined) heapAfterWarmUp = retainedHeap();
  }
  const seconds = (Date.now() - started) / 1000;
  const memory = process.memoryUsage();
  const retained = retainedHeap();
  console.log(
    `fuzz: ${BUDGET} cases over ${covered.size} operations in ${seconds.toFixed(1)} s; heap ${(memory.heapUsed / 2 ** 20).toFixed(0)} MB, retained ${((heapAfterWarmUp ?? 0) / 2 ** 20).toFixed(0)} MB after the warm-up and ${(retained / 2 ** 20).toFixed(0)} MB at the end, RSS ${(memory.rss / 2 ** 20).toFixed(0)} MB`,
  );
  if (process.env.FUZZ_TIMING) console.log([...timing].sort((a, b) => b[1] - a[1]).slice(0, 12));
  assert.equal(failures, [], failures.join('\n'));

  const after = await digest();
  const changed = [...before.keys()].filter((t) => before.get(t) !== after.get(t));
  assert.equal(changed, [], 'tables changed by refused requests');
  assert.equal([...after.keys()], [...before.keys()]);
  // memory bounded: what the heap retains after thousands of hostile requests stays near what it retained after the first 200
  assert.ok(heapAfterWarmUp !== undefined, 'the warm-up sample was taken');
  assert.ok(retained - heapAfterWarmUp < 32 * 2 ** 20, `retained heap grew from ${heapAfterWarmUp} to ${retained}`);
  assert.is((await server.request('GET', '/readyz')).status, 200);
  assert.is((await server.request('GET', '/api/client/auth/me', { token: tokens.user })).status, 200);
});

fuzz.run();
