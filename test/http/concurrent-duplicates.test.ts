import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestResponse, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser, PASSWORD, uniqueEmail, type BuiltClient } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { json, startUpstream, type Upstream, type UpstreamRequest } from '../helpers/upstream';
import { createJob, DOMAIN_TEST_ENV, publishedTemplate } from '../helpers/domain';

// Identical writes fired at once at a uniqueness rule (a UNIQUE index or a
// caller-chosen key). On PostgreSQL (as every HTTP suite, it runs there too) the
// requests really run side by side on the pool, so a check-then-insert can be
// passed by two of them; on SQLite the awaits between a check and an insert
// outside one transaction interleave the same way. The rule: never a 500 —
// one success and 409 CONFLICT envelopes, or the route's documented
// idempotent answer — and nothing acknowledged lost. Several rounds each, to
// make the race likely.

const N = 12;
const ROUNDS = 3;
const ERP_TOKEN = 'erp-token-concurrent';

let server: TestServer;
let upstream: Upstream;
let client: BuiltClient;
const test = suite('concurrent identical writes into a uniqueness rule');
test.before(async () => {
  upstream = await startUpstream();
  server = await startTestServer({
    env: {
      ...DOMAIN_TEST_ENV,
      WIP_ERP_URL: `${upstream.url}/erp/api`,
      WIP_ERP_TOKEN: ERP_TOKEN,
      WIP_ERP_TEMPLATE_MAP: 'INSP=Race inspection',
      WIP_INTEGRATION_TIMEOUT: '5s',
    },
  });
  client = await buildClient(server, { seats: { full: 50, connect: 50 } });
});
test.after(async () => {
  await server.stop();
  await upstream.close();
});

const times = <T>(run: () => Promise<T>, n = N) => Promise.all(Array.from({ length: n }, run));
const statusesOf = (responses: TestResponse[]) => responses.map((r) => r.status).sort();

/** One 2xx (`created`), every other a 409 CONFLICT envelope; the texts shown when not. */
function oneWinner(responses: TestResponse[], created: number): void {
  const texts = responses.map((r) => `${r.status} ${r.text.slice(0, 300)}`).join('\n');
  assert.is(responses.filter((r) => r.status === created).length, 1, texts);
  for (const r of responses.filter((x) => x.status !== created)) {
    assert.is(r.status, 409, texts);
    assert.is(r.body.success, false, texts);
    assert.is(r.body.error.code, 'CONFLICT', texts);
  }
}

test('POST /api/admin/user with one email: one 201, the rest 409', async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const email = uniqueEmail('race');
    const body = { email, roles: ['viewer'], licenseType: 'full' };
    oneWinner(await times(() => server.request('POST', '/api/admin/user', { token: client.owner.token, body })), 201);
    const rows = await server.deps.db.kysely
      .selectFrom('users')
      .select('id')
      .where('client_id', '=', client.id)
      .where('email', '=', email)
      .execute();
    assert.is(rows.length, 1);
  }
});

test('POST /api/admin/internationalization with one key: one 201, the rest 409', async () => {
  const admin = await adminToken(server);
  for (let round = 0; round < ROUNDS; round++) {
    const body = { language: 'de', namespace: 'app', key: `race-${round}-${Date.now()}`, text: 'Hallo', clientId: client.id };
    oneWinner(await times(() => server.request('POST', '/api/admin/internationalization', { token: admin, body })), 201);
  }
});

test('GraphQL createDraft of one template: one draft, the rest CONFLICT', async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const { templateId } = await publishedTemplate(server, client, undefined, `Drafted ${round}`);
    const results = await times(() =>
      gql(server, client.owner.token, 'mutation($t: ID!) { createDraft(input: { templateId: $t }) { version { id } } }', {
        t: `Template:${templateId}`,
      }),
    );
    const summary = JSON.stringify(results.map((r) => r.codes));
    assert.is(results.filter((r) => r.data?.createDraft?.version?.id).length, 1, summary);
    assert.equal(results.flatMap((r) => r.codes).sort(), Array(N - 1).fill('CONFLICT'), summary);
  }
});

