import type { StepSignatureMeaning } from '../../domain/vocabulary';
// How far a job is, defined once for every page that says it (the operator's
// job page, the run page and its outline, the job record): "3 of 6 steps done"
// means the same everywhere. DOM-free: a unit test runs it in Node.
//
// What counts:
// - only the steps that apply now: a step a condition takes out, or one the
//   operator marked "not applicable" (the server's word), is neither done nor
//   to do;
// - a step is done when the server holds its record (done, failed, or skipped
//   with a reason) and every sign-off it asks for is given;
// - a record still queued on the device is "waiting", not done: the server has
//   not confirmed it yet; a confirmed record still missing a sign-off is
//   "unsigned", not done.

/** A step's state as every page shows it. */
export type StepState = 'not-applying' | 'open' | 'waiting' | 'unsigned' | 'done';

/** What the rule reads of a step: whether it applies, its record (queued on the device or the server's), its sign-off. */
export interface ProgressStep {
  stepId: string;
  applies: boolean;
  record: { pending: boolean } | undefined;
  signoff: { performer: boolean; verifier: { roles: string[] } | null } | null;
}

/** A signature as the rule reads it: an invalidated one (the step recorded again) no longer counts. */
export interface ProgressSignature {
  stepId: string;
  meaning: string;
  invalidatedAt: string | null;
}

/** The meanings a step's sign-off asks for, in signing order. */
export function meaningsOf(signoff: ProgressStep['signoff'] | undefined): StepSignatureMeaning[] {
  if (!signoff) return [];
  return [...(signoff.performer ? (['PERFORMED'] as const) : []), ...(signoff.verifier ? (['VERIFIED'] as const) : [])];
}

/** The valid signature of a meaning on a step (an invalidated one no longer counts). */
export function validSignature<S extends ProgressSignature>(
  signoffs: readonly S[] | null | undefined,
  stepId: string,
  meaning: StepSignatureMeaning,
): S | undefined {
  return (signoffs ?? []).find((s) => s.stepId === stepId && s.meaning === meaning && s.invalidatedAt === null);
}

/** The sign-offs a step still lacks. */
export function unsignedMeanings(step: ProgressStep, signoffs: readonly ProgressSignature[] | null | undefined): StepSignatureMeaning[] {
  return meaningsOf(step.signoff).filter((m) => !validSignature(signoffs, step.stepId, m));
}

export function stepState(step: ProgressStep, signoffs: readonly ProgressSignature[] | null | undefined): StepState {
  if (!step.applies) return 'not-applying';
  if (!step.record) return 'open';
  if (step.record.pending) return 'waiting';
  return unsignedMeanings(step, signoffs).length > 0 ? 'unsigned' : 'done';
}

export interface Progress {
  /** the steps that apply now */
  total: number;
  done: number;
  waiting: number;
  unsigned: number;
  open: number;
  notApplying: number;
}

export function stepProgress(steps: readonly ProgressStep[], signoffs: readonly ProgressSignature[] | null | undefined): Progress {
  const progress: Progress = { total: 0, done: 0, waiting: 0, unsigned: 0, open: 0, notApplying: 0 };
  for (const step of steps) {
    const state = stepState(step, signoffs);
    if (state === 'not-applying') progress.notApplying++;
    else {
      progress.total++;
      progress[state]++;
    }
  }
  return progress;
}

/** The step's number among the steps that count ("Step 2 of 5"), or null for one that does not apply. */
export function countedPosition(steps: readonly ProgressStep[], index: number): number | null {
  if (!steps[index]?.applies) return null;
  return steps.slice(0, index + 1).filter((s) => s.applies).length;
}
