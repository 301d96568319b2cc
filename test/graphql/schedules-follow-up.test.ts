import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tenantScope } from '#db/tenant';
import { listAuditEntries, verifyAuditChain } from '#repos/audit';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser } from '../helpers/factories';
import { gid, gql } from '../helpers/graphql';
import { createAsset, createJob, DOMAIN_TEST_ENV, publishedTemplate } from '../helpers/domain';

// Follow-up jobs (docs/recurring-and-follow-up-jobs.md): from a fault or a FAILED step, linked both
// ways, and closing the fault when completed if asked to.

let server: TestServer;
const followUps = suite('GraphQL createFollowUpJob: from a fault or a failed step, linked both ways, closing the fault');
followUps.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
followUps.after(async () => server.stop());

const CONTENT = {
  sections: [
    { id: 's', title: 'Run', steps: [{ id: 'seal', title: 'Check the seal', fields: [{ key: 'note', label: 'Note', type: 'TEXT' }] }] },
  ],
};
const REPAIR = {
  sections: [
    { id: 'r', title: 'Repair', steps: [{ id: 'fix', title: 'Replace the seal', fields: [{ key: 'done', label: 'Done', type: 'TEXT' }] }] },
  ],
};
const FOLLOW_UP = `mutation($i: CreateFollowUpJobInput!) { createFollowUpJob(input: $i) { revision fault { id databaseId state followUpJobs { databaseId } } job { id databaseId title state priority asset { databaseId } template { databaseId } closesFault followUpOf { databaseId state } assignees { databaseId } } } }`;

function ok<T = any>(result: { data: any; errors?: unknown; codes: string[] }, what: string): T {
  assert.equal(result.codes, [], `${what}: ${JSON.stringify(result.errors)}`);
  return result.data;
}

async function setup() {
  const client = await buildClient(server, { seats: { full: 10, connect: 5 } });
  const inspection = await publishedTemplate(server, client, CONTENT, 'Inspection');
  const repair = await publishedTemplate(server, client, REPAIR, 'Seal repair');
  const operator = await buildUser(server, client, { roles: ['operator'] });
  const asset = await createAsset(server, client.owner.token, 'Pump 3');
  const job = await createJob(server, client.owner.token, { templateId: inspection.templateId, assetId: asset });
  return { client, inspection, repair, operator: { id: operator.id, token: operator.token! }, asset, job };
}

async function raiseFault(token: string, jobId: number, description: string) {
  const data = ok(
    await gql(server, token, 'mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { id databaseId } } }', {
      i: { jobId: gid('Job', jobId), stepId: 'seal', description, severity: 'HIGH' },
    }),
    'raiseFault',
  );
  return data.raiseFault.fault;
}

followUps(
  "a follow-up job from a fault: the fault's asset and a title by default, linked both ways; completing it closes the fault",
  async () => {
    const { client, repair, operator, asset, job } = await setup();
    const fault = await raiseFault(operator.token, job.id, 'Seal leaks');
    const created = ok(
      await gql(server, operator.token, FOLLOW_UP, {
        i: {
          faultId: fault.id,
          templateId: gid('Template', repair.templateId),
          closesFault: true,
          priority: 'HIGH',
          assigneeIds: [gid('User', operator.id)],
        },
      }),
      'createFollowUpJob',
    ).createFollowUpJob;
    const followUp = created.job;
    assert.is(followUp.title, 'Follow-up: Seal leaks');
    assert.is(followUp.asset.databaseId, asset);
    assert.is(followUp.template.databaseId, repair.templateId);
    assert.is(followUp.priority, 'HIGH');
    assert.is(followUp.closesFault, true);
    assert.equal(followUp.followUpOf, { databaseId: fault.databaseId, state: 'OPEN' });
    assert.equal(created.fault.followUpJobs, [{ databaseId: followUp.databaseId }]);
    // read back from the fault's side, as another user of the client
    const read = ok(
      await gql(
        server,
        client.owner.token,
        'query($j: ID!) { faults(jobId: $j) { nodes { databaseId followUpJobs { databaseId title } } } }',
        { j: gid('Job', job.id) },
      ),
      'faults',
    );
    assert.equal(read.faults.nodes, [
      { databaseId: fault.databaseId, followUpJobs: [{ databaseId: followUp.databaseId, title: 'Follow-up: Seal leaks' }] },
    ]);

    ok(
      await gql(server, operator.token, 'mutation($j: ID!) { startJob(input: { jobId: $j }) { job { state } } }', { j: followUp.id }),
      'startJob',
    );
    ok(
      await gql(server, operator.token, 'mutation($j: ID!) { completeJob(input: { jobId: $j }) { job { state } } }', { j: followUp.id }),
      'completeJob',
    );
    const closed = ok(
      await gql(server, operator.token, 'query($f: ID!) { node(id: $f) { ... on Fault { state closeNote closedBy { databaseId } } } }', {
        f: fault.id,
      }),
      'fault',
    );
    assert.is(closed.node.state, 'CLOSED');
    assert.is(closed.node.closedBy.databaseId, operator.id);
    assert.match(closed.node.closeNote, `follow-up job ${followUp.databaseId}`);

    const audit = await listAuditEntries(
      server.deps.db.kysely,
      tenantScope(client.id),
      { entityType: 'fault', entityId: String(fault.databaseId) },
      { limit: 20 },
    );
    assert.equal(
      audit.items.map((e) => e.action),
      ['fault.raised', 'fault.follow_up_created', 'fault.closed'],
    );
    assert.is((await verifyAuditChain(server.deps.db.kysely, client.id)).broken, null);

    // a closed fault takes no more follow-ups
    const again = await gql(server, operator.token, FOLLOW_UP, {
      i: { faultId: fault.id, templateId: gid('Template', repair.templateId) },
    });
    assert.equal(again.codes, ['INVALID_TRANSITION']);
  },
);

