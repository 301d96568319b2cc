import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createJob, listCompletionBlockers, recordStep, transitionJob } from '#services/jobs';
import { raiseFault } from '#services/faults';
import { createSkill, grantSkill } from '#services/qualifications';
import { getJobById } from '#repos/jobs';
import { CAPTURE_SKEW_MS, durationText, enteredOffline, stepDurations } from '#domain/capture-time';
import type { UserActor } from '#services/actor';
import { publishedTemplate, refusal, seedClient, serviceDeps, type ServiceDeps } from '../helpers/service-deps';

// Capture time where the rules live (docs/records.md): the bounds on a capture time, the step revision that stops a silent
// overwrite, and the completion blockers that are completeJob's own checks.

const META = { ip: null, userAgent: null };
const MINUTE = 60_000;
const CONTENT = {
  qualifications: [{ skill: 'Pumps', level: 1 }],
  sections: [
    {
      title: 'Checks',
      steps: [
        { id: 'isolate', title: 'Isolate the pump', fields: [{ key: 'locked', type: 'PASS_FAIL', required: true }] },
        { id: 'pressure', title: 'Read the pressure', fields: [{ key: 'bar', type: 'NUMBER', min: 1, max: 3, required: true }] },
      ],
    },
  ],
};

interface Ctx {
  deps: ServiceDeps;
  owner: UserActor;
  operator: UserActor;
  /** a second qualified operator */
  colleague: UserActor;
  templateId: number;
}
const test = suite<Ctx>('capture time and step revisions (services)');

test.before(async (ctx) => {
  ctx.deps = await serviceDeps();
  const { user, owner } = await seedClient(ctx.deps);
  ctx.owner = owner;
  const author = await user(['author']);
  const approver = await user(['approver']);
  const publisher = await user(['publisher']);
  ctx.operator = await user(['operator']);
  const skill = await createSkill(ctx.deps, owner, { name: 'Pumps' });
  ctx.colleague = await user(['operator']);
  for (const holder of [ctx.operator, ctx.colleague]) await grantSkill(ctx.deps, owner, { userId: holder.userId, skillId: skill.id }, META);
  ctx.templateId = (await publishedTemplate(ctx.deps, { author, approver, publisher }, CONTENT)).templateId;
});

test.after(async ({ deps }) => {
  await deps.close();
});

const newJob = async ({ deps, operator, templateId }: Ctx) => createJob(deps, operator, { templateId, title: 'Pump 4' });
const at = (base: string | Date, ms: number) => new Date(new Date(base).getTime() + ms).toISOString();
const pathsOf = (error: { details?: Record<string, unknown> }) => (error.details?.fields as { path: string }[]).map((f) => f.path);
const record = (jobId: number, more: Record<string, unknown> = {}) => ({
  jobId,
  stepId: 'pressure',
  status: 'DONE' as const,
  values: [{ key: 'bar', value: 2 }],
  ...more,
});
const stored = (deps: ServiceDeps, jobId: number, stepId = 'pressure') =>
  deps.db.kysely.selectFrom('step_records').selectAll().where('job_id', '=', jobId).where('step_id', '=', stepId).executeTakeFirst();

