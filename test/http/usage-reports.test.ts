import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import ExcelJS from 'exceljs';
import { ManualClock } from '#lib/clock';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser, signIn, type BuiltClient } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { createJob, DOMAIN_TEST_ENV, publishedTemplate } from '../helpers/domain';
import { upload } from '../helpers/upload';

// Usage reports checked against data seeded through the real API on days the
// test chooses (the server's ManualClock), so every number below is known.

const DAY = 86_400_000;
const D1 = '2030-03-04'; // a Monday
const STORED_A = Buffer.alloc(1000, 1);
let server: TestServer;
const reports = suite('usage reports: meter report, activity report, vendor users report, removed /reports');

const RECORD = 'mutation($i: RecordStepInput!) { recordStep(input: $i) { job { id state } } }';
const COMPLETE = 'mutation($j: ID!) { completeJob(input: { jobId: $j }) { job { id state } } }';

interface Seed {
  client: BuiltClient;
  ownerToken: string;
  operator: { id: number; email: string; token: string };
  t1: number;
  t2: number;
  organizationId: number;
}
let seed: Seed;

async function ok(result: Promise<{ codes: string[]; errors?: unknown; data: any }>, what: string) {
  const r = await result;
  assert.equal(r.codes, [], `${what}: ${JSON.stringify(r.errors)}`);
  return r.data;
}

async function record(token: string, jobId: number, stepId: string, values: unknown[], extra: Record<string, unknown> = {}) {
  return ok(gql(server, token, RECORD, { i: { jobId: `Job:${jobId}`, stepId, status: 'DONE', values, ...extra } }), `record ${stepId}`);
}

/**
 * Day 1 (Mon 03-04): owner, two signers (full) and the operator (connect) sign in; job A (T1) starts with one step;
 *   the owner uploads 1000 bytes.
 * Day 2 (Tue 03-05): owner and operator sign in; A gets two more steps and completes; job B (T2) starts with one step;
 *   the operator uploads 500 new bytes and the day-1 bytes again (deduplicated: no more storage).
 * Day 9 (Tue 03-12): operator records one more step on B; owner signs in.
 */
reports.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV, clock: new ManualClock(new Date(`${D1}T09:00:00.000Z`)) });
  const client = await buildClient(server, { seats: { full: 10, connect: 10 } });
  const t1 = (await publishedTemplate(server, client, undefined, 'Pump inspection')).templateId;
  const t2 = (await publishedTemplate(server, client, undefined, 'Valve check')).templateId;
  const op = await buildUser(server, client, { roles: ['operator'], licenseType: 'connect' });
  const jobA = await createJob(server, client.owner.token, { templateId: t1, assigneeIds: [op.id] });
  await record(op.token!, jobA.id, 'measure', [{ key: 'torque', value: 15 }]);
  const stored = async (token: string, parts: { name: string; data: Buffer }[]) =>
    assert.is((await upload(server, token, parts)).status, 201);
  await stored(client.owner.token, [{ name: 'a.bin', data: STORED_A }]);

  server.clock.advance(DAY);
  let operatorToken = await signIn(server, op.email, op.password, client.id);
  let ownerToken = await signIn(server, client.owner.email, client.owner.password, client.id);
  await record(operatorToken, jobA.id, 'check', [{ key: 'sealOk', value: true }]);
  await record(operatorToken, jobA.id, 'photo', [], { status: 'SKIPPED', reason: 'camera broken' });
  await ok(gql(server, operatorToken, COMPLETE, { j: `Job:${jobA.id}` }), 'complete A');
  const jobB = await createJob(server, ownerToken, { templateId: t2, assigneeIds: [op.id] });
  await record(operatorToken, jobB.id, 'measure', [{ key: 'torque', value: 12 }]);
  await stored(operatorToken, [
    { name: 'b.bin', data: Buffer.alloc(500, 2) },
    { name: 'a-again.bin', data: STORED_A },
  ]);

  server.clock.advance(7 * DAY);
  operatorToken = await signIn(server, op.email, op.password, client.id);
  ownerToken = await signIn(server, client.owner.email, client.owner.password, client.id);
  await record(operatorToken, jobB.id, 'check', [{ key: 'sealOk', value: true }]);
  const org = await ok(
    gql(server, ownerToken, 'mutation { createOrganization(input: {name: "North plant"}) { organization { id databaseId } } }'),
    'createOrganization',
  );
  await ok(
    gql(
      server,
      ownerToken,
      'mutation($t: ID!, $o: ID!) { updateTemplate(input: { templateId: $t, organizationIds: [$o] }) { template { id } } }',
      { t: `Template:${t2}`, o: org.createOrganization.organization.id },
    ),
    'updateTemplate',
  );
  seed = {
    client,
    ownerToken,
    operator: { id: op.id, email: op.email, token: operatorToken },
    t1,
    t2,
    organizationId: org.createOrganization.organization.databaseId,
  };
});
reports.after(async () => server.stop());

