import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser, type BuiltClient } from '../helpers/factories';
import { gid, gql } from '../helpers/graphql';
import { createJob, publishedTemplate, publishNewVersion, DOMAIN_TEST_ENV } from '../helpers/domain';

/**
 * Deviations and review by exception (docs/execution-rules.md): the
 * server records a deviation for a value out of limits, a FAILED step, a step
 * marked not applicable, a fault and a late completion; COMMENT_REQUIRED holds
 * completion; reviewers list and acknowledge deviations; reviewJob signs a
 * completed job REVIEWED. Every refusal with its code.
 */

let server: TestServer;
const deviations = suite('GraphQL deviations and review by exception');
deviations.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
deviations.after(async () => server.stop());

export const DEVIATION_CONTENT = {
  sections: [
    {
      id: 'main',
      title: 'Main',
      steps: [
        { id: 'pressure', title: 'Pressure test', fields: [{ key: 'bar', type: 'NUMBER', unit: 'bar', min: 1, max: 2 }] },
        { id: 'seal', title: 'Check the seal', fields: [{ key: 'ok', type: 'PASS_FAIL' }] },
        { id: 'paint', title: 'Touch up the paint', allowNotApplicable: true, fields: [{ key: 'colour', type: 'TEXT', required: true }] },
        { id: 'close', title: 'Close the cover', fields: [] },
      ],
    },
  ],
};

const RECORD = 'mutation($i: RecordStepInput!) { recordStep(input: $i) { job { state } } }';
const COMPLETE = 'mutation($j: ID!) { completeJob(input: { jobId: $j }) { job { state } } }';
const MARK =
  'mutation($i: MarkStepNotApplicableInput!) { markStepNotApplicable(input: $i) { job { state records { stepId status reason } } } }';
const DEVIATIONS = `query($f: DeviationFilter, $first: Int, $after: String) { deviations(first: $first, after: $after, filter: $f) {
  totalCount pageInfo { hasNextPage endCursor }
  nodes { id databaseId kind stepId stepTitle fieldKey value detail acknowledged comment acknowledgedByName acknowledgedAt raisedBy { databaseId } job { databaseId } fault { databaseId } }
} }`;
const ACK =
  'mutation($i: AcknowledgeDeviationInput!) { acknowledgeDeviation(input: $i) { deviation { id acknowledged comment acknowledgedByName acknowledgedBy { databaseId } } } }';
const REVIEW =
  'mutation($i: ReviewJobInput!) { reviewJob(input: $i) { job { state review { meaning signerName signedAt comment deviationsHash signer { databaseId } } } review { meaning } } }';

type Person = { id: number; token: string; password: string };

async function setup(jobInput: Record<string, unknown> = {}) {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const template = await publishedTemplate(server, client, DEVIATION_CONTENT, 'Pressure');
  const job = await createJob(server, client.owner.token, { templateId: template.templateId, ...jobInput });
  const person = async (roles: string[]): Promise<Person> => {
    const u = await buildUser(server, client, { roles });
    return { id: u.id, token: u.token!, password: u.password };
  };
  return {
    client,
    template,
    jobId: gid('Job', job.id),
    dbJobId: job.id as number,
    operator: await person(['operator']),
    reviewer: await person(['approver']),
    both: await person(['operator', 'approver']),
  };
}

const record = (
  who: Person | BuiltClient['owner'],
  jobId: string,
  stepId: string,
  status: string,
  values: unknown[] = [],
  comment?: string,
) => gql(server, who.token, RECORD, { i: { jobId, stepId, status, values, ...(comment && { comment }) } });
const list = (who: { token: string }, filter: Record<string, unknown>, first = 50, after?: string) =>
  gql(server, who.token, DEVIATIONS, { f: filter, first, after });
const ack = (who: { token: string }, deviationId: string, comment: string) => gql(server, who.token, ACK, { i: { deviationId, comment } });
const review = (who: Person, jobId: string, password = who.password, comment = 'All explained') =>
  gql(server, who.token, REVIEW, { i: { jobId, password, comment } });

