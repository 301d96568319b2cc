import { AppError, validationFailed } from '#errors';
import type { Content, Field, Step } from './content';
import { stepsOf } from './content';
import type { StepStatus } from '#db/schema';
import { applicability } from './applicability';
import { evaluateExpression, parseExpression, resolveReference } from './expressions';

/**
 * What an operator records on a step, checked against the step's fields.
 * Values are normalized to one stored form per field type:
 *
 * | type        | accepted                                   | stored                 |
 * |-------------|--------------------------------------------|------------------------|
 * | TEXT        | a string                                   | the string             |
 * | NUMBER      | a finite number                            | the number; outside min/max → `outOfLimits: true` (accepted) |
 * | PASS_FAIL   | `true`/`false` or `"PASS"`/`"FAIL"`        | `"PASS"` / `"FAIL"`    |
 * | CHOICE      | one of the field's options                 | the option             |
 * | PHOTO       | a file id or a list of file ids            | a list of file ids     |
 * | SIGNATURE   | a file id (the signature image)            | the file id            |
 * | SENSOR      | a number, or nothing: the sensor's latest reading at recording time | the number (+ `readingId`) |
 * | CALCULATED  | nothing: the server computes it from its expression | the number (limits as NUMBER), or `error` |
 *
 * `null` (or no entry) leaves a field empty. Photos and signatures are files of
 * the file store: uploaded first, referenced here by id, so a record stays a
 * small JSON document.
 */

export interface RecordedValue {
  key: string;
  value: unknown;
  outOfLimits: boolean;
  /** the sensor reading a SENSOR value was taken from */
  readingId?: string;
  /** a CALCULATED value the server could not compute (division by zero, …): value null, this says why */
  error?: string;
}

export interface SensorReading {
  readingId: string;
  value: number;
}

const MAX_TEXT = 10_000;
const MAX_PHOTOS = 50;

const isFileId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

/** Empty: nothing recorded for the field (what REQUIRED_FIELDS_MISSING looks for). */
export function isEmptyValue(value: unknown): boolean {
  return value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
}

function outside(field: Field, value: number): boolean {
  return (field.min != null && value < field.min) || (field.max != null && value > field.max);
}

/** The stored form of one value, or the reason it does not fit the field. */
function normalize(field: Field, value: unknown): { value: unknown; outOfLimits: boolean } | string {
  switch (field.type) {
    case 'TEXT':
      if (typeof value !== 'string') return 'must be a string';
      if (value.length > MAX_TEXT) return `must be at most ${MAX_TEXT} characters`;
      return { value, outOfLimits: false };
    case 'NUMBER':
    case 'SENSOR':
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      return { value, outOfLimits: outside(field, value) };
    case 'PASS_FAIL':
      if (value === true || value === 'PASS') return { value: 'PASS', outOfLimits: false };
      if (value === false || value === 'FAIL') return { value: 'FAIL', outOfLimits: false };
      return 'must be true, false, "PASS" or "FAIL"';
    case 'CHOICE':
      if (typeof value !== 'string' || !(field.options ?? []).includes(value))
        return `must be one of ${(field.options ?? []).map((o) => JSON.stringify(o)).join(', ')}`;
      return { value, outOfLimits: false };
    case 'PHOTO': {
      const ids = Array.isArray(value) ? value : [value];
      if (ids.length > MAX_PHOTOS || !ids.every(isFileId)) return `must be a file id or a list of at most ${MAX_PHOTOS} file ids`;
      return { value: ids, outOfLimits: false };
    }
    case 'SIGNATURE':
      if (!isFileId(value)) return 'must be a file id';
      return { value, outOfLimits: false };
    case 'CALCULATED':
      return 'is calculated by the server from its expression: send no value';
  }
}

/**
 * Validates and normalizes the values recorded on `step`.
 * `readSensor` is asked for the latest reading of each SENSOR field sent no value.
 * @throws AppError VALIDATION_ERROR naming every failing field (`values.<key>`)
 */
