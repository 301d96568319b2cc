import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser, type BuiltClient } from '../helpers/factories';
import { gid, gql } from '../helpers/graphql';
import { contentInput, createJob, publishedTemplate, publishNewVersion, DOMAIN_TEST_ENV } from '../helpers/domain';

/**
 * Qualifications (docs/qualifications.md) through real HTTP: what
 * each operation answers and who may call it — skills and grants with the
 * trainer's e-signature, NOT_QUALIFIED with its details (GraphQL and REST),
 * overrides, retraining and its acknowledgement, the matrix and the expiring
 * skills. The rules themselves (the gate on every door, expiry, what an
 * override covers, when retraining is due): test/services/qualifications.test.ts.
 */

let server: TestServer;
const skills = suite('GraphQL qualifications: skills, NOT_QUALIFIED, overrides, retraining, the matrix');
skills.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
skills.after(async () => server.stop());

const DAY = 86_400_000;

const CONTENT = {
  qualifications: [{ skill: 'Welding', level: 2 }],
  sections: [
    {
      id: 'main',
      title: 'Main',
      steps: [
        {
          id: 'weld',
          title: 'Weld the flange',
          fields: [{ key: 'ok', type: 'PASS_FAIL', required: true }],
          signoff: { performer: true, skills: [{ skill: 'Welding', level: 3 }] },
        },
        { id: 'close', title: 'Close the cover', fields: [] },
      ],
    },
  ],
};

const CHANGED = {
  ...CONTENT,
  sections: [{ ...CONTENT.sections[0], steps: [...CONTENT.sections[0].steps, { id: 'clean', title: 'Clean the seam', fields: [] }] }],
};

type Person = { id: number; token: string; password: string };

const CREATE_SKILL = 'mutation($i: CreateSkillInput!) { createSkill(input: $i) { skill { id databaseId name levels validityDays } } }';
const GRANT =
  'mutation($i: GrantSkillInput!) { grantSkill(input: $i) { userSkill { level expiresAt expired trainerName trainedAt trainedBy { databaseId } grantedBy { databaseId } skill { name } user { databaseId } } } }';
const REVOKE = 'mutation($i: RevokeSkillInput!) { revokeSkill(input: $i) { revoked { level skill { name } } } }';
const OVERRIDE =
  'mutation($i: OverrideQualificationInput!) { overrideQualification(input: $i) { override { reason lacking overriddenByName user { databaseId } job { databaseId } version { databaseId } } } }';
const RECORD = 'mutation($i: RecordStepInput!) { recordStep(input: $i) { job { state } } }';
const ACK =
  'mutation($v: ID!) { acknowledgeRetraining(input: { versionId: $v }) { retraining { acknowledgedAt dueSince version { databaseId } previousVersion { databaseId } } } }';

async function setup(): Promise<{
  client: BuiltClient;
  supervisor: Person;
  welder: Person;
  novice: Person;
  skillId: string;
  template: Awaited<ReturnType<typeof publishedTemplate>>;
}> {
  const client = await buildClient(server, { seats: { full: 30, connect: 20 } });
  const person = async (roles: string[]): Promise<Person> => {
    const u = await buildUser(server, client, { roles });
    return { id: u.id, token: u.token!, password: u.password };
  };
  const supervisor = await person(['publisher']);
  const created = await gql(server, client.owner.token, CREATE_SKILL, { i: { name: 'Welding', description: 'TIG', levels: 3 } });
  assert.equal(created.codes, [], JSON.stringify(created.errors));
  const skillId: string = created.data.createSkill.skill.id;
  const welder = await person(['operator']);
  const novice = await person(['operator']);
  await grant(supervisor, welder, skillId, 2);
  const template = await publishedTemplate(server, client, CONTENT, 'Flange welding');
  return { client, supervisor, welder, novice, skillId, template };
}

async function grant(
  by: Person | { token: string },
  to: { id: number },
  skillId: string,
  level: number,
  extra: Record<string, unknown> = {},
) {
  const result = await gql(server, by.token, GRANT, { i: { userId: gid('User', to.id), skillId, level, ...extra } });
  assert.equal(result.codes, [], JSON.stringify(result.errors));
  return result.data.grantSkill.userSkill;
}

