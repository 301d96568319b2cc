import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser } from '../helpers/factories';
import { gid, gql } from '../helpers/graphql';
import { createJob, publishedTemplate, DOMAIN_TEST_ENV } from '../helpers/domain';

/**
 * Qualifications told before the work: Job.viewerQualification and
 * Template.assigneeQualifications give the verdict of the gate that refuses
 * with NOT_QUALIFIED — the same skills, levels and reasons, overrides counted —
 * so the app can say "needs Welding, level 2" before an operator starts.
 */

let server: TestServer;
const checks = suite('GraphQL qualification checks before the work');
checks.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
checks.after(async () => server.stop());

const CONTENT = {
  qualifications: [{ skill: 'Welding', level: 2 }],
  sections: [{ id: 'main', title: 'Main', steps: [{ id: 'close', title: 'Close the cover', fields: [] }] }],
};

const VIEWER = `query($id: ID!) { node(id: $id) { ... on Job { viewerQualification {
  qualified overridden retrainingDue user { databaseId } lacking { skill requiredLevel heldLevel expiresAt reason } } } } }`;
const ASSIGNEES = `query($id: ID!, $users: [ID!]!) { node(id: $id) { ... on Template { assigneeQualifications(userIds: $users) {
  qualified overridden user { databaseId } lacking { skill requiredLevel heldLevel reason } } } } }`;
const GRANT = 'mutation($i: GrantSkillInput!) { grantSkill(input: $i) { userSkill { level } } }';
const START = 'mutation($j: ID!) { startJob(input: { jobId: $j }) { job { state } } }';

async function setup() {
  const client = await buildClient(server, { seats: { full: 30, connect: 20 } });
  const person = async (roles: string[]) => {
    const u = await buildUser(server, client, { roles });
    return { id: u.id, token: u.token! };
  };
  const supervisor = await person(['publisher']);
  const welder = await person(['operator']);
  const novice = await person(['operator']);
  const created = await gql(server, client.owner.token, 'mutation { createSkill(input: { name: "Welding", levels: 3 }) { skill { id } } }');
  const skillId: string = created.data.createSkill.skill.id;
  const grant = async (to: { id: number }, level: number) => {
    const granted = await gql(server, supervisor.token, GRANT, { i: { userId: gid('User', to.id), skillId, level } });
    assert.equal(granted.codes, [], JSON.stringify(granted.errors));
  };
  await grant(welder, 2);
  const template = await publishedTemplate(server, client, CONTENT, 'Flange welding');
  return { client, supervisor, welder, novice, grant, template };
}

const viewer = async (who: { token: string }, jobId: number) => {
  const answer = await gql(server, who.token, VIEWER, { id: gid('Job', jobId) });
  assert.equal(answer.codes, [], JSON.stringify(answer.errors));
  return answer.data.node.viewerQualification;
};

checks('Job.viewerQualification: the gate verdict before starting, in full; overridden, the start goes through', async () => {
  const { client, supervisor, novice, template } = await setup();
  const job = await createJob(server, client.owner.token, { templateId: template.templateId });

  const missing = await viewer(novice, job.id);
  assert.equal(missing, {
    qualified: false,
    overridden: false,
    retrainingDue: false,
    user: { databaseId: novice.id },
    lacking: [{ skill: 'Welding', requiredLevel: 2, heldLevel: null, expiresAt: null, reason: 'NOT_HELD' }],
  });
  // what the check says is what starting is refused for
  const refused = await gql(server, novice.token, START, { j: gid('Job', job.id) });
  assert.equal(refused.codes, ['NOT_QUALIFIED']);
  assert.equal(
    refused.errors![0].extensions!.details.skills.map((s: any) => [s.skill, s.requiredLevel, s.reason]),
    missing.lacking.map((s: any) => [s.skill, s.requiredLevel, s.reason]),
  );

  // the verdict's other reasons (too low, expired) and a template requiring nothing: test/services/qualifications.test.ts
  const overridden = await gql(
    server,
    supervisor.token,
    'mutation($i: OverrideQualificationInput!) { overrideQualification(input: $i) { override { reason } } }',
    { i: { userId: gid('User', novice.id), jobId: gid('Job', job.id), reason: 'Trained at the partner plant' } },
  );
  assert.equal(overridden.codes, [], JSON.stringify(overridden.errors));
  const covered = await viewer(novice, job.id);
  assert.equal([covered.qualified, covered.overridden, covered.lacking.length], [true, true, 1], 'still lacking, but overridden');
  assert.equal((await gql(server, novice.token, START, { j: gid('Job', job.id) })).codes, [], 'the override lets the novice start');
});

checks('Template.assigneeQualifications: who could be assigned, as createJob decides; refusals: role, too many, foreign ids', async () => {
  const { client, supervisor, welder, novice, template } = await setup();
  const foreign = await buildUser(server, await buildClient(server), { roles: ['operator'] });
  const ask = (token: string, users: number[]) =>
    gql(server, token, ASSIGNEES, { id: gid('Template', template.templateId), users: users.map((u) => gid('User', u)) });

  const answer = await ask(supervisor.token, [welder.id, novice.id, foreign.id]);
  assert.equal(answer.codes, [], JSON.stringify(answer.errors));
  assert.equal(answer.data.node.assigneeQualifications, [
    { qualified: true, overridden: false, user: { databaseId: welder.id }, lacking: [] },
    {
      qualified: false,
      overridden: false,
      user: { databaseId: novice.id },
      lacking: [{ skill: 'Welding', requiredLevel: 2, heldLevel: null, reason: 'NOT_HELD' }],
    },
  ]);
  const refused = await gql(server, supervisor.token, 'mutation($i: CreateJobInput!) { createJob(input: $i) { job { id } } }', {
    i: { templateId: gid('Template', template.templateId), title: 'Weld', assigneeIds: [gid('User', novice.id)] },
  });
  assert.equal(refused.codes, ['NOT_QUALIFIED'], 'createJob refuses whom the check names');

  const author = await buildUser(server, client, { roles: ['author'] });
  const forbidden = await ask(author.token!, [welder.id]);
  assert.equal(forbidden.codes, ['FORBIDDEN']);
  const many = await ask(
    supervisor.token,
    Array.from({ length: 51 }, (_, i) => i + 1),
  );
  assert.equal(many.codes, ['VALIDATION_ERROR']);
});

checks.run();