deviations(
  'allowNotApplicable reads back; a reviewer may not mark a step not applicable; an operator marks it SKIPPED with a NOT_APPLICABLE deviation',
  async () => {
    const { client, jobId, operator, reviewer } = await setup();
    const read = await gql(
      server,
      client.owner.token,
      'query($id: ID!) { job(id: $id) { version { content { sections { steps { stepId allowNotApplicable } } } } } }',
      { id: jobId },
    );
    assert.equal(read.codes, [], JSON.stringify(read.errors));
    assert.equal(
      read.data.job.version.content.sections[0].steps.map((s: { allowNotApplicable: boolean }) => s.allowNotApplicable),
      [false, false, true, false],
    );

    // a reviewer does not run jobs
    assert.equal((await gql(server, reviewer.token, MARK, { i: { jobId, stepId: 'paint', reason: 'x' } })).codes, ['FORBIDDEN']);
    // nothing was written by the refusal
    assert.is((await list(client.owner, { jobId })).data.deviations.totalCount, 0);

    const marked = await gql(server, operator.token, MARK, { i: { jobId, stepId: 'paint', reason: 'Paint is intact' } });
    assert.equal(marked.codes, [], JSON.stringify(marked.errors));
    assert.is(marked.data.markStepNotApplicable.job.state, 'IN_PROGRESS');
    assert.equal(marked.data.markStepNotApplicable.job.records, [{ stepId: 'paint', status: 'SKIPPED', reason: 'Paint is intact' }]);
    const found = await list(client.owner, { jobId });
    assert.equal(found.codes, [], JSON.stringify(found.errors));
    assert.equal(
      found.data.deviations.nodes.map((d: any) => [d.kind, d.stepId, d.stepTitle, d.detail, d.raisedBy.databaseId, d.acknowledged]),
      [['NOT_APPLICABLE', 'paint', 'Touch up the paint', 'Paint is intact', operator.id, false]],
    );
  },
);

deviations('a fault raised on the job and a late completion are deviations too', async () => {
  const { jobId, dbJobId, operator, client } = await setup({ dueAt: '2020-01-01T00:00:00Z' });
  const fault = await gql(server, operator.token, 'mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { databaseId } } }', {
    i: { jobId, stepId: 'seal', description: 'Oil on the floor', severity: 'HIGH' },
  });
  assert.equal(fault.codes, [], JSON.stringify(fault.errors));
  assert.equal((await record(operator, jobId, 'paint', 'DONE', [{ key: 'colour', value: 'RAL 5010' }])).codes, []);
  assert.equal((await gql(server, operator.token, COMPLETE, { j: jobId })).codes, []);
  const nodes = (await list(client.owner, { jobId })).data.deviations.nodes;
  assert.equal(
    nodes.map((d: any) => d.kind),
    ['FAULT', 'LATE_COMPLETION'],
  );
  assert.is(nodes[0].fault.databaseId, fault.data.raiseFault.fault.databaseId);
  assert.is(nodes[0].stepTitle, 'Check the seal');
  assert.match(nodes[0].detail, /HIGH: Oil on the floor/);
  assert.is(nodes[1].job.databaseId, dbJobId);
  // the kind filter
  assert.equal(
    (await list(client.owner, { kind: 'FAULT' })).data.deviations.nodes.map((d: any) => d.kind),
    ['FAULT'],
  );
});

