import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser, type BuiltClient } from '../helpers/factories';
import { json, startUpstream, type Upstream, type UpstreamRequest } from '../helpers/upstream';
import { DOMAIN_TEST_ENV, publishedTemplate } from '../helpers/domain';
import { gql } from '../helpers/graphql';

const CONTENT = {
  sections: [
    { id: 's', title: 'Inspection', steps: [{ id: 'look', title: 'Look at it', fields: [{ key: 'note', label: 'Note', type: 'TEXT' }] }] },
  ],
};
const TOKEN = 'erp-token-secret-5678';

const erp = suite('GET/POST /api/client/vendorErp');
let upstream: Upstream;
let server: TestServer;
erp.before(async () => {
  upstream = await startUpstream();
  server = await startTestServer({
    env: {
      ...DOMAIN_TEST_ENV,
      WIP_ERP_URL: `${upstream.url}/erp/api`,
      WIP_ERP_TOKEN: TOKEN,
      WIP_ERP_TEMPLATE_MAP: 'INSP=Pump inspection,REPAIR=Seal repair',
      WIP_INTEGRATION_TIMEOUT: '1s',
    },
  });
});
erp.after(async () => {
  await server.stop();
  await upstream.close();
});

/** The upstream serves `orders` to GET and accepts result PUTs with `resultStatus`. */
function serve(orders: unknown[], resultStatus = 204) {
  upstream.answer = (req: UpstreamRequest) => (req.method === 'GET' ? json(200, { items: orders }) : { status: resultStatus });
}

async function asset(client: BuiltClient, serialNumber: string): Promise<number> {
  const res = await gql(server, client.owner.token, 'mutation($i: CreateAssetInput!) { createAsset(input: $i) { asset { databaseId } } }', {
    i: { name: `Pump ${serialNumber}`, serialNumber },
  });
  return res.data.createAsset.asset.databaseId;
}

async function jobsOf(client: BuiltClient) {
  const res = await gql(
    server,
    client.owner.token,
    '{ jobs(first: 100) { edges { node { id: databaseId title state template { id: databaseId } asset { id: databaseId } } } } }',
  );
  assert.is(res.errors, undefined, JSON.stringify(res.errors));
  return res.data.jobs.edges.map((e: { node: unknown }) => e.node);
}

const sync = (client: BuiltClient) => server.request('POST', '/api/client/vendorErp', { token: client.owner.token });
const GET_LIST = (req: UpstreamRequest) => req.method === 'GET';

erp('pulls work orders into jobs (template by mapping, asset by serial), once per upstream id, and records each run', async () => {
  const client = await buildClient(server);
  const template = await publishedTemplate(server, client, CONTENT, 'Pump inspection');
  const assetId = await asset(client, 'SN-ERP-1');
  serve([
    { id: 'WO-1', type: 'INSP', title: 'Inspect pump 1', assetSerialNumber: 'SN-ERP-1', priority: 'HIGH', dueAt: '2026-12-01T08:00:00Z' },
    { id: 'WO-2', type: 'INSP', title: 'Inspect pump 2' },
  ]);
  const first = await sync(client);
  assert.is(first.status, 200, first.text);
  assert.equal(
    {
      status: first.body.data.status,
      pulled: first.body.data.pulled,
      created: first.body.data.created,
      skipped: first.body.data.skipped,
      errors: first.body.data.errors,
    },
    { status: 'succeeded', pulled: 2, created: 2, skipped: 0, errors: [] },
  );
  const list = upstream.received.filter(GET_LIST).at(-1)!;
  assert.is(new URL(list.url, upstream.url).pathname, '/erp/api/work-orders');
  assert.is(new URL(list.url, upstream.url).searchParams.get('clientId'), String(client.id));
  assert.is(list.headers.authorization, `Bearer ${TOKEN}`);

  const jobs = await jobsOf(client);
  assert.is(jobs.length, 2);
  const one = jobs.find((j: { title: string }) => j.title === 'Inspect pump 1');
  assert.is(one.template.id, template.templateId);
  assert.is(one.asset.id, assetId);

  // the same orders again: nothing new
  const second = await sync(client);
  assert.equal([second.body.data.created, second.body.data.skipped], [0, 2]);
  assert.is((await jobsOf(client)).length, 2);

  const state = await server.request('GET', '/api/client/vendorErp', { token: client.owner.token });
  assert.is(state.status, 200);
  assert.is(state.body.data.configured, true);
  assert.equal(state.body.data.templateMap, { INSP: 'Pump inspection', REPAIR: 'Seal repair' });
  assert.equal(
    state.body.data.lastRuns.map((r: { id: number }) => r.id),
    [second.body.data.id, first.body.data.id],
  );
  assert.not.match(state.text, TOKEN);
});

