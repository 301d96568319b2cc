import type { TemplateRow, TemplateVersionRow, VersionSignatureRow } from '../db/schema';
import { deserializeContent, type Content } from '../domain/content';

// Templates, versions and signatures: row → API shape (GraphQL types resolve from these).

export function presentTemplate(row: TemplateRow) {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    tags: JSON.parse(row.tags) as string[],
    assetClassId: row.asset_class_id,
    ownerId: row.owner_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
export type PresentedTemplate = ReturnType<typeof presentTemplate>;

export function presentVersion(row: TemplateVersionRow) {
  let content: Content | undefined;
  return {
    id: row.id,
    templateId: row.template_id,
    number: row.number,
    state: row.state,
    /** parsed on first read: a list of jobs that does not ask for the document does not pay for parsing 50 of them */
    get content(): Content {
      return (content ??= deserializeContent(row.content));
    },
    contentHash: row.content_hash,
    createdById: row.created_by,
    updatedById: row.updated_by,
    rejectReason: row.reject_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    submittedAt: row.submitted_at,
    approvedAt: row.approved_at,
    publishedAt: row.published_at,
    retiredAt: row.retired_at,
  };
}
export type PresentedVersion = ReturnType<typeof presentVersion>;

/** A version in an event: the API's shape without the document (fetch it by id; events stay small). */
export function presentVersionEvent(row: TemplateVersionRow) {
  const { content: _content, ...version } = presentVersion(row);
  return version;
}

export function presentSignature(row: VersionSignatureRow) {
  return {
    id: row.id,
    versionId: row.version_id,
    signerId: row.signer_id,
    signerName: row.signer_name,
    signerEmail: row.signer_email,
    meaning: row.meaning,
    method: row.method,
    contentHash: row.content_hash,
    signedAt: row.signed_at,
  };
}
export type PresentedSignature = ReturnType<typeof presentSignature>;
