import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createJob, recordStep, transitionJob } from '#services/jobs';
import { signStep } from '#services/signoffs';
import { workTogether } from '#services/working-together';
import { approveVersion, createDraft, publishVersion, submitVersion, updateDraft } from '#services/templates';
import {
  acknowledgeRetraining,
  createSkill,
  expiringSkills,
  grantSkill,
  myRetrainings,
  overrideQualification,
  revokeSkill,
  viewerStanding,
} from '#services/qualifications';
import { deserializeContent } from '#domain/content';
import type { UserActor } from '#services/actor';
import { play } from '../helpers/scenarios';
import { PASSWORD, publishedTemplate, refusal, seedClient, serviceDeps, type ServiceDeps } from '../helpers/service-deps';

// Qualifications (docs/qualifications.md) where they live: the grant's rules, the gate on every door (assign,
// accept a hand-off, start, record, sign) with its reasons (NOT_HELD, LEVEL_TOO_LOW, EXPIRED with a clock that
// moves), overrides by job and by template, retraining after a publish, the verdict asked before the work, the
// expiring grants. What the GraphQL operations answer and who may call them: test/graphql/skills.test.ts.

const META = { ip: null, userAgent: null };
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

/** A client with a Welding skill (3 levels), a welder holding level 2, a novice holding nothing, a published template. */
async function welding(deps: ServiceDeps) {
  const { client, owner, user } = await seedClient(deps, 20);
  const author = await user(['author']);
  const approver = await user(['approver']);
  const supervisor = await user(['publisher']);
  const welder = await user(['operator']);
  const novice = await user(['operator']);
  const skill = await createSkill(deps, owner, { name: 'Welding', levels: 3 });
  const grant = (to: UserActor, level: number, extra: { expiresAt?: string; password?: string } = {}) =>
    grantSkill(deps, supervisor, { userId: to.userId, skillId: skill.id, level, ...extra }, META);
  await grant(welder, 2);
  const template = await publishedTemplate(deps, { author, approver, publisher: supervisor }, CONTENT, 'Flange welding');
  const job = (by: UserActor = owner, assigneeIds: number[] = []) =>
    createJob(deps, by, { templateId: template.templateId, title: 'Weld', assigneeIds });
  /** publishes `content` as the template's next version; its id */
  const publish = async (content: unknown) => {
    const draft = await createDraft(deps, author, template.templateId);
    await updateDraft(deps, author, draft.id, content);
    await submitVersion(deps, author, draft.id);
    await approveVersion(deps, approver, draft.id, { password: PASSWORD }, META);
    await publishVersion(deps, supervisor, draft.id, { password: PASSWORD }, META);
    return draft.id;
  };
  return { client, owner, user, supervisor, welder, novice, skill, grant, template, job, publish };
}

const record = (deps: ServiceDeps, who: UserActor, jobId: number, stepId = 'close') =>
  recordStep(deps, who, { jobId, stepId, status: 'DONE', values: stepId === 'weld' ? [{ key: 'ok', value: 'PASS' }] : [] });

const auditActions = (deps: ServiceDeps, clientId: number, like: string) =>
  deps.db.kysely
    .selectFrom('audit_entries')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('action', 'like', like)
    .orderBy('seq')
    .execute();

const test = suite<{ deps: ServiceDeps }>('qualifications: grants, the gate, overrides, retraining (services)');
test.before.each(async (ctx) => {
  ctx.deps = await serviceDeps();
});
test.after.each(async ({ deps }) => {
  await deps.close();
});

test('a grant is refused for oneself, above the levels, expiring in the past, with a wrong trainer signature, of no skill', async ({
  deps,
}) => {
  const { supervisor, novice, skill } = await welding(deps);
  const cases: [string, Record<string, unknown>, string, number][] = [
    ['nobody grants themselves', { userId: supervisor.userId }, 'SEPARATION_OF_DUTIES', 403],
    ["above the skill's levels", { level: 4 }, 'VALIDATION_ERROR', 422],
    ['an expiry already past', { expiresAt: new Date(deps.clock.now().getTime() - DAY).toISOString() }, 'VALIDATION_ERROR', 422],
    ['a wrong trainer signature', { password: 'not-the-password' }, 'INVALID_CREDENTIALS', 401],
    ['a skill of no one', { skillId: 999_999 }, 'NOT_FOUND', 404],
    ['a user of no one', { userId: 999_999 }, 'NOT_FOUND', 404],
  ];
  // each refused with nothing written; a wrong signature counts toward the lockout (auth_failures) and is logged
  for (const [what, input, code, status] of cases)
    await play(deps, null, {
      when: () => grantSkill(deps, supervisor, { userId: novice.userId, skillId: skill.id, level: 1, ...input }, META),
      then: {
        error: { code, status },
        ...(input.password !== undefined && {
          mayChange: ['auth_failures'],
          signals: { logWritten: 1 },
          securityLog: [{ event: 'auth.signature_failed', user_id: supervisor.userId }],
        }),
      },
    }).catch((error: Error) => {
      throw new Error(`${what}: ${error.message}`);
    });
});

