// The step sign-offs a job still lacks: pure, so completing a job
// (services/jobs.ts) and signing a step (services/signoffs.ts) share it
// without importing each other.
import type { StepSignatureMeaning, StepSignatureRow } from '#db/schema';
import { AppError } from '#errors';
import type { Applicability } from './applicability';
import { stepsOf, type Content } from './content';

export function missingSignoffs(
  content: Content,
  applies: readonly Applicability[],
  signatures: readonly StepSignatureRow[],
): { stepId: string; meaning: StepSignatureMeaning }[] {
  const notApplicable = new Set(applies.filter((a) => !a.applies).map((a) => a.stepId));
  const has = (stepId: string, meaning: StepSignatureMeaning) =>
    signatures.some((s) => s.step_id === stepId && s.meaning === meaning && s.invalidated_at === null);
  const missing: { stepId: string; meaning: StepSignatureMeaning }[] = [];
  for (const { step } of stepsOf(content)) {
    if (!step.signoff || notApplicable.has(step.id)) continue;
    if (step.signoff.performer && !has(step.id, 'PERFORMED')) missing.push({ stepId: step.id, meaning: 'PERFORMED' });
    if (step.signoff.verifier && !has(step.id, 'VERIFIED')) missing.push({ stepId: step.id, meaning: 'VERIFIED' });
  }
  return missing;
}

export function signoffMissing(missing: { stepId: string; meaning: StepSignatureMeaning }[]): AppError {
  return new AppError('SIGNOFF_MISSING', `${missing.length} required sign-off(s) are missing`, {
    missing,
    steps: [...new Set(missing.map((m) => m.stepId))],
  });
}
