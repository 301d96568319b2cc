import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser, PASSWORD } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { advance, APPROVE, buildTeam, CREATE_DRAFT, createTemplate, ok, SUBMIT } from '../helpers/templates';
import type { JobState } from '#db/schema';

// What approvers and publishers read: the review queue, waiting times, the actions they may take, the jobs still
// on older versions, and a rejection signed with a password.

let server: TestServer;
const reviews = suite('GraphQL reviewQueue, TemplateVersion.viewerActions / waitingSince / openJobsOnOlderVersions, signed rejections');
reviews.before(async () => {
  server = await startTestServer({ env: { WIP_SIGN_IN_RATE_LIMIT_MAX: '1000' } });
});
reviews.after(async () => server.stop());

const QUEUE = `query ($action: ReviewQueueAction, $first: Int, $after: String) { reviewQueue(action: $action, first: $first, after: $after) {
  nodes { databaseId number state waitingSince viewerActions template { title } } totalCount pageInfo { hasNextPage endCursor } } }`;

const queueOf = async (token: string, variables: Record<string, unknown> = {}) =>
  ok(await gql(server, token, QUEUE, variables)).reviewQueue;
const titles = (queue: { nodes: { template: { title: string } }[] }) => queue.nodes.map((n) => n.template.title);

reviews(
  'the queue holds what waits for the caller: IN_REVIEW to approvers, APPROVED to publishers, both to admins, nothing to others',
  async () => {
    const client = await buildClient(server, { seats: { full: 20, connect: 5 } });
    const team = await buildTeam(server, client);
    const operator = await buildUser(server, client, { roles: ['operator'] });
    const draft = await createTemplate(server, team.author.token, { title: 'Draft only' });
    const submitted = await createTemplate(server, team.author.token, { title: 'In review' });
    const submittedAt = server.clock.now().toISOString();
    ok(await gql(server, team.author.token, SUBMIT, { id: submitted.latestVersion.id }));
    server.clock.advance(60_000);
    const approved = await createTemplate(server, team.author.token, { title: 'Approved' });
    await advance(server, team, approved.latestVersion.id, 'APPROVED');
    const approvedAt = server.clock.now().toISOString();
    const published = await createTemplate(server, team.author.token, { title: 'Published' });
    await advance(server, team, published.latestVersion.id, 'PUBLISHED');
    void draft;

    const forApprover = await queueOf(team.approver.token);
    assert.equal(forApprover.nodes, [
      {
        databaseId: submitted.latestVersion.databaseId,
        number: 1,
        state: 'IN_REVIEW',
        waitingSince: submittedAt,
        viewerActions: ['REJECT', 'APPROVE'],
        template: { title: 'In review' },
      },
    ]);
    assert.is(forApprover.totalCount, 1);
    const forPublisher = await queueOf(team.publisher.token);
    assert.equal(forPublisher.nodes, [
      {
        databaseId: approved.latestVersion.databaseId,
        number: 1,
        state: 'APPROVED',
        waitingSince: approvedAt,
        viewerActions: ['PUBLISH'],
        template: { title: 'Approved' },
      },
    ]);
    assert.equal(titles(await queueOf(client.owner.token)), ['In review', 'Approved']);
    assert.equal(titles(await queueOf(client.owner.token, { action: 'PUBLISH' })), ['Approved']);
    assert.equal(titles(await queueOf(client.owner.token, { action: 'APPROVE' })), ['In review']);
    for (const token of [team.author.token, operator.token!])
      assert.equal(await queueOf(token), { nodes: [], totalCount: 0, pageInfo: { hasNextPage: false, endCursor: null } });
    assert.equal(titles(await queueOf(team.approver.token, { action: 'PUBLISH' })), [], 'an approver publishes nothing');

    // another client's approver sees none of it
    const other = await buildClient(server);
    assert.is((await queueOf(other.owner.token)).totalCount, 0);
  },
);

reviews('a version leaves the queue once acted on; pages follow the version order', async () => {
  const client = await buildClient(server, { seats: { full: 20, connect: 5 } });
  const team = await buildTeam(server, client);
  const made = [];
  for (const title of ['One', 'Two', 'Three']) {
    const t = await createTemplate(server, team.author.token, { title });
    ok(await gql(server, team.author.token, SUBMIT, { id: t.latestVersion.id }));
    made.push(t);
  }
  const first = await queueOf(team.approver.token, { first: 2 });
  assert.equal(titles(first), ['One', 'Two']);
  assert.is(first.pageInfo.hasNextPage, true);
  assert.is(first.totalCount, 3);
  assert.equal(titles(await queueOf(team.approver.token, { first: 2, after: first.pageInfo.endCursor })), ['Three']);
  ok(await gql(server, team.approver.token, APPROVE, { id: made[1].latestVersion.id, password: PASSWORD }));
  assert.equal(titles(await queueOf(team.approver.token)), ['One', 'Three']);
  assert.equal(titles(await queueOf(team.publisher.token)), ['Two']);
});

