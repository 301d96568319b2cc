import { createJob, recordStep, transitionJob } from '#services/jobs';
import { signStep } from '#services/signoffs';
import { createSkill, grantSkill } from '#services/qualifications';
import type { UserActor } from '#services/actor';
import { PASSWORD, publishedTemplate, seedClient, type ServiceDeps } from '../helpers/service-deps';
import { scenarios } from '../helpers/scenarios';
import { SIGNOFF_CONTENT } from '../helpers/templates';

// Step sign-offs (docs/execution-rules.md) where they live: who may sign PERFORMED and VERIFIED, separation of duties,
// the skills a sign-off asks, re-recording invalidating signatures, completion held by SIGNOFF_MISSING.

/** A weld whose PERFORMED sign-off asks the Welding skill at level 2. */
const SKILLED_CONTENT = {
  sections: [
    {
      id: 'main',
      title: 'Main',
      steps: [
        {
          id: 'weld',
          title: 'Weld the seam',
          fields: [{ key: 'mm', type: 'NUMBER' }],
          signoff: { performer: true, skills: [{ skill: 'Welding', level: 2 }] },
        },
      ],
    },
  ],
};

interface World {
  operator: UserActor;
  checker: UserActor;
  both: UserActor;
  welder: UserActor;
  templateId: number;
  skilledTemplateId: number;
}

const META = { ip: null, userAgent: null };

const s = scenarios<World>('step sign-offs', async (deps) => {
  const { user, owner } = await seedClient(deps);
  const [author, approver, publisher] = [await user(['author']), await user(['approver']), await user(['publisher'])];
  const world = {
    operator: await user(['operator']),
    checker: await user(['approver']),
    both: await user(['operator', 'approver']),
    welder: await user(['operator']),
    templateId: (await publishedTemplate(deps, { author, approver, publisher }, SIGNOFF_CONTENT, 'Torque')).templateId,
    skilledTemplateId: 0,
  };
  const welding = await createSkill(deps, owner, { name: 'Welding', levels: 3 });
  await grantSkill(deps, owner, { userId: world.welder.userId, skillId: welding.id, level: 2 }, META);
  await grantSkill(deps, owner, { userId: world.operator.userId, skillId: welding.id, level: 1 }, META);
  world.skilledTemplateId = (await publishedTemplate(deps, { author, approver, publisher }, SKILLED_CONTENT, 'Weld')).templateId;
  return world;
});

const crew = (w: World) => [w.operator, w.checker, w.both, w.welder].map((u) => u.userId);

/** A new torque job, its step recorded by `recorder`, and these signatures made in order. */
async function torqueJob(
  deps: ServiceDeps,
  world: World,
  recorder: UserActor = world.operator,
  signed: [UserActor, 'PERFORMED' | 'VERIFIED'][] = [],
): Promise<number> {
  const { id: jobId } = await createJob(deps, world.operator, { templateId: world.templateId, title: 'Torque', assigneeIds: crew(world) });
  await recordStep(deps, recorder, { jobId, stepId: 'torque', status: 'DONE', values: [{ key: 'nm', value: 40 }] });
  for (const [who, meaning] of signed) await signStep(deps, who, { jobId, stepId: 'torque', meaning, password: PASSWORD }, META);
  return jobId;
}

const sign = (
  deps: ServiceDeps,
  who: UserActor,
  jobId: number,
  meaning: 'PERFORMED' | 'VERIFIED',
  stepId = 'torque',
  password = PASSWORD,
) => signStep(deps, who, { jobId, stepId, meaning, password }, META);

const signatures = (jobId: number, equal: Record<string, unknown>[]) => ({
  table: 'step_signatures' as const,
  where: { job_id: jobId },
  equal,
});

// who may sign what: one row per refusal
const REFUSALS: [string, (w: World) => UserActor, 'PERFORMED' | 'VERIFIED', string, number][] = [
  ['an operator without the verifier role may not verify', (w) => w.operator, 'VERIFIED', 'FORBIDDEN', 403],
  ['an approver who runs no jobs may not sign PERFORMED', (w) => w.checker, 'PERFORMED', 'FORBIDDEN', 403],
  ['the one who recorded the step may not verify it', (w) => w.both, 'VERIFIED', 'SEPARATION_OF_DUTIES', 403],
];
for (const [title, who, meaning, code, status] of REFUSALS)
  s.scenario(title, {
    given: ({ deps, world }) => torqueJob(deps, world, world.both),
    when: ({ deps, world, given }) => sign(deps, who(world), given, meaning),
    then: ({ given }) => ({ error: { code, status }, rows: [signatures(given, [])] }),
  });