const record = (who: Person, jobId: number | string, stepId = 'close') =>
  gql(server, who.token, RECORD, {
    i: {
      jobId: typeof jobId === 'string' ? jobId : gid('Job', jobId),
      stepId,
      status: 'DONE',
      values: stepId === 'weld' ? [{ key: 'ok', value: 'PASS' }] : [],
    },
  });
const details = (result: { errors?: { extensions?: { details?: any } }[] }) => result.errors![0].extensions!.details;

skills(
  'createSkill, grantSkill (signed as trainer), mySkills, revokeSkill: their answers; an operator does not grant, a supervisor does not define skills',
  async () => {
    const { client, supervisor, welder, novice, skillId } = await setup();
    const listed = await gql(
      server,
      novice.token,
      'query { skills(first: 10) { totalCount nodes { name levels validityDays description } } }',
    );
    assert.equal(listed.data.skills, { totalCount: 1, nodes: [{ name: 'Welding', levels: 3, validityDays: null, description: 'TIG' }] });

    const signed = await grant(supervisor, novice, skillId, 1, { password: supervisor.password });
    assert.is(signed.level, 1);
    assert.ok(signed.trainerName.length > 0);
    assert.ok(signed.trainedAt);
    assert.is(signed.trainedBy.databaseId, supervisor.id);
    assert.is(signed.grantedBy.databaseId, supervisor.id);
    assert.is(signed.expiresAt, null);
    assert.equal(signed.skill, { name: 'Welding' });
    assert.equal(signed.user, { databaseId: novice.id });

    const mine = await gql(server, novice.token, 'query { mySkills { skill { name } level expired } }');
    assert.equal(mine.data.mySkills, [{ skill: { name: 'Welding' }, level: 1, expired: false }]);

    const tries = async (who: Person | { token: string }, input: Record<string, unknown>) =>
      (await gql(server, who.token, GRANT, { i: { userId: gid('User', novice.id), skillId, level: 1, ...input } })).codes;
    assert.equal(await tries(welder, {}), ['FORBIDDEN'], 'an operator does not grant');
    assert.equal(await tries(supervisor, { skillId: gid('Skill', 999999) }), ['NOT_FOUND']);
    assert.equal(
      (await gql(server, supervisor.token, CREATE_SKILL, { i: { name: 'Rigging' } })).codes,
      ['FORBIDDEN'],
      'a supervisor grants; admins define skills',
    );
    const rigging = await gql(server, client.owner.token, CREATE_SKILL, { i: { name: 'Rigging', validityDays: 10 } });
    const { name, levels, validityDays } = rigging.data.createSkill.skill;
    assert.equal([name, levels, validityDays], ['Rigging', 1, 10]);

    const revoked = await gql(server, supervisor.token, REVOKE, { i: { userId: gid('User', novice.id), skillId } });
    assert.equal(revoked.data.revokeSkill.revoked, { level: 1, skill: { name: 'Welding' } });
    assert.equal((await gql(server, welder.token, REVOKE, { i: { userId: gid('User', novice.id), skillId } })).codes, ['FORBIDDEN']);
  },
);

skills('the version carries its qualifications (read back); NOT_QUALIFIED in GraphQL carries its details in the extensions', async () => {
  const { client, welder, novice, template } = await setup();
  const read = await gql(
    server,
    welder.token,
    'query($id: ID!) { templateVersion(id: $id) { content { qualifications { skill level } sections { steps { signoff { skills { skill level } } } } } } }',
    { id: gid('TemplateVersion', template.versionId) },
  );
  assert.equal(read.codes, [], JSON.stringify(read.errors));
  assert.equal(read.data.templateVersion.content.qualifications, [{ skill: 'Welding', level: 2 }]);
  assert.equal(read.data.templateVersion.content.sections[0].steps[0].signoff.skills, [{ skill: 'Welding', level: 3 }]);

  // assign: the novice holds nothing
  const assigned = await gql(server, client.owner.token, 'mutation($i: CreateJobInput!) { createJob(input: $i) { job { databaseId } } }', {
    i: {
      templateId: gid('Template', template.templateId),
      title: 'Weld',
      assigneeIds: [gid('User', welder.id), gid('User', novice.id)],
    },
  });
  assert.equal(assigned.codes, ['NOT_QUALIFIED']);
  assert.equal(details(assigned), {
    userId: novice.id,
    action: 'assign',
    jobId: null,
    retrainingDue: [],
    skills: [{ skill: 'Welding', requiredLevel: 2, heldLevel: null, expiresAt: null, reason: 'NOT_HELD' }],
  });
});

