import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, type BuiltClient } from '../helpers/factories';
import { gid, gql } from '../helpers/graphql';
import { contentInput, createJob, publishedTemplate, DOMAIN_TEST_ENV } from '../helpers/domain';

/**
 * Execution rules (docs/execution-rules.md) through GraphQL: a
 * branch on a FAILED seal check, a calculated pressure difference with
 * limits, and the refusals at draft save and at recording.
 */

let server: TestServer;
const rules = suite('GraphQL execution rules: conditions and calculated fields');
rules.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
rules.after(async () => server.stop());

/** A seal check; "replace the seal" only when it FAILED; a pressure test with a calculated difference. */
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

const RECORD = `mutation($i: RecordStepInput!) { recordStep(input: $i) { job { state records { stepId values { key value outOfLimits error } } steps { stepId applies reason } } } }`;
const COMPLETE = 'mutation($j: ID!) { completeJob(input: { jobId: $j }) { job { state } } }';
const CREATE = 'mutation($i: CreateTemplateInput!) { createTemplate(input: $i) { template { databaseId } } }';

async function jobOnRules(): Promise<{ client: BuiltClient; jobId: string }> {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const template = await publishedTemplate(server, client, RULES_CONTENT, 'Seal and pressure');
  const job = await createJob(server, client.owner.token, { templateId: template.templateId });
  return { client, jobId: gid('Job', job.id) };
}

const record = (client: BuiltClient, jobId: string, stepId: string, values: { key: string; value?: unknown }[], status = 'DONE') =>
  gql(server, client.owner.token, RECORD, { i: { jobId, stepId, status, values } });

const applies = (steps: { stepId: string; applies: boolean }[]) => Object.fromEntries(steps.map((s) => [s.stepId, s.applies]));

rules('the version keeps when and expression; GraphQL reads them back', async () => {
  const client = await buildClient(server);
  const created = await gql(server, client.owner.token, CREATE, { i: { title: 'Rules', content: contentInput(RULES_CONTENT) } });
  assert.equal(created.codes, [], JSON.stringify(created.errors));
  const read = await gql(
    server,
    client.owner.token,
    'query($id: ID!) { template(id: $id) { latestVersion { content { sections { sectionId when steps { stepId when fields { key type expression } } } } } } }',
    { id: gid('Template', created.data.createTemplate.template.databaseId) },
  );
  assert.equal(read.codes, [], JSON.stringify(read.errors));
  const [checks, after] = read.data.template.latestVersion.content.sections;
  assert.is(checks.when, null);
  assert.equal(checks.steps[1].when, { step: 'seal', field: 'ok', op: 'eq', value: 'FAIL' });
  assert.equal(checks.steps[2].fields[2], { key: 'drop', type: 'CALCULATED', expression: 'round(p_out - p_in, 1)' });
  assert.is(checks.steps[0].fields[0].expression, null);
  assert.equal(after.when.any.length, 2);
});

rules('a PASS seal check leaves "replace the seal" out: not required, refused with STEP_NOT_APPLICABLE', async () => {
  const { client, jobId } = await jobOnRules();
  const before = await record(client, jobId, 'seal', [{ key: 'ok', value: 'PASS' }]);
  assert.equal(before.codes, [], JSON.stringify(before.errors));
  assert.equal(applies(before.data.recordStep.job.steps), { seal: true, replace: false, pressure: true, report: false });
  assert.match(before.data.recordStep.job.steps[1].reason, /condition/);
  const refused = await record(client, jobId, 'replace', [{ key: 'part', value: 'S-12' }]);
  assert.equal(refused.codes, ['STEP_NOT_APPLICABLE']);
  assert.is(refused.errors![0].extensions!.details.stepId, 'replace');
  const pressure = await record(client, jobId, 'pressure', [
    { key: 'p_in', value: 10 },
    { key: 'p_out', value: 10.2 },
  ]);
  assert.equal(pressure.codes, []);
  // the required part of "replace" and the note of "report" do not hold the job back: those steps do not apply
  const done = await gql(server, client.owner.token, COMPLETE, { j: jobId });
  assert.equal(done.codes, [], JSON.stringify(done.errors));
  assert.is(done.data.completeJob.job.state, 'COMPLETED');
});

