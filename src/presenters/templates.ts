import type { TemplateRow, TemplateVersionRow, VersionSignatureRow } from '#db/schema';
import type { VersionSummaryRow } from '#repos/template-versions';
import { deserializeContent, type Content } from '#domain/content';

// Templates, versions and signatures: row → API shape (GraphQL types resolve from these).

/** `row` may lack columns a GraphQL query did not select (src/graphql/columns.ts): their fields are then undefined. */
export function presentTemplate(row: TemplateRow) {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    tags: (row.tags === undefined ? undefined : JSON.parse(row.tags)) as string[],
    assetClassId: row.asset_class_id,
    ownerId: row.owner_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
export type PresentedTemplate = ReturnType<typeof presentTemplate>;

/** A version without its document: what a page of jobs shows, and what events carry (events stay small; fetch the document by id). */
export function presentVersionSummary(row: VersionSummaryRow) {
  return {
    id: row.id,
    templateId: row.template_id,
    number: row.number,
    state: row.state,
    contentHash: row.content_hash,
    createdById: row.created_by,
    updatedById: row.updated_by,
    revision: row.revision,
    rejectReason: row.reject_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    submittedAt: row.submitted_at,
    approvedAt: row.approved_at,
    publishedAt: row.published_at,
    retiredAt: row.retired_at,
  };
}
export type PresentedVersionSummary = ReturnType<typeof presentVersionSummary>;

export function presentVersion(row: TemplateVersionRow) {
  let content: Content | undefined;
  return {
    ...presentVersionSummary(row),
    /** parsed on first read: a list that does not show the document does not pay for parsing it */
    get content(): Content {
      return (content ??= deserializeContent(row.content));
    },
  };
}
export type PresentedVersion = ReturnType<typeof presentVersion>;

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
