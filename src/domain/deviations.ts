// Deviations (docs/execution-rules.md): what a recording deviates
// from the plan, and which steps still owe a comment before their job may
// complete. Pure, so completing a job (services/jobs.ts) and the deviation
// service share it without importing each other.
import type { DeviationKind, StepStatus } from '#db/schema';
import { AppError, validationFailed } from '#errors';
import type { Applicability } from './applicability';

export const DEVIATION_KINDS = [
  'OUT_OF_LIMITS',
  'STEP_FAILED',
  'NOT_APPLICABLE',
  'FAULT',
  'OVERRIDE',
  'LATE_COMPLETION',
  'UNAPPLIED_CHANGE',
] as const satisfies readonly DeviationKind[];

/** A step's record as the deviation rules read it. */
export interface RecordedStep {
  status: StepStatus;
  values: readonly { key: string; value: unknown; outOfLimits?: boolean }[];
  comment?: string | null;
  /** why a SKIPPED step was skipped */
  reason?: string | null;
}

/** A recording as the deviation rules read it: the record, and whether the operator marked the step not applicable. */
export interface Recording extends RecordedStep {
  notApplicable?: boolean;
}

export interface NewStepDeviation {
  kind: 'OUT_OF_LIMITS' | 'STEP_FAILED' | 'NOT_APPLICABLE';
  fieldKey: string | null;
  value: unknown;
  /** for people: the limits a value left, the comment of a FAILED step, the reason of a step marked not applicable */
  detail: string;
}

/** What deviationsOfRecording reads of a step's fields. */
export interface LimitedField {
  key: string;
  min: number | null;
  max: number | null;
  unit: string | null;
}

/**
 * The deviations a recording adds: each value out of limits, a FAILED status,
 * and the mark "not applicable" — only those the step's previous record did
 * not already have (the same value out of limits, FAILED again, SKIPPED for
 * the same reason): recording a step again to add a comment, or a client
 * sending its recording twice, adds nothing.
 */
export function deviationsOfRecording(
  fields: readonly LimitedField[],
  before: RecordedStep | undefined,
  after: Recording,
): NewStepDeviation[] {
  const out: NewStepDeviation[] = [];
  for (const v of after.values) {
    if (!v.outOfLimits) continue;
    const was = before?.values.find((b) => b.key === v.key);
    if (was?.outOfLimits && JSON.stringify(was.value) === JSON.stringify(v.value)) continue;
    const field = fields.find((f) => f.key === v.key);
    const limits = `${field?.min ?? '-∞'}..${field?.max ?? '∞'}${field?.unit ? ` ${field.unit}` : ''}`;
    out.push({ kind: 'OUT_OF_LIMITS', fieldKey: v.key, value: v.value, detail: `${JSON.stringify(v.value)} outside ${limits}` });
  }
  if (after.status === 'FAILED' && before?.status !== 'FAILED')
    out.push({ kind: 'STEP_FAILED', fieldKey: null, value: null, detail: (after.comment ?? '').trim() });
  if (after.notApplicable && !(before?.status === 'SKIPPED' && before.reason === after.reason))
    out.push({ kind: 'NOT_APPLICABLE', fieldKey: null, value: null, detail: after.reason ?? '' });
  return out;
}

/**
 * Only a step whose template allows it (`allowNotApplicable: true`) may be marked not applicable.
 * @throws AppError VALIDATION_ERROR on `stepId`
 */
export function assertMayBeMarkedNotApplicable(step: { id: string; allowNotApplicable?: boolean }): void {
  if (step.allowNotApplicable !== true)
    throw validationFailed({
      fields: [{ path: 'stepId', message: `the template does not allow marking step "${step.id}" not applicable` }],
    });
}

/**
 * The steps that apply, hold a value out of limits or are FAILED, and carry no
 * comment: a job cannot complete while there are any (COMMENT_REQUIRED). The
 * comment is the step record's own (recordStep's `comment`).
 */
export function stepsMissingComment(applies: readonly Applicability[], records: ReadonlyMap<string, RecordedStep>): string[] {
  const missing: string[] = [];
  for (const { stepId, applies: yes } of applies) {
    const record = records.get(stepId);
    if (!yes || !record) continue;
    const deviates = record.status === 'FAILED' || record.values.some((v) => v.outOfLimits);
    if (deviates && !(record.comment ?? '').trim()) missing.push(stepId);
  }
  return missing;
}

export function commentRequired(steps: string[]): AppError {
  return new AppError('COMMENT_REQUIRED', `${steps.length} step(s) with a value out of limits or FAILED need a comment`, { steps });
}

/** Whether a job completed after it was due (a LATE_COMPLETION deviation). */
export function completedLate(dueAt: string | null, completedAt: string): boolean {
  return dueAt !== null && Date.parse(completedAt) > Date.parse(dueAt);
}