rules('a division by zero is kept as an error value, never a 500', async () => {
  const { client, jobId } = await jobOnRules();
  const result = await record(client, jobId, 'pressure', [
    { key: 'p_in', value: 0 },
    { key: 'p_out', value: 3 },
  ]);
  assert.equal(result.codes, [], JSON.stringify(result.errors));
  const values = result.data.recordStep.job.records.find((r: { stepId: string }) => r.stepId === 'pressure').values;
  assert.equal(
    values.find((v: { key: string }) => v.key === 'ratio'),
    { key: 'ratio', value: null, outOfLimits: false, error: 'division by zero' },
  );
});

/** The paths of a refused draft's VALIDATION_ERROR. */
async function refusedPaths(content: unknown): Promise<{ path: string; message: string }[]> {
  const client = await buildClient(server);
  const result = await gql(server, client.owner.token, CREATE, { i: { title: 'Bad rules', content: contentInput(content) } });
  assert.equal(result.codes, ['VALIDATION_ERROR'], JSON.stringify(result.errors ?? result.data));
  return result.errors![0].extensions!.details.fields;
}

const twoSteps = (first: Record<string, unknown>, second: Record<string, unknown>) => ({
  sections: [
    {
      id: 's',
      title: 'S',
      steps: [
        { id: 'a', title: 'A', fields: [{ key: 'x', type: 'NUMBER' }], ...first },
        { id: 'b', title: 'B', fields: [{ key: 'y', type: 'NUMBER' }], ...second },
      ],
    },
  ],
});

rules('a condition reading a later step, an unknown step or field, or a bad op is refused at save, with its path', async () => {
  const later = await refusedPaths(twoSteps({ when: { step: 'b', field: 'y', op: 'gt', value: 1 } }, {}));
  assert.equal(
    later.map((p) => p.path),
    ['input.content.sections.0.steps.0.when.step'],
  );
  assert.match(later[0].message, /backwards/);
  const unknown = await refusedPaths(
    twoSteps(
      {},
      {
        when: {
          all: [
            { step: 'zz', status: 'DONE' },
            { step: 'a', field: 'nope', op: 'eq', value: 1 },
            { step: 'a', field: 'x', op: 'like', value: 1 },
          ],
        },
      },
    ),
  );
  assert.equal(
    unknown.map((p) => p.path),
    [
      'input.content.sections.0.steps.1.when.all.0.step',
      'input.content.sections.0.steps.1.when.all.1.field',
      'input.content.sections.0.steps.1.when.all.2.op',
    ],
  );
  const own = await refusedPaths(twoSteps({ when: { step: 'a', status: 'DONE' } }, {}));
  assert.equal(
    own.map((p) => p.path),
    ['input.content.sections.0.steps.0.when.step'],
  );
});

rules('an expression reading a later step, a missing or non-numeric field, or eval-style input is refused at save', async () => {
  const calc = (expression: string) => ({ key: 'c', type: 'CALCULATED', expression });
  const cases: [string, RegExp][] = [
    ['b.y + 1', /backwards/],
    ['nope * 2', /not a numeric field/],
    ['a.t', /not a numeric field/],
    ['eval("1")', /unknown function "eval"|unexpected/],
    ['x; process.exit(1)', /unexpected ";"/],
    ['constructor.constructor("return 1")()', /unknown function|unexpected/],
    ['round(x, y)', /digits/],
    ['(x + 1', /expected "\)"/],
  ];
  for (const [expression, message] of cases) {
    const problems = await refusedPaths({
      sections: [
        {
          id: 's',
          title: 'S',
          steps: [
            { id: 'a', title: 'A', fields: [{ key: 'x', type: 'NUMBER' }, { key: 't', type: 'TEXT' }, calc(expression)] },
            { id: 'b', title: 'B', fields: [{ key: 'y', type: 'NUMBER' }] },
          ],
        },
      ],
    });
    assert.equal(
      problems.map((p) => p.path),
      ['input.content.sections.0.steps.0.fields.2.expression'],
      expression,
    );
    assert.match(problems[0].message, message, expression);
  }
  const missing = await refusedPaths({
    sections: [
      {
        title: 'S',
        steps: [
          {
            title: 'A',
            fields: [
              { key: 'c', type: 'CALCULATED' },
              { key: 'n', type: 'NUMBER', expression: '1' },
            ],
          },
        ],
      },
    ],
  });
  assert.equal(
    missing.map((p) => p.path),
    ['input.content.sections.0.steps.0.fields.0.expression', 'input.content.sections.0.steps.0.fields.1.expression'],
  );
});

rules.run();
