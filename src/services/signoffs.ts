import { z } from 'zod';
import type { Deps } from '#deps';
import type { JobRow, StepRecordRow, StepSignatureRow } from '#db/schema';
import { withTransaction } from '#db/transaction';
import { AppError, conflict, forbidden, validationFailed } from '#errors';
import { stepValuesHash } from '#lib/step-values-hash';
import type { RecordedValue } from '#domain/recording';
import { findStep } from '#domain/content';
import { applicability } from '#domain/applicability';
import { hasAnyRole } from '#policies/roles';
import { appendAudit } from '#repos/audit';
import { getJobById, loadStepRecords } from '#repos/jobs';
import { insertStepSignature, loadStepSignatures } from '#repos/step-signatures';
import { parseOrFail } from '#lib/parse-or-fail';
import { assertJobOpen, assertMayWork, auditActor, jobContent } from './jobs';
import { assertQualified, jobRequirements, jobTarget } from './qualification-gate';
import { mergeRequirements } from '#domain/qualifications';
import { verifySignature } from './templates';
import type { RequestMeta, UserActor } from './actor';
import { PERMISSIONS } from '#policies/permissions';

/**
 * Step sign-offs (docs/execution-rules.md). A step whose template says
 * `signoff: {performer: true, verifier: {roles: [...]}}` needs e-signatures
 * before its job can complete: PERFORMED by someone who may work on the job,
 * VERIFIED by another person holding one of the roles. A signature binds the
 * SHA-256 of the step's record as it was signed; recording the step again
 * invalidates its signatures (recordStep), so what was signed is what counts.
 */

export const SignStepInput = z.object({
  jobId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  stepId: z.string().min(1).max(64),
  meaning: z.enum(['PERFORMED', 'VERIFIED']),
  password: z.string().max(1024).nullish(),
  code: z.string().max(64).nullish(),
});
export type SignStepInput = z.input<typeof SignStepInput>;

/** SHA-256 of what is signed (lib/step-values-hash.ts, which the record bundle verifier shares). */
export function recordHash(record: StepRecordRow): Promise<string> {
  return stepValuesHash({
    stepId: record.step_id,
    status: record.status,
    values: JSON.parse(record.values) as RecordedValue[],
    comment: record.comment,
  });
}

/**
 * Signs a step of an open job with PERFORMED or VERIFIED: an e-signature
 * (password or TOTP; a wrong one counts toward the lockout).
 * @throws AppError NOT_FOUND, FORBIDDEN (may not work on the job / lacks a verifier role), JOB_CLOSED,
 *   STEP_NOT_APPLICABLE, SEPARATION_OF_DUTIES (verifier = performer or recorder), CONFLICT (already signed
 *   with that meaning), VALIDATION_ERROR (the step needs no such sign-off or has no record),
 *   INVALID_CREDENTIALS, TOO_MANY_ATTEMPTS
 */
export async function signStep(
  deps: Deps,
  actor: UserActor,
  raw: SignStepInput,
  meta: RequestMeta,
): Promise<{ job: JobRow; signature: StepSignatureRow }> {
  const input = parseOrFail(SignStepInput, raw);
  const scope = actor.scope;
  // before the transaction: a failed attempt is recorded toward the lockout whatever happens next
  const signer = await verifySignature(deps, actor, { password: input.password, code: input.code }, meta);
  const nowIso = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: scope.clientId }, async (trx) => {
    const job = await getJobById(trx, scope, input.jobId);
    assertJobOpen(job);
    const content = await jobContent(trx, scope, job);
    const step = findStep(content, input.stepId);
    if (!step) throw validationFailed({ fields: [{ path: 'stepId', message: `the job's version has no step "${input.stepId}"` }] });
    const wanted = input.meaning === 'PERFORMED' ? step.signoff?.performer === true : step.signoff?.verifier != null;
    if (!wanted) throw validationFailed({ fields: [{ path: 'meaning', message: `step "${step.id}" needs no ${input.meaning} sign-off` }] });
    const records = await loadStepRecords(trx, scope, [job.id]);
    const views = new Map(
      records.map((r) => [r.step_id, { status: r.status, values: JSON.parse(r.values) as { key: string; value: unknown }[] }]),
    );
    const applies = applicability(content, views).find((a) => a.stepId === step.id);
    if (applies && !applies.applies)
      throw new AppError('STEP_NOT_APPLICABLE', `The step does not apply: ${applies.reason}`, { stepId: step.id, reason: applies.reason });
    const record = records.find((r) => r.step_id === step.id);
    if (!record) throw validationFailed({ fields: [{ path: 'stepId', message: 'the step has no record to sign yet' }] });

    const valid = (await loadStepSignatures(trx, scope, [job.id])).filter((s) => s.step_id === step.id && s.invalidated_at === null);
    if (valid.some((s) => s.meaning === input.meaning))
      throw conflict(`The step is already signed ${input.meaning}`, { stepId: step.id, meaning: input.meaning });
    if (input.meaning === 'PERFORMED') {
      if (!hasAnyRole(actor.roles, PERMISSIONS.runJob)) throw forbidden('Only people who run jobs sign a step PERFORMED');
      await assertMayWork(trx, actor, job, step.id);
      if (valid.some((s) => s.meaning === 'VERIFIED' && s.signer_id === actor.userId))
        throw separation('The verifier of a step cannot also sign it PERFORMED');
    } else {
      const roles = step.signoff!.verifier!.roles;
      if (!hasAnyRole(actor.roles, roles)) throw forbidden(`A verifier of this step holds one of the roles ${roles.join(', ')}`);
      const performer = valid.find((s) => s.meaning === 'PERFORMED')?.signer_id;
      if (actor.userId === record.recorded_by || actor.userId === performer)
        throw separation('The verifier must be another person than the one who performed the step');
    }
    // docs/qualifications.md: the signer holds the skills the sign-off asks (PERFORMED: and the job's)
    const required = mergeRequirements(input.meaning === 'PERFORMED' ? jobRequirements(content) : [], step.signoff?.skills);
    await assertQualified(trx, scope, [actor.userId], required, jobTarget(job), { action: 'sign', stepId: step.id }, new Date(nowIso));
    const signature = await insertStepSignature(trx, scope, {
      job_id: job.id,
      step_id: step.id,
      signer_id: actor.userId,
      signer_name: signer.name,
      signer_email: signer.email,
      meaning: input.meaning,
      method: signer.method,
      values_hash: await recordHash(record),
      signed_at: nowIso,
      invalidated_at: null,
    });
    await appendAudit(trx, scope, {
      actor: auditActor(actor),
      action: 'job.step_signed',
      entityType: 'job',
      entityId: job.id,
      after: { stepId: step.id, meaning: input.meaning, signerName: signer.name, method: signer.method, valuesHash: signature.values_hash },
      at: nowIso,
    });
    return { job, signature };
  });
}

const separation = (message: string) => new AppError('SEPARATION_OF_DUTIES', message);

/**
 * The sign-offs a job still lacks: for every step that applies and whose
 * template asks for them, a valid PERFORMED and/or VERIFIED signature.
 */
export function presentStepSignature(s: StepSignatureRow) {
  return {
    stepId: s.step_id,
    signerId: s.signer_id,
    signerName: s.signer_name,
    meaning: s.meaning,
    signedAt: s.signed_at,
    valuesHash: s.values_hash,
    invalidatedAt: s.invalidated_at,
  };
}
export type PresentedStepSignature = ReturnType<typeof presentStepSignature>;
