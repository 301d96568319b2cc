import type { AgreementAcceptanceRow, AgreementRow } from '#db/schema';
import type { AgreementStatus } from '#repos/agreements';

export function presentAgreement(row: AgreementRow) {
  return {
    id: row.id,
    kind: row.kind,
    version: row.version,
    title: row.title,
    bodyMarkdown: row.body_markdown,
    hasPdf: row.file_key !== null,
    fileName: row.file_name,
    fileSize: row.file_size,
    effectiveAt: row.effective_at,
    requiresReacceptance: row.requires_reacceptance === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** `withRequestMeta`: the IP and user agent of the acceptance, for the accepting user or a Security Administrator only. */
export function presentAcceptance(row: AgreementAcceptanceRow, withRequestMeta = true) {
  return {
    agreementId: row.agreement_id,
    version: row.version,
    acceptedAt: row.accepted_at,
    acceptedBy: { userId: row.user_id, email: row.user_email },
    ...(withRequestMeta && { ip: row.ip, userAgent: row.user_agent }),
  };
}

export function presentAgreementStatus(status: AgreementStatus, withRequestMeta = true) {
  return {
    agreement: status.agreement ? presentAgreement(status.agreement) : null,
    accepted: status.accepted,
    acceptance: status.acceptance ? presentAcceptance(status.acceptance, withRequestMeta) : null,
  };
}

/** GET /api/client/have-client-accepted-msa */
export function presentMsaAccepted(status: AgreementStatus) {
  return {
    accepted: status.accepted,
    /** false when no MSA is published: nothing to accept */
    required: status.agreement !== null,
    version: status.agreement?.version ?? null,
    acceptedVersion: status.acceptance?.version ?? null,
    acceptedAt: status.acceptance?.accepted_at ?? null,
    acceptedBy: status.acceptance ? { userId: status.acceptance.user_id, email: status.acceptance.user_email } : null,
  };
}