reviews(
  'separation of duties: who created or last edited a version does not find it to approve (but may reject) unless self-approval is allowed',
  async () => {
    const client = await buildClient(server, { seats: { full: 10, connect: 5 } });
    const both = await buildUser(server, client, { roles: ['author', 'approver'] });
    const approver = await buildUser(server, client, { roles: ['approver'] });
    const own = await createTemplate(server, both.token!, { title: 'Own' });
    ok(await gql(server, both.token, SUBMIT, { id: own.latestVersion.id }));
    assert.equal(titles(await queueOf(both.token!)), []);
    assert.equal(titles(await queueOf(approver.token!)), ['Own']);
    const VIEWER_ACTIONS = `query ($id: ID!) { templateVersion(id: $id) { viewerActions } }`;
    assert.equal(ok(await gql(server, both.token, VIEWER_ACTIONS, { id: own.latestVersion.id })).templateVersion.viewerActions, ['REJECT']);

    const put = await server.request('PUT', '/api/client/auth/client-security-settings', {
      token: client.owner.token,
      body: { allowSelfApproval: true },
    });
    assert.is(put.status, 200, put.text);
    assert.equal(titles(await queueOf(both.token!)), ['Own']);
    assert.equal(ok(await gql(server, both.token, VIEWER_ACTIONS, { id: own.latestVersion.id })).templateVersion.viewerActions, [
      'REJECT',
      'APPROVE',
    ]);
  },
);

reviews('templates restricted to an organization stay out of the queue of approvers outside it', async () => {
  const client = await buildClient(server, { seats: { full: 10, connect: 5 } });
  const org = ok(
    await gql(
      server,
      client.owner.token,
      `mutation { createOrganization(input: { name: "Plant North" }) { organization { id databaseId } } }`,
    ),
  ).createOrganization.organization;
  const inside = await server.request('POST', '/api/admin/user', {
    token: client.owner.token,
    body: {
      email: `north-${Date.now()}@example.test`,
      password: PASSWORD,
      roles: ['approver'],
      licenseType: 'full',
      availableToOrg: [org.databaseId],
    },
  });
  assert.is(inside.status, 201, inside.text);
  const insideToken = (
    await server.request('POST', '/api/client/auth/sign-in', { body: { email: inside.body.data.email, password: PASSWORD } })
  ).body.data.token;
  const outside = await buildUser(server, client, { roles: ['approver'] });
  // the owner (a Security Administrator sees every template) writes and submits it
  const restricted = await createTemplate(server, client.owner.token, { title: 'North only', organizationIds: [org.id] });
  ok(await gql(server, client.owner.token, SUBMIT, { id: restricted.latestVersion.id }));
  assert.equal(titles(await queueOf(insideToken)), ['North only']);
  assert.equal(titles(await queueOf(outside.token!)), [], 'an approver of no organization does not see it');
});

