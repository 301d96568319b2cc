// The job as the operator's screens see it under the execution rules: every
// step's record (queued on the device, newest, or the server's), whether it
// applies now and why not, and the calculated values of queued records — all
// computed on the device, so a run goes on offline exactly as the server will
// judge it. The server's answer wins: with nothing queued for the job, whether
// a step applies is what the server said (Job.steps).
import { isEmptyValue, outOfLimits, stepsOfJob, type LocalJobView, type SectionDef, type StepDef } from '../../offline';
import { applicabilityOf, calculate } from '../../rules/local';
import { stepProgress, stepState, type Progress, type ProgressStep, type StepState } from '../../rules/progress';
import type { StepStatus } from '../../../domain/vocabulary';

/** A step's record as the operator sees it: queued on the device (newest) or the server's. */
export interface SeenRecord {
  status: StepStatus;
  values: { key: string; value: unknown; outOfLimits: boolean; error?: string | null }[];
  comment: string | null;
  reason: string | null;
  pending: boolean;
  recordedBy?: { firstName: string; lastName: string; email: string };
}

/** Why a step does not apply: its section's condition, its own, or the server's word (e.g. marked not applicable). */
export type NotApplying = { by: 'section'; section: SectionDef } | { by: 'step'; step: StepDef } | { by: 'server'; reason: string };

export interface StepRule {
  step: StepDef;
  index: number;
  applies: boolean;
  why: NotApplying | null;
  record: SeenRecord | undefined;
}

const CONDITION_REASON = /^the (condition of section|step's condition)/;

/**
 * Every step of the job in reading order with its record and whether it
 * applies. Queued records get their CALCULATED values computed here (the
 * client never sends them; the server computes the same from the same inputs).
 */
export function jobRules(view: LocalJobView): StepRule[] {
  const steps = stepsOfJob(view.job);
  const doc = view.job.version.content;
  const records = new Map<string, SeenRecord>();
  for (const step of steps) {
    const pending = view.pendingRecords.get(step.stepId);
    if (pending) {
      const own = new Map(pending.values.map((v) => [v.key, v.value]));
      const calculated = calculate(doc, step, own, (stepId, key) => records.get(stepId)?.values.find((v) => v.key === key)?.value);
      const values = pending.values.map((v) => {
        const field = step.fields.find((f) => f.key === v.key);
        return { key: v.key, value: v.value, outOfLimits: field ? outOfLimits(field, v.value) : false };
      });
      for (const [key, c] of calculated) {
        if ('error' in c) values.push({ key, value: null, outOfLimits: false, error: c.error } as (typeof values)[number]);
        else if (c.value !== null) values.push({ key, value: c.value, outOfLimits: c.outOfLimits });
      }
      records.set(step.stepId, { status: pending.status, values, comment: pending.comment, reason: pending.reason, pending: true });
      continue;
    }
    const record = view.job.records.find((r) => r.stepId === step.stepId);
    if (record) {
      records.set(step.stepId, {
        status: record.status,
        values: record.values.map((v) => ({ key: v.key, value: v.value, outOfLimits: v.outOfLimits, error: v.error ?? null })),
        comment: record.comment,
        reason: record.reason,
        pending: false,
        recordedBy: record.recordedBy,
      });
    }
  }
  const local = applicabilityOf(doc, records);
  const server = view.job.steps;
  const useServer = server !== undefined && view.pendingRecords.size === 0;
  return steps.map((step, index) => {
    const mine = local.find((a) => a.stepId === step.stepId);
    const theirs = server?.find((a) => a.stepId === step.stepId);
    let applies = mine?.applies ?? true;
    let reason = mine?.reason ?? null;
    // the server's answer, when nothing newer is queued; and always its word on what no condition decides
    if (theirs && (useServer || (!theirs.applies && theirs.reason && !CONDITION_REASON.test(theirs.reason)))) {
      applies = theirs.applies;
      reason = theirs.reason;
    }
    const section = doc.sections.find((s) => s.steps.some((st) => st.stepId === step.stepId))!;
    const why: NotApplying | null = applies
      ? null
      : reason?.startsWith('the condition of section')
        ? { by: 'section', section }
        : reason && !CONDITION_REASON.test(reason)
          ? { by: 'server', reason }
          : { by: 'step', step };
    return { step, index, applies, why, record: records.get(step.stepId) };
  });
}

/** Steps that apply whose record is FAILED or has a value out of limits, with no comment: completion is refused for them. */
export function missingComments(rules: readonly StepRule[]): StepRule[] {
  return rules.filter(
    ({ applies, record }) =>
      applies && record && (record.status === 'FAILED' || record.values.some((v) => v.outOfLimits)) && !(record.comment ?? '').trim(),
  );
}

/** The required fields still empty (as the server checks on completion): every step that applies and is not skipped. */
export function missingRequired(rules: readonly StepRule[]) {
  return rules.flatMap(({ step, index, applies, record }) => {
    if (!applies || record?.status === 'SKIPPED') return [];
    return step.fields
      .filter((f) => f.required && isEmptyValue(record?.values.find((v) => v.key === f.key)?.value))
      .map((field) => ({ step, index, field }));
  });
}

/** The steps as rules/progress.ts reads them: the one definition of "done" every page counts with. */
export function progressSteps(rules: readonly StepRule[]): ProgressStep[] {
  return rules.map(({ step, applies, record }) => ({ stepId: step.stepId, applies, record, signoff: step.signoff }));
}

/** How far the job is on this device ("2 of 5 steps done"): the job page and the run page say the same. */
export function jobProgress(view: LocalJobView, rules: readonly StepRule[]): Progress {
  return stepProgress(progressSteps(rules), view.job.signoffs);
}

/** Each step's state (done, waiting to send, unsigned, open, not applying), in reading order. */
export function stepStates(view: LocalJobView, rules: readonly StepRule[]): StepState[] {
  return progressSteps(rules).map((step) => stepState(step, view.job.signoffs));
}