const meter = (query: string, token = seed.ownerToken) => server.request('GET', `/api/client/meter-report?${query}`, { token });
const RANGE = `from=${D1}&to=2030-03-12`;
const compact = (b: any) => [
  b.bucket,
  b.activeUsers.byLicenseType.full,
  b.activeUsers.byLicenseType.connect,
  b.jobsStarted,
  b.jobsCompleted,
  b.stepsRecorded,
];

reports('meter report per day: active users per license type, jobs started and completed, steps recorded, as seeded', async () => {
  const res = await meter(`period=day&${RANGE}`);
  assert.is(res.status, 200, res.text);
  const report = res.body.data;
  assert.is(report.period, 'day');
  assert.is(report.from, D1);
  assert.is(report.to, '2030-03-12');
  assert.is(report.buckets.length, 9, 'every day of the range, empty ones included');
  assert.equal(report.buckets[0], {
    bucket: '2030-03-04',
    start: '2030-03-04T00:00:00.000Z',
    end: '2030-03-05T00:00:00.000Z',
    activeUsers: { total: 4, byLicenseType: { full: 3, connect: 1 } },
    jobsStarted: 1,
    jobsCompleted: 0,
    stepsRecorded: 1,
    storageBytes: 1000,
  });
  assert.equal(compact(report.buckets[1]), ['2030-03-05', 1, 1, 1, 1, 3]);
  for (const empty of report.buckets.slice(2, 8)) assert.equal(compact(empty).slice(1), [0, 0, 0, 0, 0]);
  assert.equal(compact(report.buckets[8]), ['2030-03-12', 1, 1, 0, 0, 1]);
  // storage is a level: what is held at the end of each day (the day-2 copy of the day-1 bytes costs nothing)
  assert.equal(
    report.buckets.map((b: any) => b.storageBytes),
    [1000, 1500, 1500, 1500, 1500, 1500, 1500, 1500, 1500],
  );
  // distinct users over the range (owner, two signers, operator), not the sum of the days
  assert.equal(report.totals, {
    activeUsers: { total: 4, byLicenseType: { full: 3, connect: 1 } },
    jobsStarted: 2,
    jobsCompleted: 1,
    stepsRecorded: 5,
    storageBytes: 1500,
  });
});

reports(
  'meter report storageBytes: content stored before the range counts, nothing after it; the range ending today matches the storage quota usage',
  async () => {
    const later = (await meter('period=day&from=2030-03-05&to=2030-03-05')).body.data;
    assert.equal(
      later.buckets.map((b: any) => b.storageBytes),
      [1500],
      'the 1000 bytes of day 1 were held before the range',
    );
    const before = (await meter('period=month&from=2030-01-01&to=2030-03-03')).body.data;
    assert.equal([before.buckets.map((b: any) => b.storageBytes), before.totals.storageBytes], [[0, 0, 0], 0]);
    const usage = await server.request('GET', `/api/admin/client/${seed.client.id}/storage-quota`, { token: await adminToken(server) });
    assert.is(usage.status, 200, usage.text);
    const today = (await meter('period=month')).body.data;
    assert.is(today.totals.storageBytes, usage.body.data.storageUsedBytes);
    assert.is(today.totals.storageBytes, 1500);
    const filtered = (await meter(`period=week&${RANGE}&userId=${seed.operator.id}`)).body.data;
    assert.is(filtered.totals.storageBytes, 1500, 'client-wide whatever the filters');
  },
);

reports('meter report per ISO week (from Monday, clipped to the range) and per month', async () => {
  const weeks = (await meter(`period=week&${RANGE}`)).body.data.buckets;
  assert.equal(weeks.map(compact), [
    ['2030-03-04', 3, 1, 2, 1, 4],
    ['2030-03-11', 1, 1, 0, 0, 1],
  ]);
  assert.is(weeks[1].start, '2030-03-11T00:00:00.000Z');
  assert.is(weeks[1].end, '2030-03-13T00:00:00.000Z', 'the last week ends with the range');
  const midWeek = (await meter('period=week&from=2030-03-06&to=2030-03-12')).body.data.buckets;
  assert.equal(midWeek.map(compact), [
    ['2030-03-04', 0, 0, 0, 0, 0],
    ['2030-03-11', 1, 1, 0, 0, 1],
  ]);
  assert.is(midWeek[0].start, '2030-03-06T00:00:00.000Z', 'the first week starts with the range');
  const months = (await meter('period=month&from=2030-02-20&to=2030-03-31')).body.data.buckets;
  assert.equal(months.map(compact), [
    ['2030-02', 0, 0, 0, 0, 0],
    ['2030-03', 3, 1, 2, 1, 5],
  ]);
});