test('a capture time is kept within the skew of the bounds, refused past them, and the receipt time when absent', async (ctx) => {
  const { deps, operator } = ctx;
  const job = await newJob(ctx);
  deps.clock.advance(2 * 60 * MINUTE);
  const now = deps.clock.now().toISOString();
  for (const [capturedAt, why] of [
    [at(now, CAPTURE_SKEW_MS + 1000), 'in the future'],
    [at(job.created_at, -CAPTURE_SKEW_MS - 1000), 'before the job existed'],
    ['yesterday', 'not a date-time'],
  ]) {
    const refused = await refusal(recordStep(deps, operator, record(job.id, { capturedAt })));
    assert.is(refused.code, 'VALIDATION_ERROR', why);
    assert.equal(pathsOf(refused), ['capturedAt'], why);
  }
  assert.is(await stored(deps, job.id), undefined, 'a refusal changes nothing');
  assert.is((await getJobById(deps.db.kysely, operator.scope, job.id)).state, 'OPEN');

  // at the edges of the skew: a device clock a little ahead, a job created a moment before the device's offset reading
  for (const capturedAt of [at(now, CAPTURE_SKEW_MS), at(job.created_at, -CAPTURE_SKEW_MS)]) {
    await recordStep(deps, operator, record(job.id, { capturedAt }));
    const row = (await stored(deps, job.id))!;
    assert.is(row.captured_at, capturedAt);
    assert.is(row.recorded_at, now);
  }
  // the event (what webhooks and the event stream send) carries both
  const event = await deps.db.kysely
    .selectFrom('events')
    .select('payload')
    .where('type', '=', 'job.step.recorded')
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  const sent = (JSON.parse(event.payload) as { data: { record: Record<string, unknown> } }).data.record;
  assert.equal([sent.capturedAt, sent.receivedAt, sent.recordedAt, sent.revision], [at(job.created_at, -CAPTURE_SKEW_MS), now, now, 2]);
  await recordStep(deps, operator, record(job.id));
  assert.is((await stored(deps, job.id))!.captured_at, now, 'no capture time sent: the receipt time');
});

test('the job starts and completes at the capture times of its recordings and transitions', async (ctx) => {
  const { deps, operator } = ctx;
  const job = await newJob(ctx);
  deps.clock.advance(3 * 60 * MINUTE);
  const firstEntry = at(job.created_at, 10 * MINUTE);
  const { job: started } = await recordStep(
    deps,
    operator,
    record(job.id, { stepId: 'isolate', values: [{ key: 'locked', value: true }], capturedAt: firstEntry }),
  );
  assert.is(started.started_at, firstEntry, 'started when the first step was entered, not when it synced');
  await recordStep(deps, operator, record(job.id, { capturedAt: at(job.created_at, 25 * MINUTE) }));
  const tooLate = await refusal(
    transitionJob(deps, operator, { jobId: job.id, action: 'complete', capturedAt: at(deps.clock.now(), 5 * MINUTE) }),
  );
  assert.equal(pathsOf(tooLate), ['capturedAt']);
  const completedAt = at(job.created_at, 30 * MINUTE);
  const completed = await transitionJob(deps, operator, { jobId: job.id, action: 'complete', capturedAt: completedAt });
  assert.is(completed.completed_at, completedAt);
  assert.is(completed.updated_at, deps.clock.now().toISOString(), 'the receipt time stays the write time');
  const rows = await deps.db.kysely.selectFrom('step_records').select(['step_id', 'captured_at']).where('job_id', '=', job.id).execute();
  const durations = stepDurations(
    completed.started_at,
    rows.map((r) => ({ stepId: r.step_id, capturedAt: r.captured_at })),
  );
  assert.equal(Object.fromEntries(durations), { isolate: 0, pressure: 15 * MINUTE });
  assert.is(durationText(Date.parse(completed.completed_at!) - Date.parse(completed.started_at!)), '20 min');
});

test('a record entered offline before the start another device sent moves the start back to it', async (ctx) => {
  const { deps, operator, colleague } = ctx;
  const job = await newJob(ctx);
  deps.clock.advance(60 * MINUTE);
  await transitionJob(deps, colleague, { jobId: job.id, action: 'start', capturedAt: at(job.created_at, 20 * MINUTE) });
  const { job: synced } = await recordStep(deps, operator, record(job.id, { capturedAt: at(job.created_at, 5 * MINUTE) }));
  assert.is(synced.started_at, at(job.created_at, 5 * MINUTE));
  const { job: later } = await recordStep(deps, operator, record(job.id, { stepId: 'isolate', values: [{ key: 'locked', value: true }] }));
  assert.is(later.started_at, at(job.created_at, 5 * MINUTE), 'a later entry leaves the start where it is');
});

