import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createJob, recordStep, transitionJob } from '#services/jobs';
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
      ],
    },
  ],
};

const test = suite<{ deps: ServiceDeps; operator: UserActor; jobId: number }>('step recording (services)');

test.before(async (ctx) => {
  ctx.deps = await serviceDeps();
  const { user } = await seedClient(ctx.deps);
  const author = await user(['author']);
  const approver = await user(['approver']);
  const publisher = await user(['publisher']);
  ctx.operator = await user(['operator']);
  const template = { id: (await publishedTemplate(ctx.deps, { author, approver, publisher }, CONTENT)).templateId };
  ctx.jobId = (
    await createJob(ctx.deps, ctx.operator, { templateId: template.id, title: 'Pump 4', assigneeIds: [ctx.operator.userId] })
  ).id;
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
  const job = await recordStep(deps, operator, { jobId, stepId: 'pressure', status: 'DONE', values: [{ key: 'bar', value: 7 }] });
  assert.is(job.state, 'IN_PROGRESS', 'recording starts an OPEN job');
  await recordStep(deps, operator, { jobId, stepId: 'isolate', status: 'DONE', values: [{ key: 'locked', value: true }] });
  const rows = await deps.db.kysely
    .selectFrom('step_records')
    .select(['step_id', 'values'])
    .where('job_id', '=', jobId)
    .orderBy('step_id')
    .execute();
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

test.run();
