import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser } from '../helpers/factories';
import { createTemplate } from '../helpers/templates';
import { percentile } from '#services/editorial';

let server: TestServer;
const editorial = suite('POST and GET /api/client/editorial');
editorial.before(async () => {
  server = await startTestServer();
});
editorial.after(async () => server.stop());

const record = (token: string | undefined, events: unknown[]) =>
  server.request('POST', '/api/client/editorial', { token, body: { events } });
const aggregates = (token: string | undefined, query: string) => server.request('GET', `/api/client/editorial?${query}`, { token });

editorial('views, edits, and median and p90 dwell per step, from events of any user of the client', async () => {
  const client = await buildClient(server);
  const template = await createTemplate(server, client.owner.token);
  const operator = await buildUser(server, client, { roles: ['operator'], licenseType: 'connect' });
  const dwell = (stepId: string, durationMs: number) => ({
    type: 'STEP_DWELL',
    templateId: template.databaseId,
    versionId: template.latestVersion.databaseId,
    stepId,
    durationMs,
  });
  const res = await record(operator.token, [
    { type: 'VIEWED', templateId: template.databaseId, at: '2026-03-01T08:00:00Z' },
    { type: 'VIEWED', templateId: template.databaseId, versionId: template.latestVersion.databaseId },
    ...[10, 20, 30, 40].map((ms) => dwell('isolate', ms)),
    ...[5, 1, 3].map((ms) => dwell('pressure', ms)),
  ]);
  assert.is(res.status, 200, res.text);
  assert.equal(res.body.data, { recorded: 9 });
  assert.is((await record(client.owner.token, [{ type: 'EDITED', templateId: template.databaseId }])).status, 200);

  const all = await aggregates(client.owner.token, `templateId=${template.databaseId}`);
  assert.is(all.status, 200, all.text);
  assert.equal(all.body.data, {
    templateId: template.databaseId,
    from: null,
    to: null,
    views: 2,
    edits: 1,
    steps: [
      { stepId: 'isolate', samples: 4, medianMs: 25, p90Ms: 37 },
      { stepId: 'pressure', samples: 3, medianMs: 3, p90Ms: 4.6 },
    ],
  });
  // [from, to): only the view of March 1st
  const march = await aggregates(client.owner.token, `templateId=${template.databaseId}&from=2026-03-01T00:00:00Z&to=2026-03-02T00:00:00Z`);
  assert.equal(march.body.data, {
    templateId: template.databaseId,
    from: '2026-03-01T00:00:00.000Z',
    to: '2026-03-02T00:00:00.000Z',
    views: 1,
    edits: 0,
    steps: [],
  });
});

editorial('percentiles interpolate linearly between closest ranks (as percentile_cont)', () => {
  assert.is(percentile([7], 0.9), 7);
  assert.is(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.5), 5.5);
  assert.ok(Math.abs(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9) - 9.1) < 1e-9);
});

editorial("another client's template is refused: 422 naming the event on POST (nothing stored), 404 on GET", async () => {
  const a = await buildClient(server);
  const b = await buildClient(server);
  const mine = await createTemplate(server, a.owner.token);
  const theirs = await createTemplate(server, b.owner.token);
  const res = await record(a.owner.token, [
    { type: 'VIEWED', templateId: mine.databaseId },
    { type: 'VIEWED', templateId: theirs.databaseId },
    { type: 'VIEWED', templateId: mine.databaseId, versionId: theirs.latestVersion.databaseId },
  ]);
  assert.is(res.status, 422, res.text);
  assert.equal(res.body.error.details.fields, [
    { path: 'body.events.1.templateId', message: `unknown template ${theirs.databaseId}` },
    { path: 'body.events.2.versionId', message: `unknown version ${theirs.latestVersion.databaseId} of template ${mine.databaseId}` },
  ]);
  assert.is((await aggregates(a.owner.token, `templateId=${mine.databaseId}`)).body.data.views, 0);
  const foreign = await aggregates(a.owner.token, `templateId=${theirs.databaseId}`);
  assert.is(foreign.status, 404);
  assert.is(foreign.body.error.code, 'NOT_FOUND');
  assert.is((await aggregates(a.owner.token, 'templateId=99999999')).status, 404);
});

editorial('malformed events, batches over 500 and inverted ranges are 422', async () => {
  const client = await buildClient(server);
  const template = await createTemplate(server, client.owner.token);
  for (const bad of [
    { type: 'CLICKED', templateId: template.databaseId },
    { type: 'STEP_DWELL', templateId: template.databaseId, durationMs: 5 },
    { type: 'STEP_DWELL', templateId: template.databaseId, stepId: 'isolate' },
    { type: 'STEP_DWELL', templateId: template.databaseId, stepId: 'isolate', durationMs: -1 },
    { type: 'VIEWED', templateId: template.databaseId, at: 'now' },
    { type: 'VIEWED', templateId: template.databaseId, extra: 1 },
  ]) {
    assert.is((await record(client.owner.token, [bad])).status, 422, JSON.stringify(bad));
  }
  const many = Array.from({ length: 501 }, () => ({ type: 'VIEWED', templateId: template.databaseId }));
  assert.is((await record(client.owner.token, many)).status, 422);
  assert.is((await record(client.owner.token, many.slice(1))).status, 200);
  assert.is(
    (await aggregates(client.owner.token, `templateId=${template.databaseId}&from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z`)).status,
    422,
  );
  assert.is((await aggregates(client.owner.token, 'templateId=abc')).status, 422);
});

editorial('everyone records events; operators and viewers may not read aggregates (403)', async () => {
  const client = await buildClient(server);
  const template = await createTemplate(server, client.owner.token);
  for (const [roles, licenseType, reads] of [
    [['viewer'], 'connect', false],
    [['operator'], 'connect', false],
    [['author'], 'full', true],
    [['approver'], 'full', true],
    [['publisher'], 'full', true],
  ] as const) {
    const user = await buildUser(server, client, { roles: [...roles], licenseType });
    assert.is((await record(user.token, [{ type: 'VIEWED', templateId: template.databaseId }])).status, 200);
    assert.is((await aggregates(user.token, `templateId=${template.databaseId}`)).status, reads ? 200 : 403, String(roles));
  }
  assert.is((await aggregates(undefined, `templateId=${template.databaseId}`)).status, 401);
});

editorial.run();