test('a signed grant records the trainer (TRAINED in the audit chain); validityDays sets the expiry; a skill name is unique; revoking twice is NOT_FOUND', async ({
  deps,
}) => {
  const { client, owner, supervisor, novice, skill, grant } = await welding(deps);
  const signed = await grant(novice, 1, { password: PASSWORD });
  assert.equal([signed.level, signed.trainer_id, signed.granted_by, signed.expires_at], [1, supervisor.userId, supervisor.userId, null]);
  assert.ok(signed.trainer_name && signed.trained_at);
  const audit = await auditActions(deps, client.id, 'skill.granted');
  assert.equal(
    audit.map((a) => JSON.parse(a.after!).signature?.meaning ?? null),
    [null, 'TRAINED'],
    "the welder's grant was not signed, the novice's was",
  );

  assert.is((await refusal(createSkill(deps, owner, { name: 'Welding' }))).code, 'CONFLICT');
  const rigging = await createSkill(deps, owner, { name: 'Rigging', validityDays: 10 });
  const expiring = await grantSkill(deps, supervisor, { userId: novice.userId, skillId: rigging.id }, META);
  assert.is(expiring.expires_at, new Date(deps.clock.now().getTime() + 10 * DAY).toISOString());

  const revoked = await revokeSkill(deps, supervisor, { userId: novice.userId, skillId: skill.id });
  assert.is(revoked.level, 1);
  assert.is((await refusal(revokeSkill(deps, supervisor, { userId: novice.userId, skillId: skill.id }))).code, 'NOT_FOUND');
  assert.is((await refusal(revokeSkill(deps, supervisor, { userId: supervisor.userId, skillId: skill.id }))).code, 'SEPARATION_OF_DUTIES');
});

test('the gate refuses on every door — assign, start, record, sign, accept a hand-off — naming the door and what is lacking', async ({
  deps,
}) => {
  const { owner, welder, novice, job } = await welding(deps);
  const NOT_HELD = [{ skill: 'Welding', requiredLevel: 2, heldLevel: null, expiresAt: null, reason: 'NOT_HELD' }];

  const assign = await refusal(job(owner, [welder.userId, novice.userId]));
  assert.is(assign.code, 'NOT_QUALIFIED');
  assert.equal(assign.details, { userId: novice.userId, action: 'assign', jobId: null, retrainingDue: [], skills: NOT_HELD });

  // an unassigned job: anyone may start it, but only the qualified
  const open = await job();
  const start = await refusal(transitionJob(deps, novice, { jobId: open.id, action: 'start' }));
  assert.equal([start.code, start.details?.action, start.details?.skills], ['NOT_QUALIFIED', 'start', NOT_HELD]);
  const recorded = await refusal(record(deps, novice, open.id));
  assert.equal(recorded.details, {
    userId: novice.userId,
    action: 'record',
    jobId: open.id,
    stepId: 'close',
    retrainingDue: [],
    skills: NOT_HELD,
  });

  // the welder holds level 2: works the job, but the weld's sign-off asks level 3
  await record(deps, welder, open.id, 'weld');
  const sign = await refusal(signStep(deps, welder, { jobId: open.id, stepId: 'weld', meaning: 'PERFORMED', password: PASSWORD }, META));
  assert.equal(
    [sign.code, sign.details?.action, sign.details?.stepId, sign.details?.skills],
    ['NOT_QUALIFIED', 'sign', 'weld', [{ skill: 'Welding', requiredLevel: 3, heldLevel: 2, expiresAt: null, reason: 'LEVEL_TOO_LOW' }]],
  );

  // the welder hands the job to the novice, who may not accept it
  const mine = await job(owner, [welder.userId]);
  const offered = await workTogether(deps, welder, { action: 'HAND_OFF', jobId: mine.id, toUserId: novice.userId });
  const accept = await refusal(workTogether(deps, novice, { action: 'ACCEPT', jobId: mine.id, handOffId: offered.handOff!.id }));
  assert.equal([accept.code, accept.details?.action, accept.details?.skills], ['NOT_QUALIFIED', 'accept', NOT_HELD]);
});