reports('meter report filters: template, organization, user, license type', async () => {
  const byTemplate = (await meter(`period=week&${RANGE}&templateId=${seed.t2}`)).body.data;
  // only job B; with a template filter, active users are those who recorded on it
  assert.equal(byTemplate.buckets.map(compact), [
    ['2030-03-04', 0, 1, 1, 0, 1],
    ['2030-03-11', 0, 1, 0, 0, 1],
  ]);
  const byOrganization = (await meter(`period=week&${RANGE}&organizationId=${seed.organizationId}`)).body.data;
  assert.equal(byOrganization.buckets, byTemplate.buckets, 'T2 is the organization’s only template');
  const byUser = (await meter(`period=week&${RANGE}&userId=${seed.operator.id}`)).body.data;
  assert.equal(byUser.buckets.map(compact), [
    ['2030-03-04', 0, 1, 2, 1, 4],
    ['2030-03-11', 0, 1, 0, 0, 1],
  ]);
  const full = (await meter(`period=week&${RANGE}&licenseType=full`)).body.data;
  // the owner (full) created both jobs; every step was recorded by the connect operator
  assert.equal(full.buckets.map(compact), [
    ['2030-03-04', 3, 0, 2, 1, 0],
    ['2030-03-11', 1, 0, 0, 0, 0],
  ]);
  assert.equal(full.filters, { userId: null, licenseType: 'full', templateId: null, organizationId: null });
});

reports('meter report as CSV with ?format=csv or Accept: text/csv: a header and one line per bucket', async () => {
  const viaQuery = await meter(`period=week&${RANGE}&format=csv`);
  assert.is(viaQuery.status, 200);
  assert.match(viaQuery.headers.get('content-type')!, /^text\/csv; charset=utf-8/);
  assert.match(viaQuery.headers.get('content-disposition')!, /attachment; filename="meter-report-week-2030-03-04-2030-03-12\.csv"/);
  assert.is(
    viaQuery.text,
    'bucket,start,end,activeUsers,activeUsers.full,activeUsers.connect,jobsStarted,jobsCompleted,stepsRecorded,storageBytes\n' +
      '2030-03-04,2030-03-04T00:00:00.000Z,2030-03-11T00:00:00.000Z,4,3,1,2,1,4,1500\n' +
      '2030-03-11,2030-03-11T00:00:00.000Z,2030-03-13T00:00:00.000Z,2,1,1,0,0,1,1500\n',
  );
  const viaAccept = await server.request('GET', `/api/client/meter-report?period=week&${RANGE}`, {
    token: seed.ownerToken,
    headers: { accept: 'text/csv' },
  });
  assert.is(viaAccept.text, viaQuery.text);
  const json = await server.request('GET', `/api/client/meter-report?period=week&${RANGE}`, {
    token: seed.ownerToken,
    headers: { accept: '*/*' },
  });
  assert.is(json.body.success, true, 'JSON unless CSV is asked for');
});

reports('meter report refuses bad input: 422 for a reversed or oversized range, unknown period or license type', async () => {
  for (const query of [
    'from=2030-03-05&to=2030-03-04',
    'period=hour',
    'licenseType=gold',
    'from=2020-01-01&to=2030-01-01&period=day',
    'from=2030-02-30',
  ]) {
    const res = await meter(query);
    assert.is(res.status, 422, `${query}: ${res.text}`);
  }
});

reports('meter report filters route lists the client’s organizations, templates, users, license types and periods', async () => {
  const res = await server.request('GET', '/api/client/meter-report-filters', { token: seed.ownerToken });
  assert.is(res.status, 200, res.text);
  const f = res.body.data;
  assert.equal(f.periods, ['day', 'week', 'month']);
  assert.equal(f.licenseTypes, ['full', 'connect']);
  assert.equal(f.organizations, [{ id: seed.organizationId, name: 'North plant' }]);
  assert.equal(f.templates, [
    { id: seed.t1, title: 'Pump inspection' },
    { id: seed.t2, title: 'Valve check' },
  ]);
  assert.is(f.users.length, 4);
  assert.ok(f.users.some((u: any) => u.id === seed.operator.id && u.licenseType === 'connect' && u.email === seed.operator.email));
  assert.equal(f.truncated, { organizations: false, templates: false, users: false });
});