test('POST /api/client/workingTogether HAND_OFF of one job: one pending hand-off, the rest 409', async () => {
  const { templateId } = await publishedTemplate(server, client, undefined, 'Handed');
  const [a, b] = await Promise.all([0, 1].map(() => buildUser(server, client, { roles: ['operator'] })));
  for (let round = 0; round < ROUNDS; round++) {
    const job = await createJob(server, client.owner.token, { templateId, assigneeIds: [a.id] });
    const body = { action: 'HAND_OFF', jobId: job.id, toUserId: b.id };
    oneWinner(await times(() => server.request('POST', '/api/client/workingTogether', { token: a.token, body })), 200);
  }
});

test('POST /api/client/update-sensors with one batch: every answer 200, each reading stored once', async () => {
  const created = await gql(
    server,
    client.owner.token,
    'mutation { createSensor(input: {name: "Race", unit: "bar", kind: "pressure"}) { sensor { databaseId } } }',
  );
  const sensorId = created.data.createSensor.sensor.databaseId;
  for (let round = 0; round < ROUNDS; round++) {
    const readings = [1, 2, 3].map((i) => ({ sensorId, readingId: `race-${round}-${i}`, value: i, timestamp: '2026-01-01T10:00:00Z' }));
    const responses = await times(() =>
      server.request('POST', '/api/client/update-sensors', { token: client.owner.token, body: { readings } }),
    );
    assert.equal(statusesOf(responses), Array(N).fill(200), responses.map((r) => r.text).join('\n'));
    assert.is(
      responses.reduce((sum, r) => sum + r.body.data.accepted, 0),
      3,
    );
  }
});

// The defects this suite was written for follow.

test('POST /api/client/auth/two-factor/setup at once: every answer 200 (each restarts the enrolment), one enrolment kept', async () => {
  // was: delete-then-insert outside a transaction, so two setups both deleted
  // and the second insert hit user_two_factor's primary key → 500
  for (let round = 0; round < ROUNDS; round++) {
    const user = await buildUser(server, client, { roles: ['viewer'] });
    // 10: the route's budget per user (15 minutes)
    const responses = await times(
      () => server.request('POST', '/api/client/auth/two-factor/setup', { token: user.token, body: { password: PASSWORD } }),
      10,
    );
    assert.equal(statusesOf(responses), Array(10).fill(200), responses.map((r) => `${r.status} ${r.text.slice(0, 200)}`).join('\n'));
    const rows = await server.deps.db.kysely
      .selectFrom('user_two_factor')
      .selectAll()
      .where('client_id', '=', client.id)
      .where('user_id', '=', user.id)
      .execute();
    assert.is(rows.length, 1);
    assert.is(rows[0].enabled_at, null);
  }
});

test('POST /api/client/vendorErp at once: every run 200, one job per work order, the others skipped', async () => {
  // was: the "already linked?" check ran before, outside the job's transaction,
  // so concurrent runs both created a job and the second link hit
  // erp_work_orders' primary key → 500 (its job rolled back with it)
  await publishedTemplate(server, client, undefined, 'Race inspection');
  for (let round = 0; round < ROUNDS; round++) {
    const orders = [1, 2].map((i) => ({ id: `WO-race-${round}-${i}`, type: 'INSP', title: `Race ${round}.${i}` }));
    upstream.answer = (req: UpstreamRequest) => (req.method === 'GET' ? json(200, { items: orders }) : { status: 204 });
    // a Security Administrator per round: the route's budget is 30 runs an hour per caller
    const caller = await buildUser(server, client, { roles: ['admin'] });
    const responses = await times(() => server.request('POST', '/api/client/vendorErp', { token: caller.token }));
    const texts = responses.map((r) => `${r.status} ${r.text.slice(0, 300)}`).join('\n');
    assert.equal(statusesOf(responses), Array(N).fill(200), texts);
    for (const r of responses) {
      assert.equal(r.body.data.errors, [], texts);
      assert.is(r.body.data.created + r.body.data.skipped, 2, texts);
    }
    assert.is(
      responses.reduce((sum, r) => sum + r.body.data.created, 0),
      2,
      texts,
    );
    const links = await server.deps.db.kysely
      .selectFrom('erp_work_orders')
      .select('job_id')
      .where('client_id', '=', client.id)
      .where('external_id', 'like', `WO-race-${round}-%`)
      .execute();
    assert.is(links.length, 2);
    const jobs = await server.deps.db.kysely
      .selectFrom('jobs')
      .select('id')
      .where('client_id', '=', client.id)
      .where('title', 'like', `Race ${round}.%`)
      .execute();
    assert.is(jobs.length, 2, 'no job without its work order');
  }
});

test.run();