skills('NOT_QUALIFIED over REST: a hand-off accepted by someone unqualified is 403 with the details', async () => {
  const { client, welder, novice, template } = await setup();
  const job = await createJob(server, client.owner.token, { templateId: template.templateId, assigneeIds: [welder.id] });

  // the welder hands the job to the novice, who may not accept it
  const offered = await server.request('POST', '/api/client/workingTogether', {
    token: welder.token,
    body: { action: 'HAND_OFF', jobId: job.id, toUserId: novice.id },
  });
  assert.is(offered.status, 200, offered.text);
  const accepted = await server.request('POST', '/api/client/workingTogether', {
    token: novice.token,
    body: { action: 'ACCEPT', jobId: job.id, handOffId: offered.body.data.handOff.id },
  });
  assert.is(accepted.status, 403, accepted.text);
  assert.is(accepted.body.error.code, 'NOT_QUALIFIED');
  assert.is(accepted.body.error.details.action, 'accept');
  assert.is(accepted.body.error.details.skills[0].reason, 'NOT_HELD');
});

skills(
  'overrideQualification by job and by template: its answer, the job and recent overrides, the deviation; refused without the right or a reason',
  async () => {
    const { client, supervisor, welder, novice, template } = await setup();
    const job = await createJob(server, client.owner.token, { templateId: template.templateId });
    const input = { userId: gid('User', novice.id), jobId: gid('Job', job.id), reason: 'Certified at the partner plant, papers on file' };
    assert.equal((await gql(server, welder.token, OVERRIDE, { i: input })).codes, ['FORBIDDEN'], 'an operator has no override right');
    assert.equal(
      (await gql(server, supervisor.token, OVERRIDE, { i: { ...input, reason: '  ' } })).codes,
      ['VALIDATION_ERROR'],
      'a reason is required',
    );
    const overridden = await gql(server, supervisor.token, OVERRIDE, { i: input });
    assert.equal(overridden.codes, [], JSON.stringify(overridden.errors));
    const override = overridden.data.overrideQualification.override;
    assert.equal(
      { user: override.user.databaseId, job: override.job.databaseId, reason: override.reason, version: override.version.databaseId },
      { user: novice.id, job: job.id, reason: input.reason, version: template.versionId },
    );
    assert.ok(override.overriddenByName);
    assert.equal(
      override.lacking.skills.map((s: { reason: string }) => s.reason),
      ['NOT_HELD'],
    );
    assert.equal((await record(novice, job.id)).codes, [], 'the override lets the novice record');

    // by template: assigning a new job of the published version
    const byTemplate = await gql(server, client.owner.token, OVERRIDE, {
      i: { userId: gid('User', novice.id), templateId: gid('Template', template.templateId), reason: 'Supervised by the welder' },
    });
    assert.equal(byTemplate.codes, [], JSON.stringify(byTemplate.errors));
    assert.is(byTemplate.data.overrideQualification.override.job, null);
    assert.is(byTemplate.data.overrideQualification.override.version.databaseId, template.versionId);
    const created = await gql(server, client.owner.token, 'mutation($i: CreateJobInput!) { createJob(input: $i) { job { databaseId } } }', {
      i: { templateId: gid('Template', template.templateId), title: 'Weld', assigneeIds: [gid('User', novice.id)] },
    });
    assert.equal(created.codes, [], JSON.stringify(created.errors));
    const createdId = created.data.createJob.job.databaseId;

    const onJob = await gql(
      server,
      supervisor.token,
      'query($id: ID!) { job(id: $id) { qualificationOverrides { reason user { databaseId } } } }',
      { id: gid('Job', createdId) },
    );
    assert.equal(onJob.data.job.qualificationOverrides, [{ reason: 'Supervised by the welder', user: { databaseId: novice.id } }]);
    const recent = await gql(server, supervisor.token, 'query { qualificationOverrides(days: 7) { reason } }');
    assert.equal(
      recent.data.qualificationOverrides.map((o: { reason: string }) => o.reason),
      ['Supervised by the welder', input.reason],
    );
    assert.equal((await gql(server, welder.token, 'query { qualificationOverrides { reason } }')).codes, ['FORBIDDEN']);
    // the job's override is one of its deviations, for the reviewer to acknowledge (docs/execution-rules.md)
    const deviations = await gql(
      server,
      supervisor.token,
      'query($j: ID!) { deviations(filter: { jobId: $j, kind: OVERRIDE }) { nodes { kind detail } } }',
      { j: gid('Job', job.id) },
    );
    assert.equal(deviations.codes, [], JSON.stringify(deviations.errors));
    assert.equal(
      deviations.data.deviations.nodes.map((d: { kind: string }) => d.kind),
      ['OVERRIDE'],
    );
  },
);