deviations(
  'acknowledging: reviewers only, with a comment, once; the reviewed filter; pages across jobs; another client sees none',
  async () => {
    const { jobId, operator, reviewer, client, template } = await setup();
    const second = gid('Job', (await createJob(server, client.owner.token, { templateId: template.templateId })).id);
    assert.equal((await record(operator, jobId, 'pressure', 'DONE', [{ key: 'bar', value: 0 }])).codes, []);
    assert.equal((await record(operator, second, 'pressure', 'DONE', [{ key: 'bar', value: 9 }])).codes, []);
    assert.equal((await record(operator, second, 'seal', 'FAILED')).codes, []);
    const all = (await list(reviewer, {})).data.deviations;
    assert.is(all.totalCount, 3);
    // across jobs, in id order, paged
    const page1 = (await list(reviewer, {}, 2)).data.deviations;
    assert.equal(page1.nodes.length, 2);
    assert.ok(page1.pageInfo.hasNextPage);
    const page2 = (await list(reviewer, {}, 2, page1.pageInfo.endCursor)).data.deviations;
    assert.equal(
      [...page1.nodes, ...page2.nodes].map((d: any) => d.id),
      all.nodes.map((d: any) => d.id),
    );
    const first = all.nodes[0];

    assert.equal((await ack(operator, first.id, 'fine')).codes, ['FORBIDDEN']);
    const empty = await ack(reviewer, first.id, '   ');
    assert.equal(empty.codes, ['VALIDATION_ERROR']);
    assert.equal(empty.errors![0].extensions!.details.fields[0].path, 'comment');
    const done = await ack(reviewer, first.id, 'Sensor drift, recalibrated');
    assert.equal(done.codes, [], JSON.stringify(done.errors));
    assert.equal(done.data.acknowledgeDeviation.deviation.acknowledged, true);
    assert.is(done.data.acknowledgeDeviation.deviation.comment, 'Sensor drift, recalibrated');
    assert.is(done.data.acknowledgeDeviation.deviation.acknowledgedBy.databaseId, reviewer.id);
    assert.ok(done.data.acknowledgeDeviation.deviation.acknowledgedByName.length > 0);
    assert.equal((await ack(reviewer, first.id, 'again')).codes, ['CONFLICT']);

    assert.equal(
      (await list(reviewer, { reviewed: true })).data.deviations.nodes.map((d: any) => d.id),
      [first.id],
    );
    assert.equal((await list(reviewer, { reviewed: false })).data.deviations.totalCount, 2);
    assert.equal(
      (await list(reviewer, { jobId: second, reviewed: false })).data.deviations.nodes.map((d: any) => d.kind),
      ['OUT_OF_LIMITS', 'STEP_FAILED'],
    );
    // time window: raised before 2000 → none; from 2000 → all
    assert.is((await list(reviewer, { to: '2000-01-01T00:00:00Z' })).data.deviations.totalCount, 0);
    assert.is((await list(reviewer, { from: '2000-01-01T00:00:00Z' })).data.deviations.totalCount, 3);

    const other = await buildClient(server);
    assert.is((await list(other.owner, {})).data.deviations.totalCount, 0);
    assert.equal((await ack(other.owner, first.id, 'mine?')).codes, ['NOT_FOUND']);
    const node = await gql(server, other.owner.token, 'query($id: ID!) { node(id: $id) { id } }', { id: first.id });
    assert.equal(node.codes, ['NOT_FOUND']);
    const own = await gql(server, reviewer.token, 'query($id: ID!) { node(id: $id) { ... on Deviation { kind comment } } }', {
      id: first.id,
    });
    assert.equal(own.data.node, { kind: 'OUT_OF_LIMITS', comment: 'Sensor drift, recalibrated' });
  },
);

deviations('reviewJob: a wrong password, no password, unacknowledged deviations; then REVIEWED with the signature', async () => {
  const { jobId, operator, reviewer, both, client } = await setup();
  assert.equal((await record(operator, jobId, 'pressure', 'DONE', [{ key: 'bar', value: 5 }], 'Relief valve stuck')).codes, []);
  assert.equal((await record(both, jobId, 'paint', 'DONE', [{ key: 'colour', value: 'RAL 5010' }])).codes, []);
  assert.equal((await gql(server, operator.token, COMPLETE, { j: jobId })).codes, []);

  assert.equal((await review(reviewer, jobId, 'not-the-password')).codes, ['INVALID_CREDENTIALS']);
  assert.equal((await gql(server, reviewer.token, REVIEW, { i: { jobId } })).codes, ['VALIDATION_ERROR'], 'no password nor code');
  const unacknowledged = await review(reviewer, jobId);
  assert.equal(unacknowledged.codes, ['COMMENT_REQUIRED']);
  const open = (await list(reviewer, { jobId, reviewed: false })).data.deviations.nodes;
  assert.equal(
    unacknowledged.errors![0].extensions!.details.deviationIds,
    open.map((d: any) => d.databaseId),
  );
  for (const d of open) assert.equal((await ack(reviewer, d.id, 'Valve replaced under work order 77')).codes, []);

  const reviewed = await review(reviewer, jobId);
  assert.equal(reviewed.codes, [], JSON.stringify(reviewed.errors));
  const job = reviewed.data.reviewJob.job;
  assert.is(job.state, 'REVIEWED');
  assert.is(job.review.meaning, 'REVIEWED');
  assert.is(job.review.signer.databaseId, reviewer.id);
  assert.is(job.review.comment, 'All explained');
  assert.match(job.review.deviationsHash, /^[0-9a-f]{64}$/);
  assert.ok(job.review.signerName.length > 0 && !Number.isNaN(Date.parse(job.review.signedAt)));

  assert.equal(
    (await gql(server, client.owner.token, 'query { jobs(filter: { state: REVIEWED }) { nodes { id } } }')).data.jobs.nodes.length,
    1,
  );
});