reports('tenant isolation: another client’s data is not counted and its ids are 404; operators are refused', async () => {
  const other = await buildClient(server);
  const otherTemplate = await publishedTemplate(server, other);
  const otherJob = await createJob(server, other.owner.token, { templateId: otherTemplate.templateId });
  await record(other.owner.token, otherJob.id, 'measure', [{ key: 'torque', value: 11 }]);

  const mine = (await meter(`period=day&from=2030-03-12&to=2030-03-12`)).body.data.buckets;
  assert.equal(mine.map(compact), [['2030-03-12', 1, 1, 0, 0, 1]], 'the other client’s sign-ins, job and step are not ours');
  for (const query of [`templateId=${otherTemplate.templateId}`, `userId=${other.owner.id}`, 'organizationId=999999']) {
    const res = await meter(query);
    assert.is(res.status, 404, query);
  }
  const theirs = await server.request('GET', '/api/client/meter-report-filters', { token: other.owner.token });
  assert.equal(
    theirs.body.data.templates.map((t: any) => t.id),
    [otherTemplate.templateId],
  );
  assert.is((await meter('', seed.operator.token)).status, 403);
  assert.is((await server.request('GET', '/api/client/meter-report')).status, 401);
});

reports('GET and POST /api/client/reports are gone: 410 GONE to anyone, naming the replacements', async () => {
  for (const [method, token] of [
    ['GET', undefined],
    ['POST', undefined],
    ['GET', seed.ownerToken],
    ['POST', seed.ownerToken],
  ] as const) {
    const res = await server.request(method, '/api/client/reports', { token, ...(method === 'POST' && { body: {} }) });
    assert.is(res.status, 410, `${method} ${token ? 'signed in' : 'anonymous'}`);
    assert.is(res.body.error.code, 'GONE');
    assert.ok(res.body.error.details.replacements.includes('GET /api/client/meter-report'));
  }
});

reports(
  'vendor users report is not swallowed by /api/admin/user/:userId: 200 with client, license type, roles, last sign-in, status',
  async () => {
    const res = await server.request('GET', '/api/admin/user/vendor-users-report?limit=200', { token: seed.ownerToken });
    assert.is(res.status, 200, res.text);
    const items = res.body.data.items;
    assert.is(items.length, 4);
    assert.ok(items.every((u: any) => u.clientId === seed.client.id && u.clientName === seed.client.name));
    const operator = items.find((u: any) => u.id === seed.operator.id);
    assert.equal(
      { licenseType: operator.licenseType, roles: operator.roles, status: operator.status, lastSignInAt: operator.lastSignInAt },
      { licenseType: 'connect', roles: ['operator'], status: 'active', lastSignInAt: '2030-03-12T09:00:00.000Z' },
    );
    const owner = items.find((u: any) => u.id === seed.client.owner.id);
    assert.equal(owner.roles, ['admin']);
    const filtered = await server.request('GET', '/api/admin/user/vendor-users-report?licenseType=connect&role=operator', {
      token: seed.ownerToken,
    });
    assert.equal(
      filtered.body.data.items.map((u: any) => u.id),
      [seed.operator.id],
    );
    // the param route still works
    assert.is((await server.request('GET', `/api/admin/user/${seed.operator.id}`, { token: seed.ownerToken })).status, 200);
  },
);