test('a grant counts until its expiry and is EXPIRED after it, as the clock moves', async ({ deps }) => {
  const { user, grant, job } = await welding(deps);
  const holder = await user(['operator']);
  const expiresAt = new Date(deps.clock.now().getTime() + 1000).toISOString();
  await grant(holder, 2, { expiresAt });
  const open = await job();
  await record(deps, holder, open.id);
  deps.clock.advance(2000);
  const refused = await refusal(record(deps, holder, open.id));
  assert.equal(refused.details?.skills, [{ skill: 'Welding', requiredLevel: 2, heldLevel: 2, expiresAt, reason: 'EXPIRED' }]);
});

test('the verdict asked before the work is the gate’s: missing, too low, expired, overridden, held; a version requiring nothing', async ({
  deps,
}) => {
  const { user, supervisor, welder, novice, grant, template, job } = await welding(deps);
  const open = await job();
  const version = await deps.db.kysely
    .selectFrom('template_versions')
    .selectAll()
    .where('id', '=', template.versionId)
    .executeTakeFirstOrThrow();
  const content = deserializeContent(version.content);
  const standing = (who: UserActor, jobId = open.id) =>
    viewerStanding(deps, who, { id: jobId, templateId: template.templateId, versionId: template.versionId }, content);
  const lacking = async (who: UserActor) => (await standing(who)).skills.map((s) => [s.reason, s.heldLevel]);

  const missing = await standing(novice);
  assert.equal([missing.qualified, missing.overridden], [false, false]);
  assert.equal(await lacking(novice), [['NOT_HELD', null]]);
  // what the verdict names is what starting is refused for
  const refused = await refusal(transitionJob(deps, novice, { jobId: open.id, action: 'start' }));
  assert.equal(refused.details?.skills, missing.skills);

  await grant(novice, 1);
  assert.equal(await lacking(novice), [['LEVEL_TOO_LOW', 1]]);
  await grant(welder, 2, { expiresAt: new Date(deps.clock.now().getTime() + 60_000).toISOString() });
  deps.clock.advance(120_000);
  assert.equal(await lacking(welder), [['EXPIRED', 2]]);

  await overrideQualification(deps, supervisor, { userId: novice.userId, jobId: open.id, reason: 'Trained at the partner plant' });
  const covered = await standing(novice);
  assert.equal([covered.qualified, covered.overridden, covered.skills.length], [true, true, 1], 'still lacking, but overridden');
  await transitionJob(deps, novice, { jobId: open.id, action: 'start' });

  await grant(novice, 3);
  const other = await job();
  assert.equal(await standing(novice, other.id), { qualified: true, overridden: false, skills: [], retrainingDue: [] }, 'level 3 meets 2');
  // a version requiring nothing: everyone is qualified, without a statement
  const plain = await viewerStanding(deps, await user(['operator']), { id: 0, templateId: 0, versionId: 0 }, { sections: [] });
  assert.is(plain.qualified, true);
});