s.scenario('the performer may not verify the step', {
  given: ({ deps, world }) => torqueJob(deps, world, world.operator, [[world.both, 'PERFORMED']]),
  when: ({ deps, world, given }) => sign(deps, world.both, given, 'VERIFIED'),
  then: { error: { code: 'SEPARATION_OF_DUTIES', status: 403 } },
});

s.scenario('the verifier may not sign PERFORMED afterwards', {
  given: ({ deps, world }) => torqueJob(deps, world, world.operator, [[world.both, 'VERIFIED']]),
  when: ({ deps, world, given }) => sign(deps, world.both, given, 'PERFORMED'),
  then: { error: { code: 'SEPARATION_OF_DUTIES', status: 403 } },
});

s.scenario('a step signed PERFORMED once is not signed PERFORMED again', {
  given: ({ deps, world }) => torqueJob(deps, world, world.operator, [[world.operator, 'PERFORMED']]),
  when: ({ deps, world, given }) => sign(deps, world.operator, given, 'PERFORMED'),
  then: { error: { code: 'CONFLICT', status: 409, details: { stepId: 'torque', meaning: 'PERFORMED' } } },
});

s.scenario('a step that asks no sign-off takes none', {
  given: ({ deps, world }) => torqueJob(deps, world),
  when: ({ deps, world, given }) => sign(deps, world.operator, given, 'PERFORMED', 'close'),
  then: { error: { code: 'VALIDATION_ERROR', status: 422, details: { fields: [{ path: 'meaning' }] } } },
});

s.scenario('a wrong password signs nothing and counts as a failed attempt', {
  given: ({ deps, world }) => torqueJob(deps, world),
  when: ({ deps, world, given }) => sign(deps, world.operator, given, 'PERFORMED', 'torque', 'not the password'),
  then: ({ world, given }) => ({
    error: { code: 'INVALID_CREDENTIALS', status: 401 },
    rows: [signatures(given, [])],
    mayChange: ['auth_failures'],
    securityLog: [{ event: 'auth.signature_failed', level: 'warn', user_id: world.operator.userId }],
    signals: { logWritten: 1 },
  }),
});

s.scenario('a signature binds the signer, the meaning and the hash of the recorded values', {
  given: ({ deps, world }) => torqueJob(deps, world),
  when: ({ deps, world, given }) => sign(deps, world.operator, given, 'PERFORMED'),
  then: ({ world, given }) => ({
    rows: [
      signatures(given, [
        { step_id: 'torque', signer_id: world.operator.userId, meaning: 'PERFORMED', method: 'password', invalidated_at: null },
      ]),
    ],
    result: (value) => {
      const { signature } = value as { signature: { values_hash: string } };
      if (!/^[0-9a-f]{64}$/.test(signature.values_hash)) throw new Error(`not a SHA-256 hash: ${signature.values_hash}`);
    },
  }),
});

s.scenario('completion waits for PERFORMED and VERIFIED: SIGNOFF_MISSING names both', {
  given: ({ deps, world }) => torqueJob(deps, world),
  when: ({ deps, world, given }) => transitionJob(deps, world.operator, { jobId: given, action: 'complete' }),
  then: {
    error: {
      code: 'SIGNOFF_MISSING',
      status: 422,
      details: {
        missing: [
          { stepId: 'torque', meaning: 'PERFORMED' },
          { stepId: 'torque', meaning: 'VERIFIED' },
        ],
        steps: ['torque'],
      },
    },
  },
});

s.scenario('completion waits for the VERIFIED sign-off once PERFORMED is signed', {
  given: ({ deps, world }) => torqueJob(deps, world, world.operator, [[world.operator, 'PERFORMED']]),
  when: ({ deps, world, given }) => transitionJob(deps, world.operator, { jobId: given, action: 'complete' }),
  then: { error: { code: 'SIGNOFF_MISSING', status: 422, details: { missing: [{ stepId: 'torque', meaning: 'VERIFIED' }] } } },
});