test('expectedStepRevision: absent is not checked, 0 or null means no record, a stale one is a CONFLICT naming the record', async (ctx) => {
  const { deps, operator, colleague } = ctx;
  const job = await newJob(ctx);
  await recordStep(deps, operator, record(job.id, { expectedStepRevision: null }));
  assert.is((await stored(deps, job.id))!.revision, 1);
  for (const seen of [0, null, 2]) {
    const stale = await refusal(
      recordStep(deps, operator, record(job.id, { expectedStepRevision: seen, values: [{ key: 'bar', value: 9 }] })),
    );
    assert.is(stale.code, 'CONFLICT', String(seen));
    const details = stale.details as { stepId: string; record: { revision: number; values: { value: unknown }[] } };
    assert.is(details.stepId, 'pressure');
    assert.is(details.record.revision, 1);
    assert.equal(
      details.record.values.map((v) => v.value),
      [2],
    );
  }
  assert.is((await stored(deps, job.id))!.values, JSON.stringify([{ key: 'bar', value: 2, outOfLimits: false }]), 'nothing changed');
  // whoever changed it — a colleague here, the same user on another device alike — the old revision is stale
  await recordStep(deps, colleague, record(job.id, { expectedStepRevision: 1, values: [{ key: 'bar', value: 3 }] }));
  assert.is((await stored(deps, job.id))!.revision, 2);
  assert.is((await refusal(recordStep(deps, operator, record(job.id, { expectedStepRevision: 1 })))).code, 'CONFLICT');
  // absent: recorded over whatever is there, as before
  await recordStep(deps, operator, record(job.id, { values: [{ key: 'bar', value: 1 }] }));
  assert.is((await stored(deps, job.id))!.revision, 3);
});

test("completion blockers are exactly what completeJob refuses for, the completer's qualification included", async (ctx) => {
  const { deps, operator, owner } = ctx;
  const job = await newJob(ctx);
  const blockers = async (who: UserActor) =>
    (await listCompletionBlockers(deps, who, await getJobById(deps.db.kysely, who.scope, job.id))).map((b) => [b.code, b.stepId]);
  await recordStep(deps, operator, record(job.id, { values: [{ key: 'bar', value: 9 }] }));
  assert.equal(await blockers(operator), [
    ['REQUIRED_FIELDS_MISSING', 'isolate'],
    ['COMMENT_REQUIRED', 'pressure'],
  ]);
  assert.is((await refusal(transitionJob(deps, operator, { jobId: job.id, action: 'complete' }))).code, 'REQUIRED_FIELDS_MISSING');
  await recordStep(deps, operator, record(job.id, { stepId: 'isolate', values: [{ key: 'locked', value: true }] }));
  await recordStep(deps, operator, record(job.id, { values: [{ key: 'bar', value: 9 }], comment: 'relief valve reset' }));
  assert.equal(await blockers(operator), []);
  // the owner holds no Pumps skill: the server refuses them the completion, and says so beforehand
  assert.equal(await blockers(owner), [['NOT_QUALIFIED', null]]);
  assert.is((await refusal(transitionJob(deps, owner, { jobId: job.id, action: 'complete' }))).code, 'NOT_QUALIFIED');
  assert.is((await transitionJob(deps, operator, { jobId: job.id, action: 'complete' })).state, 'COMPLETED');
  assert.equal(await blockers(operator), [['INVALID_TRANSITION', null]]);
});

test('a fault takes the same bounds: its job, or its asset, existed when it was raised', async (ctx) => {
  const { deps, operator } = ctx;
  const job = await newJob(ctx);
  deps.clock.advance(60 * MINUTE);
  const capturedAt = at(job.created_at, 5 * MINUTE);
  const fault = await raiseFault(deps, operator, { jobId: job.id, description: 'Leak', severity: 'HIGH', capturedAt });
  assert.is(fault.captured_at, capturedAt);
  assert.is(fault.raised_at, deps.clock.now().toISOString());
  const early = await refusal(
    raiseFault(deps, operator, { jobId: job.id, description: 'Leak', severity: 'HIGH', capturedAt: at(job.created_at, -2 * MINUTE) }),
  );
  assert.equal(pathsOf(early), ['capturedAt']);
});

test('entered offline: synced more than a minute after capture', () => {
  const capturedAt = '2026-01-01T10:00:00.000Z';
  assert.not.ok(enteredOffline({ capturedAt, receivedAt: '2026-01-01T10:01:00.000Z' }));
  assert.ok(enteredOffline({ capturedAt, receivedAt: '2026-01-01T10:01:00.001Z' }));
});

test.run();
