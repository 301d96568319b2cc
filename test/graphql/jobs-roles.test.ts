import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser, type BuiltClient } from '../helpers/factories';
import { gid, gql } from '../helpers/graphql';
import { createJob, publishedTemplate, DOMAIN_TEST_ENV } from '../helpers/domain';
import { JOB_TRANSITIONS, rolesFor, type JobAction } from '#policies/transitions';
import { PERMISSIONS } from '#policies/permissions';
import { ROLES } from '#policies/roles';
import type { JobState } from '#db/schema';

// Who may do what on a job, derived from the same tables the services apply:
// a role added to JOB_TRANSITIONS or DOMAIN_PERMISSIONS changes these expectations.

let server: TestServer;
let client: BuiltClient;
let templateId: number;
const tokens = new Map<string, string>();
const passwords = new Map<string, string>();
const roles = suite('GraphQL job transitions per role (from JOB_TRANSITIONS)');
roles.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
  client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  // no required fields: completion depends on the role alone
  ({ templateId } = await publishedTemplate(server, client, { sections: [{ title: 'Only', steps: [{ id: 'look', title: 'Look' }] }] }));
  for (const role of ROLES) {
    const user = await buildUser(server, client, { roles: [role] });
    tokens.set(role, user.token!);
    passwords.set(role, user.password);
  }
});
roles.after(async () => server.stop());

const MUTATION: Record<JobAction, string> = {
  start: 'mutation($j: ID!) { r: startJob(input: { jobId: $j }) { job { state } }}',
  pause: 'mutation($j: ID!) { r: pauseJob(input: { jobId: $j }) { job { state } }}',
  resume: 'mutation($j: ID!) { r: resumeJob(input: { jobId: $j }) { job { state } }}',
  complete: 'mutation($j: ID!) { r: completeJob(input: { jobId: $j }) { job { state } }}',
  cancel: 'mutation($j: ID!) { r: cancelJob(input: { jobId: $j, reason: "test" }) { job { state } }}',
  // an e-signature: the caller's password ($p)
  review: 'mutation($j: ID!, $p: String) { r: reviewJob(input: { jobId: $j, password: $p }) { job { state } }}',
};

/** A job of the client (created and driven by the owner, an admin) in `state`. */
async function jobIn(state: JobState): Promise<number> {
  const job = await createJob(server, client.owner.token, { templateId });
  const path: Partial<Record<JobState, JobAction[]>> = {
    OPEN: [],
    IN_PROGRESS: ['start'],
    PAUSED: ['start', 'pause'],
    COMPLETED: ['start', 'complete'],
    CANCELLED: ['cancel'],
    REVIEWED: ['start', 'complete', 'review'],
  };
  for (const action of path[state]!)
    assert.equal(
      (
        await gql(server, client.owner.token, MUTATION[action], {
          j: gid('Job', job.id),
          ...(action === 'review' && { p: client.owner.password }),
        })
      ).codes,
      [],
    );
  return job.id;
}

const ALL_STATES: JobState[] = ['OPEN', 'IN_PROGRESS', 'PAUSED', 'COMPLETED', 'CANCELLED', 'REVIEWED'];

for (const row of JOB_TRANSITIONS) {
  const allowed = rolesFor(JOB_TRANSITIONS, row.action);
  roles(`${row.action}: ${row.from.join('/')} → ${row.to} for ${allowed.join(', ')}; FORBIDDEN for the other roles`, async () => {
    for (const role of ROLES) {
      const jobId = await jobIn(row.from[0]);
      const result = await gql(server, tokens.get(role), MUTATION[row.action], {
        j: gid('Job', jobId),
        ...(row.action === 'review' && { p: passwords.get(role) }),
      });
      if (allowed.includes(role)) {
        assert.equal(result.codes, [], `${role} ${row.action}: ${JSON.stringify(result.errors)}`);
        assert.is(result.data.r.job.state, row.to);
      } else {
        assert.equal(result.codes, ['FORBIDDEN'], `${role} ${row.action}`);
      }
    }
  });

  roles(`${row.action} from any other state → INVALID_TRANSITION`, async () => {
    for (const state of ALL_STATES.filter((s) => !row.from.includes(s))) {
      const jobId = await jobIn(state);
      const result = await gql(server, tokens.get(allowed[0]), MUTATION[row.action], {
        j: gid('Job', jobId),
        ...(row.action === 'review' && { p: passwords.get(allowed[0]) }),
      });
      assert.equal(result.codes, ['INVALID_TRANSITION'], `${row.action} from ${state}`);
      assert.equal(result.errors![0].extensions!.details.allowedFrom, row.from);
    }
  });
}

roles(
  `createJob for ${PERMISSIONS.createJob.join(', ')}; recordStep and raiseFault for ${PERMISSIONS.runJob.join(', ')}; FORBIDDEN otherwise`,
  async () => {
    for (const role of ROLES) {
      const created = await gql(
        server,
        tokens.get(role),
        'mutation($i: CreateJobInput!) { createJob(input: $i) { job { id: databaseId } }}',
        { i: { templateId: gid('Template', templateId), title: role } },
      );
      assert.equal(created.codes, (PERMISSIONS.createJob as readonly string[]).includes(role) ? [] : ['FORBIDDEN'], `createJob by ${role}`);
      const jobId = await jobIn('OPEN');
      const runs = (PERMISSIONS.runJob as readonly string[]).includes(role);
      const recorded = await gql(server, tokens.get(role), 'mutation($i: RecordStepInput!) { recordStep(input: $i) { job { state } }}', {
        i: { jobId: gid('Job', jobId), stepId: 'look', status: 'DONE' },
      });
      assert.equal(recorded.codes, runs ? [] : ['FORBIDDEN'], `recordStep by ${role}`);
      const fault = await gql(
        server,
        tokens.get(role),
        'mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { id: databaseId } }}',
        { i: { jobId: gid('Job', jobId), description: 'x', severity: 'LOW' } },
      );
      assert.equal(fault.codes, runs ? [] : ['FORBIDDEN'], `raiseFault by ${role}`);
    }
  },
);

roles('every role of the client reads jobs', async () => {
  const jobId = await jobIn('OPEN');
  for (const role of ROLES) {
    const result = await gql(server, tokens.get(role), 'query($id: ID!) { job(id: $id) { id: databaseId } }', { id: gid('Job', jobId) });
    assert.equal(result.codes, [], role);
    assert.is(result.data.job.id, jobId);
  }
});

roles.run();
