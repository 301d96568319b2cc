import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { appTexts } from '#lib/app-texts';
import { applicabilityOf, calculate, calculationInputs, type RuleDocument } from '../../src/app/rules/local';
import { countedPosition, stepProgress, stepState, type ProgressStep } from '../../src/app/rules/progress';
import { describeCondition } from '../../src/app/rules/describe';
import { stepsWaitingFor } from '../../src/app/areas/verify/queries';
import { reviewDiff, type ContentDoc } from '../../src/app/areas/review/diff-model';

// Execution rules in the floor app: the device-side rules (the server's own domain modules, run on the tablet), the
// conditions read as sentences, the verifier's "waiting for me" rule and the diff of a changed formula.

const field = (key: string, type: string, extra: Record<string, unknown> = {}) => ({
  key,
  label: key,
  type,
  unit: null,
  min: null,
  max: null,
  ...extra,
});
const DOC: RuleDocument = {
  sections: [
    {
      title: 'Checks',
      steps: [
        { stepId: 'seal', title: 'Check the seal', fields: [field('ok', 'PASS_FAIL')] },
        {
          stepId: 'replace',
          title: 'Replace the seal',
          when: { step: 'seal', field: 'ok', op: 'eq', value: 'FAIL' },
          fields: [field('part', 'TEXT')],
        },
        {
          stepId: 'pressure',
          title: 'Pressure test',
          fields: [
            field('p_in', 'NUMBER'),
            field('p_out', 'NUMBER'),
            field('drop', 'CALCULATED', { expression: 'round(p_out - p_in, 1)', unit: 'bar', min: -0.5, max: 0.5 }),
          ],
        },
      ],
    },
    {
      title: 'After a leak',
      when: {
        any: [
          { step: 'pressure', field: 'drop', op: 'outOfLimits' },
          { step: 'seal', status: 'FAILED' },
        ],
      },
      steps: [
        {
          stepId: 'report',
          title: 'Report the leak',
          fields: [field('ratio', 'CALCULATED', { expression: 'pressure.p_in / pressure.p_out' })],
        },
      ],
    },
  ],
};

