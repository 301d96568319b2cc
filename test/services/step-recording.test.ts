import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createJob, recordStep, transitionJob } from '#services/jobs';
import { markStepNotApplicable } from '#services/deviations';
import type { UserActor } from '#services/actor';
import { publishedTemplate, refusal, seedClient, serviceDeps, type ServiceDeps } from '../helpers/service-deps';

// Recording a step: the values checked against the step's fields, the job's state machine around it.

const CONTENT = {
  sections: [
    {
      title: 'Checks',
      steps: [
        { id: 'isolate', title: 'Isolate the pump', fields: [{ key: 'locked', type: 'PASS_FAIL', required: true }] },
        {
          id: 'pressure',
          title: 'Read the pressure',
          fields: [{ key: 'bar', type: 'NUMBER', unit: 'bar', min: 1, max: 3, required: true }],
        },
        { id: 'guard', title: 'Refit the guard', allowNotApplicable: true, fields: [] },
      ],
    },
  ],
};

const test = suite<{ deps: ServiceDeps; operator: UserActor; jobId: number; newJob: () => Promise<number> }>('step recording (services)');

test.before(async (ctx) => {
  ctx.deps = await serviceDeps();
  const { user } = await seedClient(ctx.deps);
  const author = await user(['author']);
  const approver = await user(['approver']);
  const publisher = await user(['publisher']);
  ctx.operator = await user(['operator']);
  const template = { id: (await publishedTemplate(ctx.deps, { author, approver, publisher }, CONTENT)).templateId };
  ctx.newJob = async () =>
    (await createJob(ctx.deps, ctx.operator, { templateId: template.id, title: 'Pump 4', assigneeIds: [ctx.operator.userId] })).id;
  ctx.jobId = await ctx.newJob();
});

test.after(async ({ deps }) => {
  await deps.close();
});

const fieldsOf = (error: { details?: Record<string, unknown> }) => (error.details?.fields as { path: string }[]).map((f) => f.path);

test('a value of the wrong type, or for no field of the step, is refused naming the field', async ({ deps, operator, jobId }) => {
  const wrongType = await refusal(
    recordStep(deps, operator, { jobId, stepId: 'pressure', status: 'DONE', values: [{ key: 'bar', value: 'seven' }] }),
  );
  assert.is(wrongType.code, 'VALIDATION_ERROR');
  assert.equal(fieldsOf(wrongType), ['values.bar']);
  const unknown = await refusal(
    recordStep(deps, operator, { jobId, stepId: 'pressure', status: 'DONE', values: [{ key: 'psi', value: 40 }] }),
  );
  assert.equal(fieldsOf(unknown), ['values.psi']);
  const noStep = await refusal(recordStep(deps, operator, { jobId, stepId: 'nowhere', status: 'DONE' }));
  assert.equal(fieldsOf(noStep), ['stepId']);
  const skipped = await refusal(recordStep(deps, operator, { jobId, stepId: 'isolate', status: 'SKIPPED' }));
  assert.equal(fieldsOf(skipped), ['reason']);
});

test('a value outside the limits is kept, marked; PASS_FAIL is stored in one form; recording starts the job', async ({
  deps,
  operator,
  jobId,
}) => {
  const { job, record } = await recordStep(deps, operator, {
    jobId,
    stepId: 'pressure',
    status: 'DONE',
    values: [{ key: 'bar', value: 7 }],
  });
  assert.is(job.state, 'IN_PROGRESS', 'recording starts an OPEN job');
  await recordStep(deps, operator, { jobId, stepId: 'isolate', status: 'DONE', values: [{ key: 'locked', value: true }] });
  const rows = await deps.db.kysely.selectFrom('step_records').selectAll().where('job_id', '=', jobId).orderBy('step_id').execute();
  assert.equal(record, rows[1], 'the record returned is the one stored');
  assert.equal(
    rows.map((r) => [r.step_id, JSON.parse(r.values)]),
    [
      ['isolate', [{ key: 'locked', value: 'PASS', outOfLimits: false }]],
      ['pressure', [{ key: 'bar', value: 7, outOfLimits: true }]],
    ],
  );
});

test('an out-of-limit value needs a comment before completing; a closed job takes no more records', async ({ deps, operator, jobId }) => {
  // the pressure of 7 bar above is out of limits: completing needs its comment first (docs/execution-rules.md)
  const uncommented = await refusal(transitionJob(deps, operator, { jobId, action: 'complete' }));
  assert.is(uncommented.code, 'COMMENT_REQUIRED');
  await recordStep(deps, operator, {
    jobId,
    stepId: 'pressure',
    status: 'DONE',
    values: [{ key: 'bar', value: 7 }],
    comment: 'Gauge replaced, reading confirmed',
  });
  assert.is((await transitionJob(deps, operator, { jobId, action: 'complete' })).state, 'COMPLETED');
  const closed = await refusal(
    recordStep(deps, operator, { jobId, stepId: 'isolate', status: 'DONE', values: [{ key: 'locked', value: 'FAIL' }] }),
  );
  assert.is(closed.code, 'JOB_CLOSED');
  assert.is((await refusal(transitionJob(deps, operator, { jobId, action: 'pause' }))).code, 'INVALID_TRANSITION');
});

test('marking a step not applicable records it SKIPPED with one NOT_APPLICABLE deviation, where the template allows it', async ({
  deps,
  operator,
  newJob,
}) => {
  const jobId = await newJob();
  const deviations = () =>
    deps.db.kysely.selectFrom('deviations').select(['kind', 'step_id', 'detail']).where('job_id', '=', jobId).orderBy('id').execute();
  const refused = await refusal(markStepNotApplicable(deps, operator, { jobId, stepId: 'isolate', reason: 'no pump' }));
  assert.is(refused.code, 'VALIDATION_ERROR');
  assert.equal(fieldsOf(refused), ['stepId']);
  assert.equal(await deviations(), [], 'a refused mark changes nothing');
  assert.is(
    (await deps.db.kysely.selectFrom('jobs').select('state').where('id', '=', jobId).executeTakeFirstOrThrow()).state,
    'OPEN',
    'nor does it start the job',
  );

  const job = await markStepNotApplicable(deps, operator, { jobId, stepId: 'guard', reason: 'no guard on this model' });
  assert.is(job.state, 'IN_PROGRESS');
  const record = await deps.db.kysely
    .selectFrom('step_records')
    .select(['status', 'reason'])
    .where('job_id', '=', jobId)
    .where('step_id', '=', 'guard')
    .executeTakeFirstOrThrow();
  assert.equal(record, { status: 'SKIPPED', reason: 'no guard on this model' });
  await markStepNotApplicable(deps, operator, { jobId, stepId: 'guard', reason: 'no guard on this model' });
  assert.equal(
    await deviations(),
    [{ kind: 'NOT_APPLICABLE', step_id: 'guard', detail: 'no guard on this model' }],
    'the same mark again (a retry) adds none',
  );
  await markStepNotApplicable(deps, operator, { jobId, stepId: 'guard', reason: 'guard removed for good' });
  assert.is((await deviations()).length, 2, 'a new reason is a new deviation');
});

test.run();
