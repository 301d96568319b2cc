import type { StepStatus } from '#db/schema';

/**
 * Conditions (`when`) of sections and steps: JSON over what was recorded
 * earlier in the same job.
 *
 *   {"all": [C, …]}   {"any": [C, …]}   {"not": C}
 *   {"step": STEP_ID, "field": KEY, "op": OP, "value": V}
 *   {"step": STEP_ID, "status": "DONE" | "FAILED" | "SKIPPED"}
 *
 * OP: eq ne lt le gt ge (V a number, string or boolean), in (V a list),
 * outOfLimits (the value was recorded outside its min/max; V omitted),
 * recorded (the field holds a value; V omitted).
 *
 * A leaf over something not recorded (yet) is false, so a step that depends
 * on a check stays out of the way until the check is recorded. Conditions
 * look backwards only: they may name steps before the one they guard, which
 * is what lets a job's applicability be computed in one pass in reading order.
 */

export type Condition =
  | { all: Condition[] }
  | { any: Condition[] }
  | { not: Condition }
  | { step: string; field: string; op: Op; value?: unknown }
  | { step: string; status: StepStatus };

export const OPS = ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'in', 'outOfLimits', 'recorded'] as const;
type Op = (typeof OPS)[number];
const STATUSES = ['DONE', 'FAILED', 'SKIPPED'] as const;

const MAX_NODES = 200;
const MAX_DEPTH = 16;

export interface Problem {
  path: string;
  message: string;
}

/**
 * What an earlier step offers a condition: its fields' keys (and types). A
 * step missing from `earlier` is later in the document or unknown.
 */
export type EarlierSteps = ReadonlyMap<string, ReadonlySet<string>>;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isScalar = (v: unknown) => typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

/**
 * The problems of a raw condition, each with its path under `at`; none means
 * it is a well-formed Condition over `earlier` steps only.
 */
export function conditionProblems(raw: unknown, at: string, earlier: EarlierSteps, allSteps: ReadonlySet<string>): Problem[] {
  const problems: Problem[] = [];
  let nodes = 0;
  const walk = (c: unknown, path: string, depth: number) => {
    if (++nodes > MAX_NODES) {
      if (nodes === MAX_NODES + 1) problems.push({ path: at, message: `a condition has at most ${MAX_NODES} parts` });
      return;
    }
    if (depth > MAX_DEPTH) {
      problems.push({ path, message: `a condition nests at most ${MAX_DEPTH} deep` });
      return;
    }
    if (!isObject(c)) {
      problems.push({ path, message: 'a condition is an object: all, any, not, or a step leaf' });
      return;
    }
    const keys = Object.keys(c);
    if ('all' in c || 'any' in c) {
      const name = 'all' in c ? 'all' : 'any';
      if (keys.length !== 1) problems.push({ path, message: `"${name}" stands alone in its object` });
      const list = c[name];
      if (!Array.isArray(list) || list.length === 0) problems.push({ path: `${path}.${name}`, message: 'a non-empty list of conditions' });
      else list.forEach((child, i) => walk(child, `${path}.${name}.${i}`, depth + 1));
      return;
    }
    if ('not' in c) {
      if (keys.length !== 1) problems.push({ path, message: '"not" stands alone in its object' });
      walk(c.not, `${path}.not`, depth + 1);
      return;
    }
    if (typeof c.step !== 'string' || c.step === '') {
      problems.push({ path, message: 'a condition is all, any, not, or names a "step"' });
      return;
    }
    const fields = earlier.get(c.step);
    if (!fields) {
      problems.push({
        path: `${path}.step`,
        message: allSteps.has(c.step)
          ? `step "${c.step}" is not before this one: conditions look backwards only`
          : `unknown step "${c.step}"`,
      });
    }
    if ('status' in c) {
      const extra = keys.filter((k) => k !== 'step' && k !== 'status');
      if (extra.length > 0) problems.push({ path, message: `unexpected ${extra.map((k) => `"${k}"`).join(', ')} in a status condition` });
      if (!STATUSES.includes(c.status as never)) problems.push({ path: `${path}.status`, message: 'one of DONE, FAILED, SKIPPED' });
      return;
    }
    const extra = keys.filter((k) => !['step', 'field', 'op', 'value'].includes(k));
    if (extra.length > 0) problems.push({ path, message: `unexpected ${extra.map((k) => `"${k}"`).join(', ')} in a field condition` });
    if (typeof c.field !== 'string' || c.field === '')
      problems.push({ path: `${path}.field`, message: 'the field key the condition reads' });
    else if (fields && !fields.has(c.field))
      problems.push({ path: `${path}.field`, message: `step "${c.step}" has no field "${c.field}"` });
    if (!OPS.includes(c.op as Op)) {
      problems.push({ path: `${path}.op`, message: `one of ${OPS.join(', ')}` });
      return;
    }
    const op = c.op as Op;
    if (op === 'recorded' || op === 'outOfLimits') {
      if ('value' in c) problems.push({ path: `${path}.value`, message: `"${op}" takes no value` });
    } else if (op === 'in') {
      if (!Array.isArray(c.value) || c.value.length === 0 || c.value.length > 100 || !c.value.every(isScalar))
        problems.push({ path: `${path}.value`, message: '"in" takes a list of 1 to 100 numbers, strings or booleans' });
    } else if (op === 'eq' || op === 'ne') {
      if (!isScalar(c.value)) problems.push({ path: `${path}.value`, message: `"${op}" takes a number, string or boolean` });
    } else if (typeof c.value !== 'number' || !Number.isFinite(c.value)) {
      problems.push({ path: `${path}.value`, message: `"${op}" takes a number` });
    }
  };
  walk(raw, at, 0);
  return problems;
}

/** One step's record as conditions read it. */
export interface RecordView {
  status: StepStatus;
  values: readonly { key: string; value: unknown; outOfLimits?: boolean }[];
}

/** PASS_FAIL values are stored "PASS"/"FAIL"; a condition may say true/false for them. */
const same = (recorded: unknown, wanted: unknown) =>
  recorded === wanted || (wanted === true && recorded === 'PASS') || (wanted === false && recorded === 'FAIL');

export function evaluateCondition(c: Condition, records: ReadonlyMap<string, RecordView>): boolean {
  if ('all' in c) return c.all.every((child) => evaluateCondition(child, records));
  if ('any' in c) return c.any.some((child) => evaluateCondition(child, records));
  if ('not' in c) return !evaluateCondition(c.not, records);
  const record = records.get(c.step);
  if (!record) return false;
  if ('status' in c) return record.status === c.status;
  const entry = record.values.find((v) => v.key === c.field);
  const value = entry?.value;
  if (value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)) return false;
  switch (c.op) {
    case 'recorded':
      return true;
    case 'outOfLimits':
      return entry?.outOfLimits === true;
    case 'eq':
      return same(value, c.value);
    case 'ne':
      return !same(value, c.value);
    case 'in':
      return Array.isArray(c.value) && c.value.some((wanted) => same(value, wanted));
    default: {
      if (typeof value !== 'number' || typeof c.value !== 'number') return false;
      if (c.op === 'lt') return value < c.value;
      if (c.op === 'le') return value <= c.value;
      if (c.op === 'gt') return value > c.value;
      return value >= c.value;
    }
  }
}