test('an override needs a reason, a job or a template, and something to override; by job it covers that job only, by template the assigning', async ({
  deps,
}) => {
  const { client, owner, supervisor, welder, novice, template, job } = await welding(deps);
  const open = await job();
  const input = { userId: novice.userId, jobId: open.id, reason: 'Certified at the partner plant, papers on file' };
  const cases: [string, Record<string, unknown>][] = [
    ['a reason is required', { reason: '  ' }],
    ['a job or a template, not both', { templateId: template.templateId }],
    ['nothing to override: the welder is qualified', { userId: welder.userId }],
  ];
  for (const [what, change] of cases)
    assert.is((await refusal(overrideQualification(deps, supervisor, { ...input, ...change }))).code, 'VALIDATION_ERROR', what);
  assert.is(
    (await refusal(overrideQualification(deps, supervisor, { userId: novice.userId, jobId: null, reason: 'x' }))).code,
    'VALIDATION_ERROR',
    'neither',
  );

  const byJob = await overrideQualification(deps, supervisor, input);
  assert.equal(
    [byJob.user_id, byJob.job_id, byJob.reason, JSON.parse(byJob.lacking).skills.map((s: { reason: string }) => s.reason)],
    [novice.userId, open.id, input.reason, ['NOT_HELD']],
  );
  await record(deps, novice, open.id);
  const other = await job();
  assert.is((await refusal(record(deps, novice, other.id))).code, 'NOT_QUALIFIED', 'not on another job');

  // by template: assigning a new job of the published version
  assert.is((await refusal(job(owner, [novice.userId]))).code, 'NOT_QUALIFIED');
  const byTemplate = await overrideQualification(deps, owner, {
    userId: novice.userId,
    templateId: template.templateId,
    reason: 'Supervised by the welder',
  });
  assert.equal([byTemplate.job_id, byTemplate.version_id], [null, template.versionId]);
  const assigned = await job(owner, [novice.userId]);
  await record(deps, novice, assigned.id);

  // each in the audit chain; the job's override is one of its deviations
  const audit = await auditActions(deps, client.id, 'qualification.overridden');
  assert.equal(
    audit.map((a) => [a.entity_type, JSON.parse(a.after!).reason]),
    [
      ['job', input.reason],
      ['template_version', 'Supervised by the welder'],
    ],
  );
  const deviations = await deps.db.kysely.selectFrom('deviations').selectAll().where('job_id', '=', open.id).execute();
  assert.equal(
    deviations.map((d) => [d.kind, d.detail.startsWith('qualification of ') && d.detail.endsWith(`: ${input.reason}`)]),
    [['OVERRIDE', true]],
  );
});

test('publishing changed steps makes retraining due for the qualified only; jobs of the new version refuse them until they acknowledge (once)', async ({
  deps,
}) => {
  const { client, welder, novice, job, publish } = await welding(deps);
  const oldJob = await job();
  const retitled = await publish(CONTENT);
  assert.equal(await myRetrainings(deps, welder), [], 'the same steps: no retraining');
  const changed = await publish(CHANGED);
  const due = await myRetrainings(deps, welder);
  assert.equal(
    due.map((r) => [r.version_id, r.previous_version_id, r.acknowledged_at]),
    [[changed, retitled, null]],
  );
  assert.equal(await myRetrainings(deps, novice), [], 'the unqualified have nothing to retrain');

  const newJob = await job();
  const refused = await refusal(record(deps, welder, newJob.id));
  assert.equal(
    [refused.code, refused.details?.skills, (refused.details?.retrainingDue as { versionId: number }[]).map((r) => r.versionId)],
    ['NOT_QUALIFIED', [], [changed]],
  );
  await record(deps, welder, oldJob.id);

  assert.is((await refusal(acknowledgeRetraining(deps, novice, changed))).code, 'NOT_FOUND');
  const acked = await acknowledgeRetraining(deps, welder, changed);
  assert.ok(acked.acknowledged_at);
  deps.clock.advance(60_000);
  assert.is((await acknowledgeRetraining(deps, welder, changed)).acknowledged_at, acked.acknowledged_at, 'acknowledged once');
  await record(deps, welder, newJob.id);
  assert.equal(
    (await auditActions(deps, client.id, 'retraining.%')).map((a) => a.action),
    ['retraining.due', 'retraining.acknowledged'],
  );
});

test('expiringSkills: the grants expiring within the days asked, not those later nor those already expired', async ({ deps }) => {
  const { owner, supervisor, welder, novice } = await welding(deps);
  const forklift = await createSkill(deps, owner, { name: 'Forklift' });
  const at = (days: number) => new Date(deps.clock.now().getTime() + days * DAY).toISOString();
  await grantSkill(deps, supervisor, { userId: welder.userId, skillId: forklift.id, expiresAt: at(5) }, META);
  await grantSkill(deps, supervisor, { userId: novice.userId, skillId: forklift.id, expiresAt: at(50) }, META);
  const within = async (days: number) =>
    (await expiringSkills(deps, supervisor, days, { limit: 50 })).items.map((g) => [g.user_id, g.expires_at]);
  assert.equal(await within(30), [[welder.userId, at(5)]]);
  assert.equal(await within(60), [
    [welder.userId, at(5)],
    [novice.userId, at(50)],
  ]);
  deps.clock.advance(6 * DAY);
  assert.equal(
    (await within(60)).map(([id]) => id),
    [novice.userId],
    'expired is no longer expiring',
  );
  // the service checks its argument before any statement: it throws at once
  assert.is((await refusal((async () => expiringSkills(deps, supervisor, -1, { limit: 10 }))())).code, 'VALIDATION_ERROR');
});

test.run();