export async function recordValues(
  step: Step,
  input: readonly { key: string; value?: unknown }[],
  readSensor: (sensorId: number) => Promise<SensorReading | undefined>,
): Promise<RecordedValue[]> {
  const problems: { path: string; message: string }[] = [];
  const sent = new Map<string, unknown>();
  for (const { key, value } of input) {
    if (sent.has(key)) problems.push({ path: `values.${key}`, message: 'sent more than once' });
    else if (!step.fields.some((f) => f.key === key)) problems.push({ path: `values.${key}`, message: `the step has no field "${key}"` });
    sent.set(key, value ?? null);
  }
  const recorded: RecordedValue[] = [];
  for (const field of step.fields) {
    const value = sent.get(field.key) ?? null;
    if (field.type === 'CALCULATED') {
      if (sent.has(field.key))
        problems.push({
          path: `values.${field.key}`,
          message: `CALCULATED field "${field.key}" is calculated by the server from its expression: send no value`,
        });
      continue;
    }
    if (isEmptyValue(value)) {
      if (field.type === 'SENSOR' && field.sensorId != null) {
        const reading = await readSensor(field.sensorId);
        if (reading)
          recorded.push({ key: field.key, value: reading.value, outOfLimits: outside(field, reading.value), readingId: reading.readingId });
      }
      continue;
    }
    const result = normalize(field, value);
    if (typeof result === 'string') problems.push({ path: `values.${field.key}`, message: `${field.type} field "${field.key}" ${result}` });
    else recorded.push({ key: field.key, ...result });
  }
  if (problems.length > 0) throw validationFailed({ fields: problems });
  return recorded;
}

/**
 * Adds the step's CALCULATED values to what was recorded on it, in field
 * order (a formula may read fields listed before it). `earlier(stepId, key)`
 * gives an earlier step's recorded value. An input not recorded leaves the
 * value empty; a result that cannot be computed is kept as an `error` (the
 * record and the PDF show it) rather than refusing the operator's work.
 */
export function withCalculated(
  step: Step,
  recorded: RecordedValue[],
  isStep: (id: string) => boolean,
  earlier: (stepId: string, key: string) => unknown,
): RecordedValue[] {
  const out = [...recorded];
  for (const field of step.fields) {
    if (field.type !== 'CALCULATED' || !field.expression) continue;
    const computed = evaluateExpression(parseExpression(field.expression), (name) => {
      const ref = resolveReference(name, step.id, (id) => id !== step.id && isStep(id));
      return ref.stepId === step.id ? out.find((v) => v.key === ref.key)?.value : earlier(ref.stepId, ref.key);
    });
    if ('error' in computed) out.push({ key: field.key, value: null, outOfLimits: false, error: computed.error });
    else if (computed.value !== null) out.push({ key: field.key, value: computed.value, outOfLimits: outside(field, computed.value) });
  }
  return out;
}

/** A step's record as completion sees it. */
export interface StepOutcome {
  status: StepStatus;
  values: readonly { key: string; value: unknown; outOfLimits?: boolean }[];
}

/**
 * The required fields still empty on a job: every required field of a step
 * that applies (src/domain/conditions.ts) and is not skipped (a step never
 * recorded counts as not skipped).
 */
export function missingRequiredFields(content: Content, records: ReadonlyMap<string, StepOutcome>): { stepId: string; key: string }[] {
  const missing: { stepId: string; key: string }[] = [];
  // a step whose condition is not met is not required
  const notApplicable = new Set(
    applicability(content, records)
      .filter((a) => !a.applies)
      .map((a) => a.stepId),
  );
  for (const { step } of stepsOf(content)) {
    if (notApplicable.has(step.id)) continue;
    const record = records.get(step.id);
    if (record?.status === 'SKIPPED') continue;
    for (const field of step.fields) {
      if (!field.required) continue;
      const entry = record?.values.find((v) => v.key === field.key);
      if (!entry || isEmptyValue(entry.value)) missing.push({ stepId: step.id, key: field.key });
    }
  }
  return missing;
}

export function requiredFieldsMissing(missing: { stepId: string; key: string }[]): AppError {
  return new AppError('REQUIRED_FIELDS_MISSING', `${missing.length} required field(s) are empty`, { missing });
}

/** The file ids among recorded values: PHOTO and SIGNATURE fields hold files of the client. */
export function recordedFileIds(step: Step, values: readonly RecordedValue[]): number[] {
  const fileFields = new Set(step.fields.filter((f) => f.type === 'PHOTO' || f.type === 'SIGNATURE').map((f) => f.key));
  return values
    .filter((v) => fileFields.has(v.key) && v.value !== null)
    .flatMap((v) => (Array.isArray(v.value) ? v.value : [v.value]) as number[]);
}
