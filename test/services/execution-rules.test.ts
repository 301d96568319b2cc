import { createJob, recordStep, transitionJob } from '#services/jobs';
import type { UserActor } from '#services/actor';
import { publishedTemplate, seedClient, type ServiceDeps } from '../helpers/service-deps';
import { scenarios } from '../helpers/scenarios';

// The execution rules (docs/execution-rules.md) where they live: conditions on steps and sections, calculated
// fields and their limits, required fields at completion, a step that does not apply.

/** A seal check; "replace the seal" only when it FAILED; a pressure test with a calculated difference; a leak section. */
const RULES_CONTENT = {
  sections: [
    {
      id: 'checks',
      title: 'Checks',
      steps: [
        { id: 'seal', title: 'Check the seal', fields: [{ key: 'ok', type: 'PASS_FAIL', required: true }] },
        {
          id: 'replace',
          title: 'Replace the seal',
          when: { step: 'seal', field: 'ok', op: 'eq', value: 'FAIL' },
          fields: [{ key: 'part', type: 'TEXT', required: true }],
        },
        {
          id: 'pressure',
          title: 'Pressure test',
          fields: [
            { key: 'p_in', type: 'NUMBER', unit: 'bar', required: true },
            { key: 'p_out', type: 'NUMBER', unit: 'bar', required: true },
            { key: 'drop', type: 'CALCULATED', expression: 'round(p_out - p_in, 1)', unit: 'bar', min: -0.5, max: 0.5 },
            { key: 'ratio', type: 'CALCULATED', expression: 'p_out / p_in' },
          ],
        },
      ],
    },
    {
      id: 'after',
      title: 'After a leak',
      when: {
        any: [
          { step: 'pressure', field: 'drop', op: 'outOfLimits' },
          { step: 'seal', status: 'FAILED' },
        ],
      },
      steps: [{ id: 'report', title: 'Report the leak', fields: [{ key: 'note', type: 'TEXT', required: true }] }],
    },
  ],
};

interface World {
  operator: UserActor;
  templateId: number;
}

const s = scenarios<World>('execution rules', async (deps) => {
  const { user } = await seedClient(deps);
  const [author, approver, publisher, operator] = [
    await user(['author']),
    await user(['approver']),
    await user(['publisher']),
    await user(['operator']),
  ];
  const { templateId } = await publishedTemplate(deps, { author, approver, publisher }, RULES_CONTENT, 'Seal and pressure');
  return { operator, templateId };
});

type Values = { key: string; value?: unknown }[];

/** A new job on the rules template, assigned to the operator, with these steps already recorded DONE. */
async function jobWith(deps: ServiceDeps, world: World, recorded: [string, Values][] = []): Promise<number> {
  const job = await createJob(deps, world.operator, { templateId: world.templateId, title: 'Seal', assigneeIds: [world.operator.userId] });
  for (const [stepId, values] of recorded) await recordStep(deps, world.operator, { jobId: job.id, stepId, status: 'DONE', values });
  return job.id;
}

const PRESSURE_OK: [string, Values] = [
  'pressure',
  [
    { key: 'p_in', value: 10 },
    { key: 'p_out', value: 10.2 },
  ],
];

s.scenario('a PASS seal check leaves "replace the seal" out: recording it is STEP_NOT_APPLICABLE', {
  given: ({ deps, world }) => jobWith(deps, world, [['seal', [{ key: 'ok', value: 'PASS' }]]]),
  when: ({ deps, world, given }) =>
    recordStep(deps, world.operator, { jobId: given, stepId: 'replace', status: 'DONE', values: [{ key: 'part', value: 'S-12' }] }),
  then: ({ given }) => ({
    error: { code: 'STEP_NOT_APPLICABLE', status: 422, details: { stepId: 'replace' } },
    rows: [{ table: 'step_records', where: { job_id: given }, orderBy: 'step_id', equal: [{ step_id: 'seal' }] }],
  }),
});

s.scenario('steps that do not apply do not hold completion back: their required fields are not asked for', {
  given: ({ deps, world }) => jobWith(deps, world, [['seal', [{ key: 'ok', value: 'PASS' }]], PRESSURE_OK]),
  when: ({ deps, world, given }) => transitionJob(deps, world.operator, { jobId: given, action: 'complete' }),
  then: ({ given }) => ({
    rows: [{ table: 'jobs', where: { id: given }, equal: [{ state: 'COMPLETED' }] }],
    outbox: [{ type: 'job.completed', data: { id: given, state: 'COMPLETED' } }],
    signals: { clientEvent: 1 },
  }),
});

s.scenario('a FAILED seal check brings "replace the seal" in: its required part holds completion', {
  given: ({ deps, world }) => jobWith(deps, world, [['seal', [{ key: 'ok', value: false }]], PRESSURE_OK]),
  when: ({ deps, world, given }) => transitionJob(deps, world.operator, { jobId: given, action: 'complete' }),
  then: ({ given }) => ({
    error: { code: 'REQUIRED_FIELDS_MISSING', status: 422, details: { missing: [{ stepId: 'replace', key: 'part' }] } },
    rows: [{ table: 'jobs', where: { id: given }, equal: [{ state: 'IN_PROGRESS' }] }],
  }),
});

s.scenario('a CALCULATED field is computed on recording, with its limits', {
  given: ({ deps, world }) => jobWith(deps, world),
  when: ({ deps, world, given }) =>
    recordStep(deps, world.operator, {
      jobId: given,
      stepId: 'pressure',
      status: 'DONE',
      values: [
        { key: 'p_in', value: 10.04 },
        { key: 'p_out', value: 9.2 },
      ],
    }),
  then: ({ given }) => ({
    rows: [
      {
        table: 'step_records',
        where: { job_id: given },
        equal: [
          {
            step_id: 'pressure',
            values: [
              { key: 'p_in', value: 10.04, outOfLimits: false },
              { key: 'p_out', value: 9.2, outOfLimits: false },
              { key: 'drop', value: -0.8, outOfLimits: true },
              { key: 'ratio', value: 9.2 / 10.04, outOfLimits: false },
            ],
          },
        ],
      },
    ],
    outbox: [{ type: 'job.started' }, { type: 'job.step.recorded', data: { outOfLimits: ['drop'] } }],
    signals: { clientEvent: 2 },
  }),
});

s.scenario('a value sent for a CALCULATED field is a VALIDATION_ERROR naming it', {
  given: ({ deps, world }) => jobWith(deps, world),
  when: ({ deps, world, given }) =>
    recordStep(deps, world.operator, {
      jobId: given,
      stepId: 'pressure',
      status: 'DONE',
      values: [
        { key: 'p_in', value: 10 },
        { key: 'p_out', value: 9 },
        { key: 'drop', value: 0 },
      ],
    }),
  then: { error: { code: 'VALIDATION_ERROR', status: 422, details: { fields: [{ path: 'values.drop' }] } } },
});

s.run();