skills('a supervisor holding exactly operator + approver overrides (a signed deviation); author and user_admin may not', async () => {
  const { client, novice, template } = await setup();
  const shiftLead = await buildUser(server, client, { roles: ['operator', 'approver'] });
  const job = await createJob(server, shiftLead.token!, { templateId: template.templateId });
  const input = { userId: gid('User', novice.id), jobId: gid('Job', job.id), reason: 'Shadowed by the shift lead' };
  for (const roles of [['author'], ['user_admin'], ['operator']]) {
    const other = await buildUser(server, client, { roles });
    assert.equal((await gql(server, other.token, OVERRIDE, { i: input })).codes, ['FORBIDDEN'], roles.join('+'));
  }
  const overridden = await gql(server, shiftLead.token, OVERRIDE, { i: input });
  assert.equal(overridden.codes, [], JSON.stringify(overridden.errors));
  assert.is(overridden.data.overrideQualification.override.reason, input.reason);
  assert.equal((await record(novice, job.id)).codes, [], 'the override lets the novice record');
});

skills('myRetrainings and acknowledgeRetraining: what is due after a changed version is published, and its acknowledgement', async () => {
  const { client, welder, novice, template } = await setup();
  const versionId = await publishNewVersion(server, client, template, CHANGED);
  const due = await gql(
    server,
    welder.token,
    'query { myRetrainings { version { databaseId } previousVersion { databaseId } acknowledgedAt dueSince } }',
  );
  assert.equal(due.codes, [], JSON.stringify(due.errors));
  const [retraining, ...more] = due.data.myRetrainings;
  assert.equal(more, []);
  assert.equal(
    [retraining.version, retraining.previousVersion, retraining.acknowledgedAt, typeof retraining.dueSince],
    [{ databaseId: versionId }, { databaseId: template.versionId }, null, 'string'],
  );
  assert.equal((await gql(server, novice.token, ACK, { v: gid('TemplateVersion', versionId) })).codes, ['NOT_FOUND']);
  const acked = await gql(server, welder.token, ACK, { v: gid('TemplateVersion', versionId) });
  assert.equal(acked.codes, [], JSON.stringify(acked.errors));
  const answer = acked.data.acknowledgeRetraining.retraining;
  assert.ok(answer.acknowledgedAt);
  assert.equal(
    [answer.dueSince, answer.version, answer.previousVersion],
    [retraining.dueSince, { databaseId: versionId }, { databaseId: template.versionId }],
  );
  assert.equal((await record(welder, (await createJob(server, client.owner.token, { templateId: template.templateId })).id)).codes, []);
});