async function insertJob(clientId: number, templateId: number, versionId: number, state: JobState, createdBy: number): Promise<number> {
  // jobs are another area's: the rows are written directly, the review screens only read them
  const now = server.clock.now().toISOString();
  const row = await server.deps.db.kysely
    .insertInto('jobs')
    .values({
      client_id: clientId,
      template_id: templateId,
      version_id: versionId,
      title: `job ${state}`,
      priority: 'MEDIUM',
      state,
      created_by: createdBy,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

reviews(
  'openJobsOnOlderVersions: the running jobs of every older version of the template, none of its own or of other templates',
  async () => {
    const client = await buildClient(server, { seats: { full: 10, connect: 5 } });
    const team = await buildTeam(server, client);
    const created = await createTemplate(server, team.author.token, { title: 'Pump' });
    const v1 = created.latestVersion;
    await advance(server, team, v1.id, 'PUBLISHED');
    const v2 = ok(await gql(server, team.author.token, CREATE_DRAFT, { id: created.id })).createDraft.version;
    await advance(server, team, v2.id, 'PUBLISHED');
    const v3 = ok(await gql(server, team.author.token, CREATE_DRAFT, { id: created.id })).createDraft.version;
    ok(await gql(server, team.author.token, SUBMIT, { id: v3.id }));
    const other = await createTemplate(server, team.author.token, { title: 'Other' });
    await advance(server, team, other.latestVersion.id, 'PUBLISHED');

    const expected = [];
    for (const state of ['OPEN', 'IN_PROGRESS'] as const)
      expected.push(await insertJob(client.id, created.databaseId, v1.databaseId, state, team.publisher.id));
    await insertJob(client.id, created.databaseId, v1.databaseId, 'COMPLETED', team.publisher.id);
    expected.push(await insertJob(client.id, created.databaseId, v2.databaseId, 'PAUSED', team.publisher.id));
    await insertJob(client.id, created.databaseId, v2.databaseId, 'CANCELLED', team.publisher.id);
    await insertJob(client.id, other.databaseId, other.latestVersion.databaseId, 'OPEN', team.publisher.id);

    const JOBS = `query ($id: ID!, $first: Int) { templateVersion(id: $id) { openJobsOnOlderVersions(first: $first) { nodes { databaseId state version { number } } totalCount pageInfo { hasNextPage } } } }`;
    const onV3 = ok(await gql(server, team.approver.token, JOBS, { id: v3.id })).templateVersion.openJobsOnOlderVersions;
    assert.equal(
      onV3.nodes.map((j: { databaseId: number }) => j.databaseId),
      expected,
    );
    assert.equal(
      onV3.nodes.map((j: { version: { number: number } }) => j.version.number),
      [1, 1, 2],
    );
    assert.is(onV3.totalCount, 3);
    const paged = ok(await gql(server, team.approver.token, JOBS, { id: v3.id, first: 1 })).templateVersion.openJobsOnOlderVersions;
    assert.equal([paged.nodes.length, paged.totalCount, paged.pageInfo.hasNextPage], [1, 3, true]);
    const onV2 = ok(await gql(server, team.approver.token, JOBS, { id: v2.id })).templateVersion.openJobsOnOlderVersions;
    assert.equal(
      onV2.nodes.map((j: { databaseId: number }) => j.databaseId),
      expected.slice(0, 2),
    );
    assert.is(ok(await gql(server, team.approver.token, JOBS, { id: v1.id })).templateVersion.openJobsOnOlderVersions.totalCount, 0);
  },
);

const SIGNED_REJECT = `mutation ($id: ID!, $reason: String!, $password: String, $code: String) { rejectVersion(input: { versionId: $id, reason: $reason, password: $password, code: $code }) {
  version { state rejectReason signatures { meaning signer { id: databaseId } signerName contentHash } contentHash } } }`;

reviews(
  'a rejection with the password is an e-signature (REJECTED); a wrong password rejects nothing; without one it stays a plain rejection',
  async () => {
    const client = await buildClient(server, { seats: { full: 10, connect: 5 } });
    const team = await buildTeam(server, client);
    const created = await createTemplate(server, team.author.token, { title: 'Valve' });
    const id = created.latestVersion.id;
    ok(await gql(server, team.author.token, SUBMIT, { id }));

    const wrong = await gql(server, team.approver.token, SIGNED_REJECT, { id, reason: 'Torque missing', password: 'not-my-password' });
    assert.equal(wrong.codes, ['INVALID_CREDENTIALS']);
    const still = ok(
      await gql(
        server,
        team.approver.token,
        `query ($id: ID!) { templateVersion(id: $id) { state rejectReason signatures { meaning } } }`,
        { id },
      ),
    ).templateVersion;
    assert.equal(still, { state: 'IN_REVIEW', rejectReason: null, signatures: [] });

    const signed = ok(await gql(server, team.approver.token, SIGNED_REJECT, { id, reason: 'Torque missing', password: PASSWORD }))
      .rejectVersion.version;
    assert.is(signed.state, 'DRAFT');
    assert.is(signed.rejectReason, 'Torque missing');
    assert.equal(signed.signatures, [
      { meaning: 'REJECTED', signer: { id: team.approver.id }, signerName: team.approver.email, contentHash: signed.contentHash },
    ]);

    // the next round: rejected again without a password — a plain state change, no second signature
    ok(await gql(server, team.author.token, SUBMIT, { id }));
    const plain = ok(await gql(server, team.approver.token, SIGNED_REJECT, { id, reason: 'Still missing' })).rejectVersion.version;
    assert.equal(
      [plain.state, plain.rejectReason, plain.signatures.map((s: { meaning: string }) => s.meaning)],
      ['DRAFT', 'Still missing', ['REJECTED']],
    );

    // the audit chain names the signature of the signed rejection
    const audit = await server.deps.db.kysely
      .selectFrom('audit_entries')
      .selectAll()
      .where('client_id', '=', client.id)
      .where('action', '=', 'version.rejected')
      .orderBy('seq')
      .execute();
    assert.equal(
      audit.map((entry) => (JSON.parse(String(entry.after)) as { signature?: { meaning: string } }).signature?.meaning ?? null),
      ['REJECTED', null],
    );
  },
);

reviews.run();