s.scenario('signed PERFORMED by one and VERIFIED by another, the job completes', {
  given: ({ deps, world }) =>
    torqueJob(deps, world, world.operator, [
      [world.operator, 'PERFORMED'],
      [world.checker, 'VERIFIED'],
    ]),
  when: ({ deps, world, given }) => transitionJob(deps, world.operator, { jobId: given, action: 'complete' }),
  then: ({ given }) => ({ rows: [{ table: 'jobs', where: { id: given }, equal: [{ state: 'COMPLETED' }] }] }),
});

s.scenario('re-recording a signed step invalidates its signatures: the step needs signing again', {
  given: ({ deps, world }) =>
    torqueJob(deps, world, world.operator, [
      [world.both, 'PERFORMED'],
      [world.checker, 'VERIFIED'],
    ]),
  when: ({ deps, world, given }) =>
    recordStep(deps, world.operator, { jobId: given, stepId: 'torque', status: 'DONE', values: [{ key: 'nm', value: 41 }] }),
  then: ({ deps, given }) => ({
    rows: [
      signatures(given, [
        { meaning: 'PERFORMED', invalidated_at: deps.clock.now().toISOString() },
        { meaning: 'VERIFIED', invalidated_at: deps.clock.now().toISOString() },
      ]),
    ],
  }),
});

s.scenario('after re-recording, completion asks both sign-offs again', {
  given: async ({ deps, world }) => {
    const jobId = await torqueJob(deps, world, world.operator, [
      [world.both, 'PERFORMED'],
      [world.checker, 'VERIFIED'],
    ]);
    await recordStep(deps, world.operator, { jobId, stepId: 'torque', status: 'DONE', values: [{ key: 'nm', value: 41 }] });
    return jobId;
  },
  when: ({ deps, world, given }) => transitionJob(deps, world.operator, { jobId: given, action: 'complete' }),
  then: { error: { code: 'SIGNOFF_MISSING', status: 422, details: { missing: [{ meaning: 'PERFORMED' }, { meaning: 'VERIFIED' }] } } },
});

/** A weld job recorded by the welder (who holds Welding at level 2), for `signer` to sign. */
async function weldJob(deps: ServiceDeps, world: World): Promise<number> {
  const { id: jobId } = await createJob(deps, world.operator, {
    templateId: world.skilledTemplateId,
    title: 'Weld',
    assigneeIds: crew(world),
  });
  await recordStep(deps, world.welder, { jobId, stepId: 'weld', status: 'DONE', values: [{ key: 'mm', value: 3 }] });
  return jobId;
}

s.scenario('a sign-off that asks a skill: a signer below its level is NOT_QUALIFIED', {
  given: ({ deps, world }) => weldJob(deps, world),
  when: ({ deps, world, given }) => sign(deps, world.operator, given, 'PERFORMED', 'weld'),
  then: ({ given }) => ({
    error: { code: 'NOT_QUALIFIED', status: 403, details: { skills: [{ skill: 'Welding', requiredLevel: 2 }] } },
    rows: [signatures(given, [])],
  }),
});

s.scenario('a sign-off that asks a skill: a signer holding it at the level signs', {
  given: ({ deps, world }) => weldJob(deps, world),
  when: ({ deps, world, given }) => sign(deps, world.welder, given, 'PERFORMED', 'weld'),
  then: ({ world, given }) => ({ rows: [signatures(given, [{ signer_id: world.welder.userId, meaning: 'PERFORMED' }])] }),
});

s.scenario('a sign-off that asks a skill: an expired grant does not count', {
  given: async ({ deps, world }) => {
    const jobId = await weldJob(deps, world);
    await deps.db.kysely
      .updateTable('user_skills')
      .set({ expires_at: new Date(deps.clock.now().getTime() - 1000).toISOString() })
      .where('user_id', '=', world.welder.userId)
      .execute();
    return jobId;
  },
  when: ({ deps, world, given }) => sign(deps, world.welder, given, 'PERFORMED', 'weld'),
  then: ({ given }) => ({ error: { code: 'NOT_QUALIFIED', status: 403 }, rows: [signatures(given, [])] }),
});

s.run();