skills('a requirement change is in the diff; duplicate skills and skills on an unsigned sign-off are refused at draft save', async () => {
  const { client, template } = await setup();
  const draft = await gql(server, client.owner.token, 'mutation($t: ID!) { createDraft(input: { templateId: $t }) { version { id } } }', {
    t: gid('Template', template.templateId),
  });
  const versionId = draft.data.createDraft.version.id;
  const save = (content: unknown) =>
    gql(
      server,
      client.owner.token,
      'mutation($v: ID!, $c: ContentInput!) { updateDraft(input: { versionId: $v, content: $c }) { version { id } } }',
      { v: versionId, c: contentInput(content) },
    );
  const duplicate = await save({ ...CONTENT, qualifications: [{ skill: 'Welding' }, { skill: 'Welding', level: 3 }] });
  assert.equal(duplicate.codes, ['VALIDATION_ERROR']);
  assert.equal(
    details(duplicate).fields.map((f: { path: string }) => f.path),
    ['content.qualifications.1.skill'],
  );
  const unsigned = await save({
    sections: [{ id: 'main', title: 'Main', steps: [{ id: 'weld', title: 'Weld', signoff: { skills: [{ skill: 'Welding' }] } }] }],
  });
  assert.equal(unsigned.codes, ['VALIDATION_ERROR']);
  assert.equal(
    details(unsigned).fields.map((f: { path: string }) => f.path),
    ['content.sections.0.steps.0.signoff.skills'],
  );
  assert.equal((await save({ ...CONTENT, qualifications: [{ skill: 'Welding', level: 3 }] })).codes, []);
  const diff = await gql(
    server,
    client.owner.token,
    'query($a: ID!, $b: ID!) { versionDiff(fromVersionId: $a, toVersionId: $b) { changed { stepId } qualificationsChanged } }',
    { a: gid('TemplateVersion', template.versionId), b: versionId },
  );
  assert.equal(diff.data.versionDiff, { changed: [], qualificationsChanged: true });
});

skills('skillMatrix: users × skills with level and expiry, a Relay connection; expiringSkills; only for supervisors', async () => {
  const { client, supervisor, welder, novice, skillId } = await setup();
  const second = await gql(server, client.owner.token, CREATE_SKILL, { i: { name: 'Forklift' } });
  const forklift = second.data.createSkill.skill.id;
  const in5 = new Date(server.clock.now().getTime() + 5 * DAY).toISOString();
  const in50 = new Date(server.clock.now().getTime() + 50 * DAY).toISOString();
  await grant(supervisor, welder, forklift, 1, { expiresAt: in5 });
  await grant(supervisor, novice, forklift, 1, { expiresAt: in50 });
  const page = (after?: string) =>
    gql(
      server,
      supervisor.token,
      'query($after: String) { skillMatrix(first: 2, after: $after) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { user { databaseId } skills { skill { name } level expiresAt } } } } }',
      { after },
    );
  const rows: { user: { databaseId: number }; skills: unknown[] }[] = [];
  let after: string | undefined;
  for (;;) {
    const result = await page(after);
    assert.equal(result.codes, [], JSON.stringify(result.errors));
    const connection = result.data.skillMatrix;
    assert.is(connection.totalCount, 5, 'owner, supervisor, welder, novice and the template signer');
    rows.push(...connection.edges.map((e: { node: (typeof rows)[number] }) => e.node));
    if (!connection.pageInfo.hasNextPage) break;
    after = connection.pageInfo.endCursor;
  }
  assert.is(rows.length, 5);
  const of = (id: number) => rows.find((r) => r.user.databaseId === id)!.skills;
  assert.equal(of(welder.id), [
    { skill: { name: 'Welding' }, level: 2, expiresAt: null },
    { skill: { name: 'Forklift' }, level: 1, expiresAt: in5 },
  ]);
  assert.equal(of(novice.id), [{ skill: { name: 'Forklift' }, level: 1, expiresAt: in50 }]);
  assert.equal(of(supervisor.id), []);

  const expiring = await gql(
    server,
    supervisor.token,
    'query($d: Int!) { expiringSkills(withinDays: $d) { totalCount nodes { user { databaseId } skill { name } } } }',
    { d: 30 },
  );
  assert.equal(expiring.data.expiringSkills, { totalCount: 1, nodes: [{ user: { databaseId: welder.id }, skill: { name: 'Forklift' } }] });
  assert.equal((await gql(server, supervisor.token, 'query { expiringSkills(withinDays: -1) { totalCount } }')).codes, [
    'VALIDATION_ERROR',
  ]);
  assert.equal((await gql(server, welder.token, 'query { skillMatrix { totalCount } }')).codes, ['FORBIDDEN']);
  // node(id) reads a skill; another client's skill is not found
  assert.is(
    (await gql(server, welder.token, 'query($id: ID!) { node(id: $id) { ... on Skill { name } } }', { id: skillId })).data.node.name,
    'Welding',
  );
  const stranger = await buildClient(server);
  assert.equal((await gql(server, stranger.owner.token, 'query($id: ID!) { node(id: $id) { id } }', { id: skillId })).codes, ['NOT_FOUND']);
});

skills.run();
