import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser } from '../helpers/factories';
import { createJob, DOMAIN_TEST_ENV, publishedTemplate } from '../helpers/domain';

// The data epoch a device compares with (Wip-Data-Epoch, dataEpoch)
// and POST /api/client/sync/unapplied, where it reports a write lost with a
// restore that the server refused when sent again (docs/reliability.md).

let server: TestServer;
const epoch = suite('The data epoch and reports of writes that cannot be applied any more');
epoch.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
epoch.after(async () => server.stop());

const DEVIATIONS =
  'query($f: DeviationFilter) { deviations(first: 50, filter: $f) { nodes { databaseId kind stepId detail value acknowledged raisedBy { databaseId } job { databaseId } } } }';

function report(fields: Record<string, unknown> = {}) {
  return {
    idempotencyKey: randomUUID(),
    operation: 'recordStep',
    jobId: null,
    stepId: 'measure',
    acknowledgedAt: '2026-12-01T08:00:00Z',
    acknowledgedEpoch: 'e'.repeat(32),
    error: { code: 'CONFLICT', message: 'The job changed since expectedRevision 3' },
    summary: 'Step Measure: Torque 15 Nm, DONE',
    payload: { query: 'mutation …', variables: { i: { expectedRevision: 3 } } },
    ...fields,
  };
}

epoch(
  'every answer under /api/client carries Wip-Data-Epoch — errors too — the same as GET /api/client/version and GraphQL dataEpoch',
  async () => {
    const client = await buildClient(server);
    const version = await server.request('GET', '/api/client/version');
    const value: string = version.body.data.dataEpoch;
    assert.match(value, /^[0-9a-f]{32}$/);
    assert.is(version.headers.get('wip-data-epoch'), value);
    assert.is((await server.request('GET', '/api/client/auth/me')).headers.get('wip-data-epoch'), value, 'a 401');
    assert.is((await server.request('GET', '/api/client/no-such-route')).headers.get('wip-data-epoch'), value, 'a 404');
    const gql = await server.request('POST', '/api/client/graphql', { token: client.owner.token, body: { query: '{ dataEpoch }' } });
    assert.is(gql.body.data.dataEpoch, value);
    assert.is(gql.headers.get('wip-data-epoch'), value);
    // a replayed answer carries the epoch of now
    const key = randomUUID();
    const body = {
      query: 'mutation($i: CreateTemplateInput!) { createTemplate(input: $i) { template { id } } }',
      variables: { i: { title: 'Epoch' } },
    };
    await server.request('POST', '/api/client/graphql', { token: client.owner.token, body, headers: { 'idempotency-key': key } });
    const replay = await server.request('POST', '/api/client/graphql', {
      token: client.owner.token,
      body,
      headers: { 'idempotency-key': key },
    });
    assert.is(replay.headers.get('idempotency-replayed'), 'true');
    assert.is(replay.headers.get('wip-data-epoch'), value);
    // not the system administrators' API
    const admin = await server.request('GET', '/api/admin/auth/me', { token: await adminToken(server) });
    assert.is(admin.headers.get('wip-data-epoch'), null);
  },
);