erp('orders that cannot become jobs are named in the run; the others are created', async () => {
  const client = await buildClient(server);
  await publishedTemplate(server, client, CONTENT, 'Pump inspection');
  serve([
    { id: 'WO-A', type: 'UNKNOWN', title: 'No mapping' },
    { id: 'WO-B', type: 'REPAIR', title: 'Template missing' },
    { id: 'WO-C', type: 'INSP', title: 'Unknown asset', assetSerialNumber: 'NOPE' },
    { id: 'bad id with spaces', type: 'INSP', title: 'Invalid' },
    { id: 'WO-D', type: 'INSP', title: 'Fine' },
  ]);
  const res = await sync(client);
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.status, 'partial');
  assert.is(res.body.data.created, 1);
  assert.equal(
    res.body.data.errors.map((e: { workOrderId?: string }) => e.workOrderId),
    ['bad id with spaces', 'WO-A', 'WO-B', 'WO-C'],
  );
  assert.equal(
    (await jobsOf(client)).map((j: { title: string }) => j.title),
    ['Fine'],
  );
});

erp('pushes the result of a completed job back once, retrying after an upstream failure', async () => {
  const client = await buildClient(server);
  await publishedTemplate(server, client, CONTENT, 'Pump inspection');
  serve([{ id: 'WO-9', type: 'INSP', title: 'Inspect and report' }]);
  await sync(client);
  const [job] = await jobsOf(client);
  const ops = [
    ['mutation($j: ID!) { startJob(input: { jobId: $j }) { job { id } } }', { j: `Job:${job.id}` }],
    [
      'mutation($i: RecordStepInput!) { recordStep(input: $i) { job { id } } }',
      { i: { jobId: `Job:${job.id}`, stepId: 'look', status: 'DONE', values: [{ key: 'note', value: 'all fine' }] } },
    ],
    ['mutation($j: ID!) { completeJob(input: { jobId: $j }) { job { id state } } }', { j: `Job:${job.id}` }],
  ] as const;
  for (const [query, variables] of ops) {
    const res = await gql(server, client.owner.token, query, variables as Record<string, unknown>);
    assert.is(res.errors, undefined, JSON.stringify(res.errors));
  }
  serve([{ id: 'WO-9', type: 'INSP', title: 'Inspect and report' }], 500);
  const failed = await sync(client);
  assert.is(failed.body.data.status, 'partial');
  assert.is(failed.body.data.pushed, 0);
  assert.equal(failed.body.data.errors[0].workOrderId, 'WO-9');

  serve([{ id: 'WO-9', type: 'INSP', title: 'Inspect and report' }], 204);
  const pushed = await sync(client);
  assert.is(pushed.body.data.pushed, 1);
  const put = upstream.received.filter((r) => r.method === 'PUT').at(-1)!;
  assert.is(put.url, '/erp/api/work-orders/WO-9/result');
  const result = JSON.parse(put.body);
  assert.equal([result.workOrderId, result.jobId, result.state], ['WO-9', job.id, 'COMPLETED']);
  assert.is(result.records[0].stepId, 'look');
  assert.equal(result.records[0].values[0].value, 'all fine');

  const again = await sync(client);
  assert.is(again.body.data.pushed, 0, 'a result accepted once is not pushed again');
});

erp('an unreadable work-order list fails the run: recorded, and 502 UPSTREAM_ERROR', async () => {
  const client = await buildClient(server);
  upstream.answer = () => json(503, { error: 'maintenance' });
  const res = await sync(client);
  assert.is(res.status, 502, res.text);
  assert.is(res.body.error.code, 'UPSTREAM_ERROR');
  assert.is(res.body.error.details.upstreamStatus, 503);
  const state = await server.request('GET', '/api/client/vendorErp', { token: client.owner.token });
  assert.is(state.body.data.lastRuns[0].id, res.body.error.details.runId);
  assert.is(state.body.data.lastRuns[0].status, 'failed');
  upstream.answer = () => ({ status: 302, headers: { location: 'http://127.0.0.1:1/' } });
  assert.is((await sync(client)).status, 502);
});

erp('only Security Administrators; runs are per client; unconfigured: 503', async () => {
  const client = await buildClient(server);
  const other = await buildClient(server);
  const operator = await buildUser(server, client, { roles: ['operator', 'author', 'user_admin'] });
  assert.is((await server.request('POST', '/api/client/vendorErp', { token: operator.token })).status, 403);
  serve([]);
  await sync(client);
  const otherState = await server.request('GET', '/api/client/vendorErp', { token: other.owner.token });
  assert.equal(otherState.body.data.lastRuns, []);
  const bare = await startTestServer();
  try {
    const c = await buildClient(bare);
    const res = await bare.request('POST', '/api/client/vendorErp', { token: c.owner.token });
    assert.is(res.status, 503);
    assert.is(res.body.error.code, 'INTEGRATION_NOT_CONFIGURED');
    assert.is((await bare.request('GET', '/api/client/vendorErp', { token: c.owner.token })).body.data.configured, false);
  } finally {
    await bare.stop();
  }
});

erp.run();