reports('vendor users report: a Security Administrator sees only their client; a system administrator sees every client', async () => {
  const other = await buildClient(server);
  const theirs = await server.request('GET', '/api/admin/user/vendor-users-report?limit=200', { token: other.owner.token });
  assert.equal(
    theirs.body.data.items.map((u: any) => u.id),
    [other.owner.id],
  );
  const foreign = await server.request('GET', `/api/admin/user/vendor-users-report?clientId=${seed.client.id}`, {
    token: other.owner.token,
  });
  assert.is(foreign.status, 404);
  assert.is(
    (await server.request('GET', `/api/admin/user/vendor-users-report/xls-export?clientId=${seed.client.id}`, { token: other.owner.token }))
      .status,
    404,
  );
  assert.is((await server.request('GET', '/api/admin/user/vendor-users-report', { token: seed.operator.token })).status, 403);

  const admin = await adminToken(server);
  const all = await server.request('GET', '/api/admin/user/vendor-users-report?limit=200', { token: admin });
  assert.is(all.status, 200, all.text);
  const clients = new Set(all.body.data.items.map((u: any) => u.clientId));
  assert.ok(clients.has(seed.client.id) && clients.has(other.id));
  const one = await server.request('GET', `/api/admin/user/vendor-users-report?clientId=${other.id}`, { token: admin });
  assert.equal(
    one.body.data.items.map((u: any) => u.id),
    [other.owner.id],
  );
  assert.is((await server.request('GET', '/api/admin/user/vendor-users-report?clientId=999999', { token: admin })).status, 404);
  // keyset pages cover every user once
  const seen: number[] = [];
  for (let cursor = ''; ;) {
    const page = await server.request('GET', `/api/admin/user/vendor-users-report?limit=2${cursor && `&cursor=${cursor}`}`, {
      token: admin,
    });
    seen.push(...page.body.data.items.map((u: any) => u.id));
    if (!page.body.data.nextCursor) break;
    cursor = page.body.data.nextCursor;
  }
  assert.equal(
    seen,
    all.body.data.items.map((u: any) => u.id),
  );
});

reports('vendor users report XLSX export is a real workbook: read back with exceljs', async () => {
  const res = await fetch(`${server.url}/api/admin/user/vendor-users-report/xls-export`, {
    headers: { authorization: `Bearer ${seed.ownerToken}` },
  });
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
  assert.match(res.headers.get('content-disposition')!, /vendor-users-report\.xlsx/);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(Buffer.from(await res.arrayBuffer()) as never);
  const sheet = workbook.getWorksheet('Users')!;
  const header = (sheet.getRow(1).values as unknown[]).slice(1);
  assert.equal(header, [
    'Client ID',
    'Client',
    'User ID',
    'Email',
    'First name',
    'Last name',
    'Title',
    'License type',
    'Roles',
    'Status',
    'Last sign-in (UTC)',
    'Created (UTC)',
  ]);
  assert.is(sheet.actualRowCount, 5, 'a header and the four users');
  const rows = [];
  for (let i = 2; i <= sheet.actualRowCount; i++) rows.push((sheet.getRow(i).values as unknown[]).slice(1));
  const operator = rows.find((r) => r[2] === seed.operator.id)!;
  assert.equal(operator.slice(0, 4), [seed.client.id, seed.client.name, seed.operator.id, seed.operator.email]);
  assert.equal(operator.slice(7, 10), ['connect', 'operator', 'active']);
  assert.is((operator[10] as Date).toISOString(), '2030-03-12T09:00:00.000Z');
});

reports('activity report per client over a period: sign-ins, active users, jobs, steps, templates; JSON and CSV', async () => {
  const admin = await adminToken(server);
  const res = await server.request('GET', `/api/admin/activity-report?${RANGE}&clientId=${seed.client.id}`, { token: admin });
  assert.is(res.status, 200, res.text);
  assert.equal(res.body.data.clients, [
    {
      clientId: seed.client.id,
      clientName: seed.client.name,
      // day 1: owner, two signers, operator; day 2: operator, owner; day 9: operator, owner
      signIns: 8,
      activeUsers: 4,
      jobsStarted: 2,
      jobsCompleted: 1,
      stepsRecorded: 5,
      templatesCreated: 2,
      versionsPublished: 2,
    },
  ]);
  const day2 = await server.request(
    'GET',
    `/api/admin/activity-report?from=2030-03-05&to=2030-03-05&clientId=${seed.client.id}&format=csv`,
    { token: admin },
  );
  assert.is(
    day2.text,
    'clientId,clientName,signIns,activeUsers,jobsStarted,jobsCompleted,stepsRecorded,templatesCreated,versionsPublished\n' +
      `${seed.client.id},${seed.client.name},2,2,1,1,3,0,0\n`,
  );
  const all = await server.request('GET', `/api/admin/activity-report?${RANGE}`, { token: admin });
  assert.ok(all.body.data.clients.length >= 2, 'every client');
  assert.is(
    all.body.data.totals.stepsRecorded,
    all.body.data.clients.reduce((n: number, c: any) => n + c.stepsRecorded, 0),
  );
  assert.is((await server.request('GET', '/api/admin/activity-report?clientId=999999', { token: admin })).status, 404);
  assert.is((await server.request('GET', '/api/admin/activity-report', { token: seed.ownerToken })).status, 403);
});

reports.run();
