// Deviations (docs/execution-rules.md): what a recording deviates
// from the plan, and which steps still owe a comment before their job may
// complete. Pure, so completing a job (services/jobs.ts) and the deviation
// service share it without importing each other.
import type { DeviationKind, StepStatus } from '#db/schema';
import { AppError } from '#errors';
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
}

export interface NewStepDeviation {
  kind: 'OUT_OF_LIMITS' | 'STEP_FAILED';
  fieldKey: string | null;
  value: unknown;
  /** for people: the limits a value left */
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
 * The deviations a recording adds: each value out of limits, and a FAILED
 * status — only those the step's previous record did not already have (the
 * same value out of limits, FAILED again): recording a step again to add a
 * comment, or a client sending its recording twice, adds nothing.
 */
export function deviationsOfRecording(
  fields: readonly LimitedField[],
  before: RecordedStep | undefined,
  after: RecordedStep,
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
  return out;
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
