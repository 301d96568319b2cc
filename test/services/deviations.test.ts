import { createJob, recordStep, transitionJob, type RecordStepInput } from '#services/jobs';
import { acknowledgeDeviation, markStepNotApplicable, reviewJob } from '#services/deviations';
import { raiseFault } from '#services/faults';
import type { UserActor } from '#services/actor';
import { PASSWORD, publishedTemplate, seedClient, type ServiceDeps } from '../helpers/service-deps';
import { scenarios, type RowsExpectation } from '../helpers/scenarios';

// Deviations (docs/execution-rules.md) where they live: raised by the recording that caused them (a value out of
// limits, a FAILED step, a step marked not applicable), by a fault and by a late completion; completion needs a
// comment on the deviating steps; reviewers acknowledge each one once, with a comment; reviewJob signs a completed
// job REVIEWED only when every deviation is acknowledged and the reviewer took no part in the job.

const CONTENT = {
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

interface World {
  operator: UserActor;
  reviewer: UserActor;
  both: UserActor;
  templateId: number;
}

const META = { ip: null, userAgent: null };

const s = scenarios<World>('deviations', async (deps) => {
  const { user } = await seedClient(deps);
  const [author, approver, publisher] = [await user(['author']), await user(['approver']), await user(['publisher'])];
  return {
    operator: await user(['operator']),
    reviewer: await user(['approver']),
    both: await user(['operator', 'approver']),
    templateId: (await publishedTemplate(deps, { author, approver, publisher }, CONTENT, 'Pressure')).templateId,
  };
});

type Recording = Omit<RecordStepInput, 'jobId'> & { by?: (w: World) => UserActor };

/** A new job, these steps recorded in order (by the operator unless `by` says). */
async function jobWith(deps: ServiceDeps, world: World, recordings: Recording[] = [], job: { dueAt?: string } = {}): Promise<number> {
  const assigneeIds = [world.operator.userId, world.both.userId];
  const { id: jobId } = await createJob(deps, world.operator, { templateId: world.templateId, title: 'Pressure', assigneeIds, ...job });
  for (const { by, ...recording } of recordings) await recordStep(deps, by?.(world) ?? world.operator, { jobId, ...recording });
  return jobId;
}

const deviationsOf = (jobId: number, equal: Record<string, unknown>[]): RowsExpectation => ({
  table: 'deviations',
  where: { job_id: jobId },
  equal,
});

const HIGH: Recording = { stepId: 'pressure', status: 'DONE', values: [{ key: 'bar', value: 2.5 }] };
const FAILED_SEAL: Recording = { stepId: 'seal', status: 'FAILED', values: [{ key: 'ok', value: 'FAIL' }] };
const PAINTED: Recording = { stepId: 'paint', status: 'DONE', values: [{ key: 'colour', value: 'RAL 5010' }] };

// ── raised by the recording ────────────────────────────────────────────────

s.scenario('a value out of limits is a deviation of its field, with the value and the limits', {
  given: ({ deps, world }) => jobWith(deps, world),
  when: ({ deps, world, given }) => recordStep(deps, world.operator, { jobId: given, ...HIGH }),
  then: ({ world, given }) => ({
    rows: [
      deviationsOf(given, [
        {
          kind: 'OUT_OF_LIMITS',
          step_id: 'pressure',
          field_key: 'bar',
          value: '2.5',
          raised_by: world.operator.userId,
          acknowledged_at: null,
        },
      ]),
    ],
  }),
});

s.scenario('the same out-of-limit value recorded again (a retry) is no second deviation', {
  given: ({ deps, world }) => jobWith(deps, world, [HIGH]),
  when: ({ deps, world, given }) => recordStep(deps, world.operator, { jobId: given, ...HIGH }),
  then: ({ given }) => ({ rows: [deviationsOf(given, [{ kind: 'OUT_OF_LIMITS', value: '2.5' }])] }),
});

s.scenario('a FAILED step is a deviation of the step', {
  given: ({ deps, world }) => jobWith(deps, world, [HIGH]),
  when: ({ deps, world, given }) => recordStep(deps, world.operator, { jobId: given, ...FAILED_SEAL }),
  then: ({ given }) => ({
    rows: [
      deviationsOf(given, [
        { kind: 'OUT_OF_LIMITS', step_id: 'pressure', field_key: 'bar' },
        { kind: 'STEP_FAILED', step_id: 'seal', field_key: null, value: null },
      ]),
    ],
  }),
});

s.scenario('a value within the limits raises none', {
  given: ({ deps, world }) => jobWith(deps, world),
  when: ({ deps, world, given }) =>
    recordStep(deps, world.operator, { jobId: given, stepId: 'pressure', status: 'DONE', values: [{ key: 'bar', value: 1.5 }] }),
  then: ({ given }) => ({ rows: [deviationsOf(given, [])] }),
});

// ── completion needs a comment on a deviating step ─────────────────────────

s.scenario('completion names every deviating step without a comment (COMMENT_REQUIRED)', {
  given: ({ deps, world }) => jobWith(deps, world, [HIGH, FAILED_SEAL, PAINTED]),
  when: ({ deps, world, given }) => transitionJob(deps, world.operator, { jobId: given, action: 'complete' }),
  then: { error: { code: 'COMMENT_REQUIRED', status: 422, details: { steps: ['pressure', 'seal'] } } },
});

s.scenario("the comment is the step's own: recorded again with one (no new deviation), the step no longer holds completion", {
  given: ({ deps, world }) => jobWith(deps, world, [HIGH, FAILED_SEAL, PAINTED, { ...HIGH, comment: 'Gauge reads high, rechecked' }]),
  when: ({ deps, world, given }) => transitionJob(deps, world.operator, { jobId: given, action: 'complete' }),
  then: ({ given }) => ({
    error: { code: 'COMMENT_REQUIRED', status: 422, details: { steps: ['seal'] } },
    rows: [deviationsOf(given, [{ kind: 'OUT_OF_LIMITS' }, { kind: 'STEP_FAILED' }])],
  }),
});

s.scenario('every deviating step commented, the job completes', {
  given: ({ deps, world }) =>
    jobWith(deps, world, [
      { ...HIGH, comment: 'Gauge reads high, rechecked' },
      { ...FAILED_SEAL, comment: 'Seal cracked, replaced' },
      PAINTED,
    ]),
  when: ({ deps, world, given }) => transitionJob(deps, world.operator, { jobId: given, action: 'complete' }),
  then: ({ given }) => ({
    rows: [
      { table: 'jobs', where: { id: given }, equal: [{ state: 'COMPLETED' }] },
      deviationsOf(given, [{ kind: 'OUT_OF_LIMITS' }, { kind: 'STEP_FAILED' }]),
    ],
  }),
});

// ── marking a step not applicable ──────────────────────────────────────────

const MARK_REFUSALS: [string, string, string, string][] = [
  ['a step the template does not allow', 'close', 'no cover', 'stepId'],
  ['a blank reason', 'paint', '  ', 'reason'],
  ['an unknown step', 'nope', 'x', 'stepId'],
];
for (const [title, stepId, reason, path] of MARK_REFUSALS)
  s.scenario(`marking not applicable is refused for ${title}, naming ${path}`, {
    given: ({ deps, world }) => jobWith(deps, world),
    when: ({ deps, world, given }) => markStepNotApplicable(deps, world.operator, { jobId: given, stepId, reason }),
    then: ({ given }) => ({
      error: { code: 'VALIDATION_ERROR', status: 422, details: { fields: [{ path }] } },
      rows: [deviationsOf(given, []), { table: 'step_records', where: { job_id: given }, equal: [] }],
    }),
  });

s.scenario('a reviewer (who runs no jobs) may not mark a step not applicable', {
  given: ({ deps, world }) => jobWith(deps, world),
  when: ({ deps, world, given }) => markStepNotApplicable(deps, world.reviewer, { jobId: given, stepId: 'paint', reason: 'x' }),
  then: { error: { code: 'FORBIDDEN', status: 403 } },
});

s.scenario('a step marked not applicable is SKIPPED with the reason and a NOT_APPLICABLE deviation', {
  given: ({ deps, world }) => jobWith(deps, world),
  when: ({ deps, world, given }) =>
    markStepNotApplicable(deps, world.operator, { jobId: given, stepId: 'paint', reason: 'Paint is intact' }),
  then: ({ world, given }) => ({
    rows: [
      { table: 'jobs', where: { id: given }, equal: [{ state: 'IN_PROGRESS' }] },
      { table: 'step_records', where: { job_id: given }, equal: [{ step_id: 'paint', status: 'SKIPPED', reason: 'Paint is intact' }] },
      deviationsOf(given, [{ kind: 'NOT_APPLICABLE', step_id: 'paint', detail: 'Paint is intact', raised_by: world.operator.userId }]),
    ],
  }),
});

s.scenario('the same mark again (a retry) adds no second deviation', {
  given: async ({ deps, world }) => {
    const jobId = await jobWith(deps, world);
    await markStepNotApplicable(deps, world.operator, { jobId, stepId: 'paint', reason: 'Paint is intact' });
    return jobId;
  },
  when: ({ deps, world, given }) =>
    markStepNotApplicable(deps, world.operator, { jobId: given, stepId: 'paint', reason: 'Paint is intact' }),
  then: ({ given }) => ({ rows: [deviationsOf(given, [{ kind: 'NOT_APPLICABLE' }])] }),
});

s.scenario('the required field of a step marked not applicable does not hold completion', {
  given: async ({ deps, world }) => {
    const jobId = await jobWith(deps, world, [{ stepId: 'close', status: 'DONE' }]);
    await markStepNotApplicable(deps, world.operator, { jobId, stepId: 'paint', reason: 'Paint is intact' });
    return jobId;
  },
  when: ({ deps, world, given }) => transitionJob(deps, world.operator, { jobId: given, action: 'complete' }),
  then: ({ given }) => ({ rows: [{ table: 'jobs', where: { id: given }, equal: [{ state: 'COMPLETED' }] }] }),
});

// ── faults and late completions ────────────────────────────────────────────

s.scenario('a fault raised on the job is a deviation of its step, with severity and description', {
  given: ({ deps, world }) => jobWith(deps, world),
  when: ({ deps, world, given }) =>
    raiseFault(deps, world.operator, { jobId: given, stepId: 'seal', description: 'Oil on the floor', severity: 'HIGH' }),
  then: ({ given }) => ({
    rows: [deviationsOf(given, [{ kind: 'FAULT', step_id: 'seal', detail: 'HIGH: Oil on the floor' }])],
  }),
});

s.scenario('completing after the due date is a LATE_COMPLETION deviation', {
  given: ({ deps, world }) => jobWith(deps, world, [PAINTED], { dueAt: new Date(deps.clock.now().getTime() + 60_000).toISOString() }),
  when: ({ deps, world, given }) => {
    deps.clock.advance(120_000);
    return transitionJob(deps, world.operator, { jobId: given, action: 'complete' });
  },
  then: ({ world, given }) => ({
    rows: [deviationsOf(given, [{ kind: 'LATE_COMPLETION', step_id: null, raised_by: world.operator.userId }])],
  }),
});

s.scenario('completing before the due date raises none', {
  given: ({ deps, world }) => jobWith(deps, world, [PAINTED], { dueAt: new Date(deps.clock.now().getTime() + 60_000).toISOString() }),
  when: ({ deps, world, given }) => transitionJob(deps, world.operator, { jobId: given, action: 'complete' }),
  then: ({ given }) => ({ rows: [deviationsOf(given, [])] }),
});

// ── acknowledging ──────────────────────────────────────────────────────────

/** The id of the out-of-limit deviation of a new job. */
async function oneDeviation(deps: ServiceDeps, world: World): Promise<number> {
  const jobId = await jobWith(deps, world, [HIGH]);
  const row = await deps.db.kysely.selectFrom('deviations').select('id').where('job_id', '=', jobId).executeTakeFirstOrThrow();
  return row.id;
}

s.scenario('an operator may not acknowledge a deviation', {
  given: ({ deps, world }) => oneDeviation(deps, world),
  when: ({ deps, world, given }) => acknowledgeDeviation(deps, world.operator, { deviationId: given, comment: 'fine' }),
  then: { error: { code: 'FORBIDDEN', status: 403 } },
});

s.scenario('acknowledging needs a comment', {
  given: ({ deps, world }) => oneDeviation(deps, world),
  when: ({ deps, world, given }) => acknowledgeDeviation(deps, world.reviewer, { deviationId: given, comment: '   ' }),
  then: { error: { code: 'VALIDATION_ERROR', status: 422, details: { fields: [{ path: 'comment' }] } } },
});

s.scenario('a reviewer acknowledges with a comment: by whom and when are kept', {
  given: ({ deps, world }) => oneDeviation(deps, world),
  when: ({ deps, world, given }) =>
    acknowledgeDeviation(deps, world.reviewer, { deviationId: given, comment: 'Sensor drift, recalibrated' }),
  then: ({ deps, world, given }) => ({
    rows: [
      {
        table: 'deviations',
        where: { id: given },
        equal: [
          {
            ack_comment: 'Sensor drift, recalibrated',
            acknowledged_by: world.reviewer.userId,
            acknowledged_by_name: `${world.reviewer.user.first_name} ${world.reviewer.user.last_name}`,
            acknowledged_at: deps.clock.now().toISOString(),
          },
        ],
      },
    ],
  }),
});

s.scenario('a deviation is acknowledged once: again is a CONFLICT and keeps the first comment', {
  given: async ({ deps, world }) => {
    const id = await oneDeviation(deps, world);
    await acknowledgeDeviation(deps, world.reviewer, { deviationId: id, comment: 'first' });
    return id;
  },
  when: ({ deps, world, given }) => acknowledgeDeviation(deps, world.both, { deviationId: given, comment: 'again' }),
  then: ({ given }) => ({
    error: { code: 'CONFLICT', status: 409, details: { deviationId: given } },
    rows: [{ table: 'deviations', where: { id: given }, equal: [{ ack_comment: 'first' }] }],
  }),
});

s.scenario("another client's deviation is NOT_FOUND", {
  given: async ({ deps, world }) => {
    const other = await seedClient(deps);
    return { id: await oneDeviation(deps, world), stranger: await other.user(['approver']) };
  },
  when: ({ deps, given }) => acknowledgeDeviation(deps, given.stranger, { deviationId: given.id, comment: 'mine?' }),
  then: { error: { code: 'NOT_FOUND', status: 404 } },
});

// ── reviewing the job ──────────────────────────────────────────────────────

/** A completed job: pressure out of limits (commented, so it completes) recorded by the operator, paint by `both`. */
async function completedJob(deps: ServiceDeps, world: World, acknowledged = false): Promise<number> {
  const jobId = await jobWith(deps, world, [
    { ...HIGH, comment: 'Relief valve stuck' },
    { ...PAINTED, by: (w) => w.both },
  ]);
  await transitionJob(deps, world.operator, { jobId, action: 'complete' });
  if (acknowledged)
    for (const d of await deps.db.kysely.selectFrom('deviations').select('id').where('job_id', '=', jobId).execute())
      await acknowledgeDeviation(deps, world.reviewer, { deviationId: d.id, comment: 'Valve replaced under work order 77' });
  return jobId;
}

const review = (deps: ServiceDeps, who: UserActor, jobId: number, password = PASSWORD) =>
  reviewJob(deps, who, { jobId, password, comment: 'All explained' }, META);

const REVIEW_REFUSALS: [string, (w: World) => UserActor, string, number][] = [
  ['an operator is no reviewer', (w) => w.operator, 'FORBIDDEN', 403],
  ['a reviewer who recorded a step of the job', (w) => w.both, 'SEPARATION_OF_DUTIES', 403],
];
for (const [title, who, code, status] of REVIEW_REFUSALS)
  s.scenario(`reviewJob refuses ${title}`, {
    given: ({ deps, world }) => completedJob(deps, world, true),
    when: ({ deps, world, given }) => review(deps, who(world), given),
    then: { error: { code, status } },
  });

s.scenario('reviewJob refuses a job not completed yet', {
  given: ({ deps, world }) => jobWith(deps, world, [PAINTED]),
  when: ({ deps, world, given }) => review(deps, world.reviewer, given),
  then: { error: { code: 'INVALID_TRANSITION', status: 409 } },
});

s.scenario('reviewJob names the deviations not acknowledged yet (COMMENT_REQUIRED)', {
  given: async ({ deps, world }) => {
    const jobId = await completedJob(deps, world);
    const rows = await deps.db.kysely.selectFrom('deviations').select('id').where('job_id', '=', jobId).orderBy('id').execute();
    return { jobId, open: rows.map((r) => r.id) };
  },
  when: ({ deps, world, given }) => review(deps, world.reviewer, given.jobId),
  then: ({ given }) => ({ error: { code: 'COMMENT_REQUIRED', status: 422, details: { deviationIds: given.open } } }),
});

s.scenario('every deviation acknowledged, the reviewer signs the job REVIEWED', {
  given: ({ deps, world }) => completedJob(deps, world, true),
  when: ({ deps, world, given }) => review(deps, world.reviewer, given),
  then: ({ world, given }) => ({
    rows: [
      { table: 'jobs', where: { id: given }, equal: [{ state: 'REVIEWED' }] },
      {
        table: 'job_reviews',
        where: { job_id: given },
        equal: [{ signer_id: world.reviewer.userId, comment: 'All explained', method: 'password' }],
      },
    ],
  }),
});

s.scenario('a reviewed job takes no more recording (JOB_CLOSED)', {
  given: async ({ deps, world }) => {
    const jobId = await completedJob(deps, world, true);
    await review(deps, world.reviewer, jobId);
    return jobId;
  },
  when: ({ deps, world, given }) => recordStep(deps, world.operator, { jobId: given, stepId: 'close', status: 'DONE' }),
  then: { error: { code: 'JOB_CLOSED', status: 409 } },
});

s.run();
