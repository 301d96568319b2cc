import { createJob, recordStep, transitionJob, type RecordStepInput } from '#services/jobs';
import type { UserActor } from '#services/actor';
import { publishedTemplate, seedClient, type ServiceDeps } from '../helpers/service-deps';
import { scenarios, type RowsExpectation } from '../helpers/scenarios';
import { SAMPLE_CONTENT } from '../helpers/domain';

// Recording and the job's state machine (docs/execution-rules.md) where they live: values checked against their
// fields, required fields at completion, the transitions and who may make them, a closed job, stale revisions.

interface World {
  operator: UserActor;
  coworker: UserActor;
  outsider: UserActor;
  templateId: number;
}

const s = scenarios<World>('job recording and states', async (deps) => {
  const { user } = await seedClient(deps);
  const [author, approver, publisher] = [await user(['author']), await user(['approver']), await user(['publisher'])];
  return {
    operator: await user(['operator']),
    coworker: await user(['operator']),
    outsider: await user(['operator']),
    templateId: (await publishedTemplate(deps, { author, approver, publisher }, SAMPLE_CONTENT, 'Torque')).templateId,
  };
});

type Recording = Omit<RecordStepInput, 'jobId'>;

/** A new job assigned to the operator and the co-worker, these steps recorded by the operator. */
async function jobWith(deps: ServiceDeps, world: World, recordings: Recording[] = []): Promise<number> {
  const assigneeIds = [world.operator.userId, world.coworker.userId];
  const { id: jobId } = await createJob(deps, world.operator, { templateId: world.templateId, title: 'Torque', assigneeIds });
  for (const recording of recordings) await recordStep(deps, world.operator, { jobId, ...recording });
  return jobId;
}

const jobRow = (jobId: number, equal: Record<string, unknown>): RowsExpectation => ({
  table: 'jobs',
  where: { id: jobId },
  equal: [equal],
});
const records = (jobId: number, equal: Record<string, unknown>[]): RowsExpectation => ({
  table: 'step_records',
  where: { job_id: jobId },
  orderBy: 'step_id',
  equal,
});

// ── values against their fields: one row per refusal ─────────────────────

const INVALID: [string, Recording, string][] = [
  ['a number field given text', { stepId: 'measure', status: 'DONE', values: [{ key: 'torque', value: 'ten' }] }, 'values.torque'],
  ['a key the step has no field for', { stepId: 'measure', status: 'DONE', values: [{ key: 'nope', value: 1 }] }, 'values.nope'],
  ['a choice not offered', { stepId: 'check', status: 'DONE', values: [{ key: 'colour', value: 'blue' }] }, 'values.colour'],
  ['PASS_FAIL given something else', { stepId: 'check', status: 'DONE', values: [{ key: 'sealOk', value: 'maybe' }] }, 'values.sealOk'],
  ['a photo that is no file id', { stepId: 'photo', status: 'DONE', values: [{ key: 'picture', value: 'not-a-file' }] }, 'values.picture'],
  ['SKIPPED without a reason', { stepId: 'photo', status: 'SKIPPED' }, 'reason'],
  ['a step the version does not have', { stepId: 'nowhere', status: 'DONE' }, 'stepId'],
];
for (const [title, recording, path] of INVALID)
  s.scenario(`recording refuses ${title} (VALIDATION_ERROR on ${path}) and writes nothing`, {
    given: ({ deps, world }) => jobWith(deps, world),
    when: ({ deps, world, given }) => recordStep(deps, world.operator, { jobId: given, ...recording }),
    then: ({ given }) => ({
      error: { code: 'VALIDATION_ERROR', status: 422, details: { fields: [{ path }] } },
      rows: [jobRow(given, { state: 'OPEN', revision: 1 }), records(given, [])],
    }),
  });

s.scenario('recording starts an OPEN job, keeps a value out of limits marked, and stores PASS_FAIL in one form', {
  given: ({ deps, world }) => jobWith(deps, world, [{ stepId: 'measure', status: 'DONE', values: [{ key: 'torque', value: 25 }] }]),
  when: ({ deps, world, given }) =>
    recordStep(deps, world.operator, { jobId: given, stepId: 'check', status: 'DONE', values: [{ key: 'sealOk', value: true }] }),
  then: ({ world, given }) => ({
    rows: [
      jobRow(given, { state: 'IN_PROGRESS' }),
      records(given, [
        {
          step_id: 'check',
          status: 'DONE',
          values: [{ key: 'sealOk', value: 'PASS', outOfLimits: false }],
          recorded_by: world.operator.userId,
        },
        {
          step_id: 'measure',
          status: 'DONE',
          values: [{ key: 'torque', value: 25, outOfLimits: true }],
          recorded_by: world.operator.userId,
        },
      ]),
    ],
    outbox: [{ type: 'job.step.recorded', data: { outOfLimits: [] } }],
  }),
});