const BLOCK = `query($id: ID!) { job(id: $id) { viewerMayReview viewerReviewBlock { reason stepId stepTitle stepNumber part } } }`;
const blockOf = async (who: Person, jobId: string) => {
  const answer = await gql(server, who.token, BLOCK, { id: jobId });
  assert.equal(answer.codes, [], JSON.stringify(answer.errors));
  return answer.data.job;
};

deviations('Job.viewerReviewBlock says before signing what reviewJob refuses: role, state, a step the caller recorded', async () => {
  const { jobId, dbJobId, operator, reviewer, both } = await setup();
  assert.equal((await record(operator, jobId, 'pressure', 'DONE', [{ key: 'bar', value: 1.5 }])).codes, []);
  assert.equal((await record(both, jobId, 'paint', 'DONE', [{ key: 'colour', value: 'RAL 5010' }])).codes, []);
  assert.equal(await blockOf(reviewer, jobId), {
    viewerMayReview: false,
    viewerReviewBlock: { reason: 'NOT_COMPLETED', stepId: null, stepTitle: null, stepNumber: null, part: null },
  });
  assert.equal((await gql(server, operator.token, COMPLETE, { j: jobId })).codes, []);

  assert.equal((await blockOf(operator, jobId)).viewerReviewBlock.reason, 'NOT_A_REVIEWER');
  assert.equal((await review(operator, jobId)).codes, ['FORBIDDEN']);
  // the third step of the reading order, recorded by the operator-approver: the field and the refusal name the same step
  assert.equal(await blockOf(both, jobId), {
    viewerMayReview: false,
    viewerReviewBlock: { reason: 'TOOK_PART', stepId: 'paint', stepTitle: 'Touch up the paint', stepNumber: 3, part: 'RECORDED' },
  });
  const refused = await review(both, jobId);
  assert.equal(refused.codes, ['SEPARATION_OF_DUTIES']);
  assert.equal(refused.errors![0].extensions!.details, { jobId: dbJobId, stepId: 'paint', part: 'RECORDED' });

  assert.equal(await blockOf(reviewer, jobId), { viewerMayReview: true, viewerReviewBlock: null });
  // the same through the jobs connection (which reads only the columns its selection needs)
  const listed = await gql(
    server,
    both.token,
    'query { jobs(filter: { state: COMPLETED }) { nodes { viewerReviewBlock { reason stepNumber } } } }',
  );
  assert.equal(listed.data.jobs.nodes, [{ viewerReviewBlock: { reason: 'TOOK_PART', stepNumber: 3 } }]);
  assert.equal((await review(reviewer, jobId)).codes, [], 'no deviation: the reviewer signs');
  assert.equal((await blockOf(reviewer, jobId)).viewerReviewBlock.reason, 'NOT_COMPLETED', 'reviewed: nothing more to sign');
});

deviations('allowNotApplicable is part of the version diff', async () => {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const template = await publishedTemplate(server, client, DEVIATION_CONTENT, 'Diffed');
  const changed = structuredClone(DEVIATION_CONTENT) as any;
  changed.sections[0].steps[2].allowNotApplicable = false;
  changed.sections[0].steps[3].allowNotApplicable = true;
  const v2 = await publishNewVersion(server, client, template, changed);
  const diff = await gql(
    server,
    client.owner.token,
    'query($a: ID!, $b: ID!) { versionDiff(fromVersionId: $a, toVersionId: $b) { changed { stepId changedFields } } }',
    {
      a: gid('TemplateVersion', template.versionId),
      b: gid('TemplateVersion', v2),
    },
  );
  assert.equal(diff.codes, [], JSON.stringify(diff.errors));
  assert.equal(
    diff.data.versionDiff.changed.map((c: any) => [c.stepId, c.changedFields]),
    [
      ['paint', ['allowNotApplicable']],
      ['close', ['allowNotApplicable']],
    ],
  );
});

deviations.run();