epoch(
  'a report about a job of the client becomes an UNAPPLIED_CHANGE deviation reviewers and supervisors see (GraphQL, REST), and an audit entry',
  async () => {
    const client = await buildClient(server);
    const { templateId } = await publishedTemplate(server, client);
    const job = await createJob(server, client.owner.token, { templateId });
    const operator = await buildUser(server, client, { roles: ['operator'] });
    const sent = report({ jobId: job.id });
    const res = await server.request('POST', '/api/client/sync/unapplied', {
      token: operator.token,
      body: sent,
      headers: { 'idempotency-key': `unapplied:${sent.idempotencyKey}` },
    });
    assert.is(res.status, 201, res.text);
    const deviationId = res.body.data.unapplied.deviationId;
    assert.equal(res.body.data.unapplied, { deviationId, jobId: job.id });
    assert.type(deviationId, 'number');
    const list = await server.request('POST', '/api/client/graphql', {
      token: client.owner.token,
      body: { query: DEVIATIONS, variables: { f: { jobId: `Job:${job.id}`, kind: 'UNAPPLIED_CHANGE' } } },
    });
    const [deviation] = list.body.data.deviations.nodes;
    assert.is(deviation.databaseId, deviationId);
    assert.is(deviation.stepId, 'measure');
    assert.is(deviation.acknowledged, false);
    assert.is(deviation.raisedBy.databaseId, operator.id);
    assert.match(deviation.detail, /Step Measure: Torque 15 Nm, DONE/);
    assert.match(deviation.detail, /CONFLICT/);
    // and REST lists it with the other deviations a supervisor reads, to its own client only
    const rest = await server.request('GET', '/api/client/supervision/deviations?days=1', { token: client.owner.token });
    assert.is(rest.status, 200, rest.text);
    assert.equal(rest.body.data.unappliedChanges, [
      {
        id: deviationId,
        job: { id: job.id, title: job.title },
        asset: null,
        stepId: 'measure',
        detail: deviation.detail,
        raisedBy: { id: operator.id, name: rest.body.data.unappliedChanges[0].raisedBy.name },
        raisedAt: rest.body.data.unappliedChanges[0].raisedAt,
        acknowledged: false,
      },
    ]);
    assert.is(rest.body.data.unappliedChangesTruncated, false);
    const other = await buildClient(server);
    const elsewhere = await server.request('GET', '/api/client/supervision/deviations', { token: other.owner.token });
    assert.equal(elsewhere.body.data.unappliedChanges, []);
    const audit = await server.deps.db.kysely
      .selectFrom('audit_entries')
      .select(['action', 'entity_type', 'entity_id', 'after'])
      .where('client_id', '=', client.id)
      .where('action', '=', 'sync.unapplied')
      .execute();
    assert.is(audit.length, 1);
    assert.is(audit[0].entity_type, 'job');
    assert.equal(JSON.parse(audit[0].after!).payload, sent.payload);
    // the report's own key replays: one deviation, one audit entry
    const again = await server.request('POST', '/api/client/sync/unapplied', {
      token: operator.token,
      body: sent,
      headers: { 'idempotency-key': `unapplied:${sent.idempotencyKey}` },
    });
    assert.is(again.headers.get('idempotency-replayed'), 'true');
    const count = await server.deps.db.kysely
      .selectFrom('deviations')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('job_id', '=', job.id)
      .executeTakeFirstOrThrow();
    assert.is(Number(count.n), 1);
  },
);

epoch(
  'a report naming no job of the client (lost with the restore, or another client’s) is kept in the audit trail only; bad input is 422',
  async () => {
    const a = await buildClient(server);
    const b = await buildClient(server);
    const { templateId } = await publishedTemplate(server, b);
    const theirs = await createJob(server, b.owner.token, { templateId });
    for (const jobId of [theirs.id, 999_999_999, null]) {
      const res = await server.request('POST', '/api/client/sync/unapplied', { token: a.owner.token, body: report({ jobId }) });
      assert.is(res.status, 201, res.text);
      assert.equal(res.body.data.unapplied, { deviationId: null, jobId: null });
    }
    const deviations = await server.deps.db.kysely.selectFrom('deviations').select('id').where('job_id', '=', theirs.id).execute();
    assert.is(deviations.length, 0, 'nothing on the other client’s job');
    const audit = await server.deps.db.kysely
      .selectFrom('audit_entries')
      .select(['entity_type'])
      .where('client_id', '=', a.id)
      .where('action', '=', 'sync.unapplied')
      .execute();
    assert.equal(
      audit.map((e) => e.entity_type),
      ['device-write', 'device-write', 'device-write'],
    );
    for (const bad of [
      report({ summary: '' }),
      report({ jobId: 'Job:1' }),
      report({ acknowledgedAt: 'yesterday' }),
      report({ payload: 'x'.repeat(70_000) }),
      report({ extra: true }),
      { idempotencyKey: randomUUID() },
    ]) {
      const res = await server.request('POST', '/api/client/sync/unapplied', { token: a.owner.token, body: bad });
      assert.is(res.status, 422, res.text);
      assert.is(res.body.error.code, 'VALIDATION_ERROR');
    }
    assert.is((await server.request('POST', '/api/client/sync/unapplied', { body: report() })).status, 401);
    const after = await server.deps.db.kysely
      .selectFrom('audit_entries')
      .select('id')
      .where('client_id', '=', a.id)
      .where('action', '=', 'sync.unapplied')
      .execute();
    assert.is(after.length, 3, 'refused reports wrote nothing');
  },
);

epoch.run();