// ── required fields at completion ──────────────────────────────────────────

s.scenario('completion names every required field still empty (REQUIRED_FIELDS_MISSING)', {
  given: ({ deps, world }) => jobWith(deps, world, [{ stepId: 'measure', status: 'DONE', values: [{ key: 'torque', value: 12 }] }]),
  when: ({ deps, world, given }) => transitionJob(deps, world.operator, { jobId: given, action: 'complete' }),
  then: ({ given }) => ({
    error: {
      code: 'REQUIRED_FIELDS_MISSING',
      status: 422,
      details: {
        missing: [
          { stepId: 'check', key: 'sealOk' },
          { stepId: 'photo', key: 'picture' },
        ],
      },
    },
    rows: [jobRow(given, { state: 'IN_PROGRESS' })],
  }),
});

s.scenario('a FAILED step is not skipped: its required fields still count', {
  given: ({ deps, world }) =>
    jobWith(deps, world, [
      { stepId: 'measure', status: 'DONE', values: [{ key: 'torque', value: 12 }] },
      { stepId: 'check', status: 'FAILED', values: [{ key: 'colour', value: 'red' }], comment: 'seal torn' },
    ]),
  when: ({ deps, world, given }) => transitionJob(deps, world.operator, { jobId: given, action: 'complete' }),
  then: {
    error: {
      code: 'REQUIRED_FIELDS_MISSING',
      status: 422,
      details: {
        missing: [
          { stepId: 'check', key: 'sealOk' },
          { stepId: 'photo', key: 'picture' },
        ],
      },
    },
  },
});

s.scenario('a step SKIPPED with a reason does not hold completion; the job completes at the clock', {
  given: ({ deps, world }) =>
    jobWith(deps, world, [
      { stepId: 'measure', status: 'DONE', values: [{ key: 'torque', value: 12 }] },
      { stepId: 'check', status: 'DONE', values: [{ key: 'sealOk', value: 'FAIL' }] },
      { stepId: 'photo', status: 'SKIPPED', reason: 'camera broken' },
    ]),
  when: ({ deps, world, given }) => transitionJob(deps, world.operator, { jobId: given, action: 'complete' }),
  then: ({ deps, given }) => ({
    rows: [jobRow(given, { state: 'COMPLETED', completed_at: deps.clock.now().toISOString() })],
    outbox: [{ type: 'job.completed', data: { id: given, state: 'COMPLETED' } }],
    signals: { clientEvent: 1 },
  }),
});

// ── the state machine ──────────────────────────────────────────────────────

/** A job brought through these transitions by the operator. */
async function jobThrough(deps: ServiceDeps, world: World, actions: ('start' | 'pause' | 'complete')[]): Promise<number> {
  const jobId = await jobWith(deps, world);
  for (const action of actions) await transitionJob(deps, world.operator, { jobId, action });
  return jobId;
}

s.scenario('start: OPEN → IN_PROGRESS, started at the clock', {
  given: ({ deps, world }) => jobThrough(deps, world, []),
  when: ({ deps, world, given }) => transitionJob(deps, world.operator, { jobId: given, action: 'start' }),
  then: ({ deps, given }) => ({
    rows: [jobRow(given, { state: 'IN_PROGRESS', started_at: deps.clock.now().toISOString(), revision: 2 })],
    outbox: [{ type: 'job.started' }],
  }),
});

s.scenario('pause: IN_PROGRESS → PAUSED', {
  given: ({ deps, world }) => jobThrough(deps, world, ['start']),
  when: ({ deps, world, given }) => transitionJob(deps, world.operator, { jobId: given, action: 'pause' }),
  then: ({ given }) => ({ rows: [jobRow(given, { state: 'PAUSED' })] }),
});

s.scenario('recording on a PAUSED job resumes it', {
  given: ({ deps, world }) => jobThrough(deps, world, ['start', 'pause']),
  when: ({ deps, world, given }) =>
    recordStep(deps, world.operator, { jobId: given, stepId: 'measure', status: 'DONE', values: [{ key: 'torque', value: 12 }] }),
  then: ({ given }) => ({ rows: [jobRow(given, { state: 'IN_PROGRESS' })] }),
});

s.scenario('an OPEN job cannot be paused (INVALID_TRANSITION)', {
  given: ({ deps, world }) => jobThrough(deps, world, []),
  when: ({ deps, world, given }) => transitionJob(deps, world.operator, { jobId: given, action: 'pause' }),
  then: ({ given }) => ({ error: { code: 'INVALID_TRANSITION', status: 409 }, rows: [jobRow(given, { state: 'OPEN' })] }),
});