const t = (key: string, values?: Record<string, string | number>) => {
  const text = appTexts('en')[key] ?? key;
  return values ? text.replace(/\{([A-Za-z]+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole)) : text;
};

const local = suite('app rules: applicability and calculated values on the device');

local('a branch: the seal failing opens its replacement and the leak section; a pass leaves them out', () => {
  const applies = (records: Map<string, any>) => applicabilityOf(DOC, records).map((a) => [a.stepId, a.applies]);
  assert.equal(applies(new Map()), [
    ['seal', true],
    ['replace', false],
    ['pressure', true],
    ['report', false],
  ]);
  assert.equal(applies(new Map([['seal', { status: 'DONE', values: [{ key: 'ok', value: 'PASS' }] }]])), [
    ['seal', true],
    ['replace', false],
    ['pressure', true],
    ['report', false],
  ]);
  assert.equal(applies(new Map([['seal', { status: 'FAILED', values: [{ key: 'ok', value: 'FAIL' }] }]])), [
    ['seal', true],
    ['replace', true],
    ['pressure', true],
    ['report', true],
  ]);
  const drop = new Map([['pressure', { status: 'DONE', values: [{ key: 'drop', value: 1, outOfLimits: true }] }]]);
  assert.equal(applies(drop).at(-1), ['report', true], 'an out-of-limit calculated value opens the section');
});

local('calculated values as the server computes them: live, with limits, empty until the inputs are, errors said', () => {
  const pressure = DOC.sections[0].steps[2];
  const none = () => undefined;
  assert.equal(
    calculate(
      DOC,
      pressure,
      new Map([
        ['p_in', 2],
        ['p_out', 3.04],
      ]),
      none,
    ).get('drop'),
    { value: 1, outOfLimits: true },
  );
  assert.equal(
    calculate(
      DOC,
      pressure,
      new Map([
        ['p_in', 2],
        ['p_out', 2.26],
      ]),
      none,
    ).get('drop'),
    { value: 0.3, outOfLimits: false },
  );
  assert.equal(calculate(DOC, pressure, new Map([['p_in', 2]]), none).get('drop'), { value: null });
  const report = DOC.sections[1].steps[0];
  const earlier = (values: Record<string, number>) => (stepId: string, key: string) => (stepId === 'pressure' ? values[key] : undefined);
  assert.equal(calculate(DOC, report, new Map(), earlier({ p_in: 3, p_out: 2 })).get('ratio'), { value: 1.5, outOfLimits: false });
  assert.equal(calculate(DOC, report, new Map(), earlier({ p_in: 3, p_out: 0 })).get('ratio'), { error: 'division by zero' });
});

local('conditions read as the operator and the author see them', () => {
  assert.is(describeCondition(t, DOC, { step: 'seal', field: 'ok', op: 'eq', value: 'FAIL' }), '“Check the seal” · ok is Fail');
  assert.is(
    describeCondition(t, DOC, {
      any: [
        { step: 'pressure', field: 'drop', op: 'outOfLimits' },
        { step: 'seal', status: 'FAILED' },
      ],
    }),
    'either “Pressure test” · drop is outside its limits or “Check the seal” was recorded as failed',
  );
  assert.is(
    describeCondition(t, DOC, {
      not: {
        all: [
          { step: 'pressure', field: 'p_in', op: 'ge', value: 2 },
          { step: 'seal', field: 'ok', op: 'recorded' },
        ],
      },
    }),
    'not (“Pressure test” · p_in is at least 2 and “Check the seal” · ok is recorded)',
  );
  assert.is(
    describeCondition(t, DOC, { step: 'gone', field: 'x', op: 'in', value: ['a', 'b'] }),
    '“gone” · x is one of “a”, “b”',
    'an unknown step by its id',
  );
});
local.run();

const verify = suite('app rules: the steps waiting for my verification');

verify('a recorded step asking for one of my roles, verified by nobody, neither recorded nor performed by me', () => {
  const job = (over: Partial<Parameters<typeof stepsWaitingFor>[0]> = {}) => ({
    version: {
      content: {
        sections: [
          {
            steps: [
              { stepId: 'pressure', title: 'Pressure test', signoff: { performer: true, verifier: { roles: ['approver'] } } },
              { stepId: 'seal', title: 'Seal', signoff: null },
            ],
          },
        ],
      },
    },
    records: [
      { stepId: 'pressure', recordedBy: { databaseId: 1 } },
      { stepId: 'seal', recordedBy: { databaseId: 1 } },
    ],
    steps: [{ stepId: 'pressure', applies: true }],
    signoffs: [] as {
      stepId: string;
      meaning: 'PERFORMED' | 'VERIFIED';
      signer: { databaseId: number } | null;
      invalidatedAt: string | null;
    }[],
    ...over,
  });
  const me = { id: 7, roles: ['approver'] };
  assert.equal(stepsWaitingFor(job(), me), [{ stepId: 'pressure', title: 'Pressure test' }]);
  assert.equal(stepsWaitingFor(job(), { id: 7, roles: ['operator'] }), [], 'not my role');
  assert.equal(stepsWaitingFor(job(), { id: 1, roles: ['approver'] }), [], 'I recorded it');
  assert.equal(stepsWaitingFor(job({ records: [] }), me), [], 'nothing recorded yet');
  assert.equal(stepsWaitingFor(job({ steps: [{ stepId: 'pressure', applies: false }] }), me), [], 'it does not apply');
  assert.equal(
    stepsWaitingFor(job({ signoffs: [{ stepId: 'pressure', meaning: 'PERFORMED', signer: { databaseId: 7 }, invalidatedAt: null }] }), me),
    [],
    'I signed it performed',
  );
  assert.equal(
    stepsWaitingFor(job({ signoffs: [{ stepId: 'pressure', meaning: 'VERIFIED', signer: { databaseId: 9 }, invalidatedAt: null }] }), me),
    [],
    'verified already',
  );
  const invalidated = job({
    signoffs: [{ stepId: 'pressure', meaning: 'VERIFIED', signer: { databaseId: 9 }, invalidatedAt: '2026-11-26T10:00:00Z' }],
  });
  assert.equal(stepsWaitingFor(invalidated, me).length, 1, 'an invalidated verification waits again');
});
verify.run();

const diff = suite('app rules: the version diff of conditions, formulas and sign-offs');

diff('a changed formula (fields.<key>.expression), condition and sign-off are lined up before and after', () => {
  const step = (when: unknown, expression: string, signoff: unknown) => ({
    stepId: 'pressure',
    title: 'Pressure test',
    body: '',
    media: [],
    mediaFiles: [],
    model: null,
    when,
    signoff: signoff as never,
    fields: [
      {
        key: 'drop',
        label: 'Drop',
        type: 'CALCULATED',
        required: false,
        unit: 'bar',
        min: null,
        max: null,
        options: null,
        sensorId: null,
        expression,
      },
    ],
  });
  const before: ContentDoc = { sections: [{ sectionId: 's', title: 'S', steps: [step(null, 'p_out - p_in', null)] }] };
  const after: ContentDoc = {
    sections: [
      {
        sectionId: 's',
        title: 'S',
        when: { step: 'x', status: 'DONE' },
        steps: [step({ step: 'x', status: 'DONE' }, 'round(p_out - p_in, 1)', { performer: true, verifier: null })],
      },
    ],
  };
  const result = reviewDiff(before, after, {
    added: [],
    removed: [],
    moved: [],
    changed: [{ stepId: 'pressure', changedFields: ['when', 'signoff', 'section.when', 'fields.drop.expression'] }],
  });
  const change = result.steps[0];
  assert.equal(change.fields, [
    {
      kind: 'changed',
      field: after.sections[0].steps[0].fields[0],
      properties: [{ property: 'expression', before: 'p_out - p_in', after: 'round(p_out - p_in, 1)' }],
    },
  ]);
  assert.equal(change.when, { before: null, after: { step: 'x', status: 'DONE' } });
  assert.equal(change.sectionWhen, { before: null, after: { step: 'x', status: 'DONE' } });
  assert.equal(change.signoff, { before: null, after: { performer: true, verifier: null } });
});
diff('a replaced image: the file removed and the file added, with their names; changed required skills before and after', () => {
  const file = (id: number, name: string) => ({ databaseId: id, name, contentType: 'image/png', url: `/api/client/files/${id}`, size: 1 });
  const step = (media: number[]) => ({
    stepId: 'seal',
    title: 'Check the seal',
    body: '',
    media,
    mediaFiles: media.map((id) => file(id, `photo-${id}.png`)),
    model: null,
    fields: [],
  });
  const before: ContentDoc = { qualifications: [], sections: [{ sectionId: 's', title: 'S', steps: [step([1, 2])] }] };
  const after: ContentDoc = {
    qualifications: [{ skill: 'Pumps', level: 2 }],
    sections: [{ sectionId: 's', title: 'S', steps: [step([1, 3])] }],
  };
  const result = reviewDiff(before, after, {
    added: [],
    removed: [],
    moved: [],
    changed: [{ stepId: 'seal', changedFields: ['media'] }],
    qualificationsChanged: true,
  });
  assert.equal(result.steps[0].media, { removed: [file(2, 'photo-2.png')], added: [file(3, 'photo-3.png')], kept: 1 });
  assert.equal(result.qualifications, { before: [], after: [{ skill: 'Pumps', level: 2 }] });
  const same = reviewDiff(before, before, { added: [], removed: [], moved: [], changed: [], qualificationsChanged: false });
  assert.is(same.qualifications, undefined);
});
diff.run();

// What the operator reads of a calculated field (its inputs by label, never the formula), and "3 of 6 steps"
// meaning the same on every page: one rule, tested here.
const papercuts = suite('app rules: calculated inputs by label, one count of steps done');

papercuts('a calculated field names its inputs by their labels, an earlier step by its title too', () => {
  const pressure = DOC.sections[0].steps[2];
  assert.equal(calculationInputs(DOC, pressure, pressure.fields[2]), ['p_out', 'p_in'], 'in the order the formula names them');
  const labelled: RuleDocument = {
    sections: [
      {
        title: 'S',
        steps: [
          { stepId: 'a', title: 'Inlet', fields: [field('p', 'NUMBER', { label: 'Pressure in' })] },
          {
            stepId: 'b',
            title: 'Outlet',
            fields: [
              field('p', 'NUMBER', { label: 'Pressure out' }),
              field('d', 'CALCULATED', { label: 'Drop', expression: 'round(a.p - p, 1) + abs(a.p - p) * 0' }),
            ],
          },
        ],
      },
    ],
  };
  const outlet = labelled.sections[0].steps[1];
  assert.equal(calculationInputs(labelled, outlet, outlet.fields[1]), ['Pressure in (Inlet)', 'Pressure out'], 'each once, in order');
  assert.equal(calculationInputs(labelled, outlet, { expression: 'p +' }), [], 'a formula that does not parse names nothing');
  assert.equal(calculationInputs(labelled, outlet, { expression: null }), []);
});

papercuts('steps done: only the steps that apply count; queued or unsigned is not done', () => {
  const step = (stepId: string, extra: Partial<ProgressStep> = {}): ProgressStep => ({
    stepId,
    applies: true,
    record: undefined,
    signoff: null,
    ...extra,
  });
  const signed = { performer: true, verifier: { roles: ['approver'] } };
  const steps = [
    step('done', { record: { pending: false } }),
    step('queued', { record: { pending: true } }),
    step('unsigned', { record: { pending: false }, signoff: signed }),
    step('signed', { record: { pending: false }, signoff: { performer: true, verifier: null } }),
    step('skipped-by-condition', { applies: false }),
    step('not-applicable-with-record', { applies: false, record: { pending: false } }),
    step('open'),
  ];
  const signoffs = [
    { stepId: 'unsigned', meaning: 'PERFORMED', invalidatedAt: null },
    { stepId: 'unsigned', meaning: 'VERIFIED', invalidatedAt: '2026-12-07T10:00:00Z' },
    { stepId: 'signed', meaning: 'PERFORMED', invalidatedAt: null },
  ];
  assert.equal(
    steps.map((s) => stepState(s, signoffs)),
    ['done', 'waiting', 'unsigned', 'done', 'not-applying', 'not-applying', 'open'],
  );
  assert.equal(stepProgress(steps, signoffs), { total: 5, done: 2, waiting: 1, unsigned: 1, open: 1, notApplying: 2 });
  assert.equal(stepProgress(steps, null).done, 1, 'with no signatures the signed step is not done');
  assert.equal(
    steps.map((_, i) => countedPosition(steps, i)),
    [1, 2, 3, 4, null, null, 5],
  );
});

papercuts.run();