followUps('without closesFault completing the follow-up job leaves the fault open', async () => {
  const { repair, operator, job } = await setup();
  const fault = await raiseFault(operator.token, job.id, 'Scratch on the housing');
  const followUp = ok(
    await gql(server, operator.token, FOLLOW_UP, {
      i: { faultId: fault.id, templateId: gid('Template', repair.templateId), title: 'Polish' },
    }),
    'follow-up',
  ).createFollowUpJob.job;
  assert.is(followUp.title, 'Polish');
  assert.is(followUp.closesFault, false);
  ok(
    await gql(server, operator.token, 'mutation($j: ID!) { startJob(input: { jobId: $j }) { job { state } } }', { j: followUp.id }),
    'startJob',
  );
  ok(
    await gql(server, operator.token, 'mutation($j: ID!) { completeJob(input: { jobId: $j }) { job { state } } }', { j: followUp.id }),
    'completeJob',
  );
  const still = ok(
    await gql(server, operator.token, 'query($f: ID!) { node(id: $f) { ... on Fault { state } } }', { f: fault.id }),
    'fault',
  );
  assert.is(still.node.state, 'OPEN');
});

followUps('from a FAILED step: a fault is raised for it (or its open one taken), and linked; a step not FAILED is refused', async () => {
  const { repair, operator, job } = await setup();
  const notFailed = await gql(server, operator.token, FOLLOW_UP, {
    i: { failedStep: { jobId: gid('Job', job.id), stepId: 'seal' }, templateId: gid('Template', repair.templateId) },
  });
  assert.equal(notFailed.codes, ['VALIDATION_ERROR']);
  ok(
    await gql(server, operator.token, 'mutation($i: RecordStepInput!) { recordStep(input: $i) { revision } }', {
      i: { jobId: gid('Job', job.id), stepId: 'seal', status: 'FAILED' },
    }),
    'recordStep',
  );
  const first = ok(
    await gql(server, operator.token, FOLLOW_UP, {
      i: { failedStep: { jobId: gid('Job', job.id), stepId: 'seal' }, templateId: gid('Template', repair.templateId) },
    }),
    'follow-up',
  ).createFollowUpJob;
  assert.is(first.fault.state, 'OPEN');
  assert.match(first.job.title, 'Check the seal');
  assert.equal(first.job.followUpOf.databaseId, first.fault.databaseId);
  const faults = ok(
    await gql(server, operator.token, 'query($j: ID!) { faults(jobId: $j) { nodes { databaseId stepId followUpJobs { databaseId } } } }', {
      j: gid('Job', job.id),
    }),
    'faults',
  );
  assert.equal(faults.faults.nodes, [
    { databaseId: first.fault.databaseId, stepId: 'seal', followUpJobs: [{ databaseId: first.job.databaseId }] },
  ]);
  // a second follow-up of the same failed step joins its open fault instead of raising another
  const second = ok(
    await gql(server, operator.token, FOLLOW_UP, {
      i: { failedStep: { jobId: gid('Job', job.id), stepId: 'seal' }, templateId: gid('Template', repair.templateId) },
    }),
    'follow-up',
  ).createFollowUpJob;
  assert.is(second.fault.databaseId, first.fault.databaseId);
  assert.equal(
    second.fault.followUpJobs.map((j: any) => j.databaseId),
    [first.job.databaseId, second.job.databaseId],
  );
});

followUps(
  "refusals: neither or both of a fault and a step, another client's fault, a template without a published version, a role that may not plan work",
  async () => {
    const { client, repair, operator, job } = await setup();
    const fault = await raiseFault(operator.token, job.id, 'Loose bolt');
    const template = gid('Template', repair.templateId);
    const neither = await gql(server, operator.token, FOLLOW_UP, { i: { templateId: template } });
    assert.equal(neither.codes, ['VALIDATION_ERROR']);
    const both = await gql(server, operator.token, FOLLOW_UP, {
      i: { templateId: template, faultId: fault.id, failedStep: { jobId: gid('Job', job.id), stepId: 'seal' } },
    });
    assert.equal(both.codes, ['VALIDATION_ERROR']);
    const other = await buildClient(server);
    const foreign = await gql(server, other.owner.token, FOLLOW_UP, { i: { templateId: template, faultId: fault.id } });
    assert.equal(foreign.codes, ['NOT_FOUND']);
    const draft = ok(
      await gql(server, client.owner.token, 'mutation($i: CreateTemplateInput!) { createTemplate(input: $i) { template { id } } }', {
        i: { title: 'Draft only', content: { sections: [] } },
      }),
      'draft',
    );
    const unpublished = await gql(server, operator.token, FOLLOW_UP, {
      i: { templateId: draft.createTemplate.template.id, faultId: fault.id },
    });
    assert.equal(unpublished.codes, ['NO_PUBLISHED_VERSION']);
    const viewer = await buildUser(server, client, { roles: ['viewer'] });
    const asViewer = await gql(server, viewer.token, FOLLOW_UP, { i: { templateId: template, faultId: fault.id } });
    assert.equal(asViewer.codes, ['FORBIDDEN']);
    // nothing was created by the refusals
    const links = ok(
      await gql(server, operator.token, 'query($f: ID!) { node(id: $f) { ... on Fault { followUpJobs { databaseId } } } }', {
        f: fault.id,
      }),
      'fault',
    );
    assert.equal(links.node.followUpJobs, []);
  },
);

followUps.run();