s.scenario('an operator not assigned to the job may not start it', {
  given: ({ deps, world }) => jobThrough(deps, world, []),
  when: ({ deps, world, given }) => transitionJob(deps, world.outsider, { jobId: given, action: 'start' }),
  then: ({ given }) => ({ error: { code: 'FORBIDDEN', status: 403 }, rows: [jobRow(given, { state: 'OPEN' })] }),
});

s.scenario('cancel needs a reason', {
  given: ({ deps, world }) => jobThrough(deps, world, []),
  when: ({ deps, world, given }) => transitionJob(deps, world.operator, { jobId: given, action: 'cancel', reason: '  ' }),
  then: { error: { code: 'VALIDATION_ERROR', status: 422 } },
});

s.scenario('cancel records its reason', {
  given: ({ deps, world }) => jobThrough(deps, world, []),
  when: ({ deps, world, given }) => transitionJob(deps, world.operator, { jobId: given, action: 'cancel', reason: 'wrong pump' }),
  then: ({ given }) => ({ rows: [jobRow(given, { state: 'CANCELLED', cancel_reason: 'wrong pump' })] }),
});

// ── a closed job ───────────────────────────────────────────────────────────

const CLOSED: [string, (deps: ServiceDeps, world: World) => Promise<number>][] = [
  [
    'COMPLETED',
    async (deps, world) => {
      const jobId = await jobWith(deps, world, [
        { stepId: 'measure', status: 'DONE', values: [{ key: 'torque', value: 12 }] },
        { stepId: 'check', status: 'DONE', values: [{ key: 'sealOk', value: 'PASS' }] },
        { stepId: 'photo', status: 'SKIPPED', reason: 'camera broken' },
      ]);
      await transitionJob(deps, world.operator, { jobId, action: 'complete' });
      return jobId;
    },
  ],
  [
    'CANCELLED',
    async (deps, world) => {
      const jobId = await jobWith(deps, world);
      await transitionJob(deps, world.operator, { jobId, action: 'cancel', reason: 'wrong pump' });
      return jobId;
    },
  ],
];
for (const [state, closed] of CLOSED) {
  s.scenario(`a ${state} job takes no recording (JOB_CLOSED)`, {
    given: ({ deps, world }) => closed(deps, world),
    when: ({ deps, world, given }) =>
      recordStep(deps, world.operator, { jobId: given, stepId: 'measure', status: 'DONE', values: [{ key: 'torque', value: 11 }] }),
    then: { error: { code: 'JOB_CLOSED', status: 409 } },
  });
  s.scenario(`a ${state} job makes no more transitions (INVALID_TRANSITION)`, {
    given: ({ deps, world }) => closed(deps, world),
    when: ({ deps, world, given }) => transitionJob(deps, world.operator, { jobId: given, action: 'pause' }),
    then: { error: { code: 'INVALID_TRANSITION', status: 409 } },
  });
}

// ── concurrent writers ─────────────────────────────────────────────────────

s.scenario('a stale expectedRevision is a CONFLICT carrying the current job; nothing is overwritten', {
  given: ({ deps, world }) =>
    jobWith(deps, world, [{ stepId: 'measure', status: 'DONE', values: [{ key: 'torque', value: 12 }], expectedRevision: 1 }]),
  when: ({ deps, world, given }) =>
    recordStep(deps, world.coworker, {
      jobId: given,
      stepId: 'measure',
      status: 'DONE',
      values: [{ key: 'torque', value: 99 }],
      expectedRevision: 1,
    }),
  then: ({ world, given }) => ({
    error: { code: 'CONFLICT', status: 409, details: { job: { id: given, revision: 2, state: 'IN_PROGRESS' } } },
    rows: [
      jobRow(given, { revision: 2 }),
      records(given, [
        { step_id: 'measure', values: [{ key: 'torque', value: 12, outOfLimits: false }], recorded_by: world.operator.userId },
      ]),
    ],
  }),
});

s.scenario('the transitions take expectedRevision too', {
  given: ({ deps, world }) => jobWith(deps, world, [{ stepId: 'measure', status: 'DONE', values: [{ key: 'torque', value: 12 }] }]),
  when: ({ deps, world, given }) => transitionJob(deps, world.operator, { jobId: given, action: 'pause', expectedRevision: 1 }),
  then: ({ given }) => ({ error: { code: 'CONFLICT', status: 409 }, rows: [jobRow(given, { state: 'IN_PROGRESS', revision: 2 })] }),
});

s.run();
