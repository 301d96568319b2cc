import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Readable } from 'node:stream';
import type { Deps } from '#deps';
import type { AgreementStatus } from '#repos/agreements';
export type { AgreementStatus } from '#repos/agreements';
import type { AgreementKind, AgreementRow, DB } from '#db/schema';
import type { Page, PageInput } from '#db/pagination';
import type { TenantScope } from '#db/tenant';
import { isUniqueViolation, withTransaction } from '#db/transaction';
import { conflict, eulaNotAccepted, fieldError, msaNotAccepted, notFound } from '#errors';
import { renderMarkdownPdf } from '#lib/pdf';
import {
  findAcceptance,
  getAgreementById,
  insertAcceptance,
  insertAgreement,
  listAgreements as listAgreementRows,
  listEffectiveAgreements,
  updateAgreement as updateAgreementRow,
} from '#repos/agreements';
import type { RequestMeta, UserActor } from './actor';
import { recordChange, recordLogEntry, type ChangedBy } from './security-log';
import { getSystemFile } from './files';

// Agreements: versioned EULA (accepted per user) and MSA (accepted per client
// by a Security Administrator). The current version of a kind is the newest one
// whose effective date has come. An acceptance of an older version still
// counts unless a version requiring re-acceptance was published since.

/** An agreement version as its security event records it: the text by length and digest (the full text is in the table). */
function auditedAgreement(row: AgreementRow) {
  return {
    kind: row.kind,
    version: row.version,
    title: row.title,
    bodyMarkdown:
      row.body_markdown === null
        ? null
        : { length: row.body_markdown.length, sha256: createHash('sha256').update(row.body_markdown).digest('hex').slice(0, 16) },
    fileName: row.file_name,
    fileSize: row.file_size,
    effectiveAt: row.effective_at,
    requiresReacceptance: row.requires_reacceptance === 1,
  };
}

export interface AgreementInput {
  kind: AgreementKind;
  version: string;
  title: string;
  bodyMarkdown?: string | null;
  /** an uploaded PDF, base64-encoded */
  pdfBase64?: string | null;
  /** or a PDF uploaded through POST /api/admin/upload */
  fileId?: number;
  fileName?: string | null;
  effectiveAt?: string;
  requiresReacceptance?: boolean;
}

export type AgreementChanges = Partial<Omit<AgreementInput, 'kind' | 'version'>>;

/** Decodes and stores an uploaded PDF (outside any transaction: disk I/O). */
async function storePdf(deps: Deps, base64: string, field: string) {
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length === 0 || bytes.subarray(0, 5).toString('latin1') !== '%PDF-')
    throw fieldError(field, 'must be a base64-encoded PDF file');
  return deps.storage.put(bytes);
}

/** The agreement's PDF: a system upload by id (POST /api/admin/upload) or base64 in the body; undefined when neither is given. */
async function pdfOf(
  deps: Deps,
  input: Pick<AgreementInput, 'pdfBase64' | 'fileId'>,
): Promise<{ key: string; size: number; name?: string } | null | undefined> {
  if (input.fileId !== undefined) {
    const file = await getSystemFile(deps, input.fileId).catch(() => {
      throw fieldError('body.fileId', `file ${input.fileId} does not exist (upload it with POST /api/admin/upload)`);
    });
    if (file.content_type !== 'application/pdf') throw fieldError('body.fileId', 'must be a PDF file');
    return { key: file.sha256, size: file.size, name: file.name };
  }
  if (input.pdfBase64) return storePdf(deps, input.pdfBase64, 'body.pdfBase64');
  return input.pdfBase64 === null ? null : undefined;
}

/**
 * Publishes an agreement version (effective now unless a date is given).
 * @throws AppError VALIDATION_ERROR (no body and no PDF, not a PDF), CONFLICT (version exists)
 */
export async function createAgreement(deps: Deps, input: AgreementInput, by: ChangedBy): Promise<AgreementRow> {
  if (!input.bodyMarkdown && !input.pdfBase64 && input.fileId === undefined)
    throw fieldError('body.bodyMarkdown', 'give a Markdown body or a PDF (fileId or pdfBase64)');
  const file = (await pdfOf(deps, input)) ?? null;
  const nowIso = deps.clock.now().toISOString();
  let row: AgreementRow;
  try {
    row = await withTransaction(deps.db, async (trx, afterCommit) => {
      const created = await insertAgreement(trx, {
        kind: input.kind,
        version: input.version,
        title: input.title,
        body_markdown: input.bodyMarkdown ?? null,
        file_key: file?.key ?? null,
        file_name: file ? (input.fileName ?? file.name ?? `${input.kind}-${input.version}.pdf`) : null,
        file_size: file?.size ?? null,
        effective_at: input.effectiveAt ?? nowIso,
        requires_reacceptance: input.requiresReacceptance ? 1 : 0,
        created_at: nowIso,
        updated_at: nowIso,
      });
      await recordChange({ deps, trx, afterCommit }, by, {
        event: 'agreement.published',
        message: `${created.kind.toUpperCase()} version ${created.version} published`,
        target: { type: 'agreement', id: created.id },
        after: auditedAgreement(created),
        data: {
          agreementId: created.id,
          kind: created.kind,
          version: created.version,
          requiresReacceptance: created.requires_reacceptance === 1,
        },
      });
      return created;
    });
  } catch (error) {
    if (isUniqueViolation(error))
      throw conflict(`Version "${input.version}" of the ${input.kind.toUpperCase()} already exists`, { field: 'version' });
    throw error;
  }
  return row;
}

/** Changes an agreement's text, file, date or re-acceptance flag (kind and version are fixed). @throws AppError NOT_FOUND, VALIDATION_ERROR */
export async function updateAgreement(deps: Deps, id: number, changes: AgreementChanges, by: ChangedBy): Promise<AgreementRow> {
  const file = await pdfOf(deps, changes);
  const nowIso = deps.clock.now().toISOString();
  return withTransaction(deps.db, async (trx, afterCommit) => {
    const current = await getAgreementById(trx, id);
    const body = changes.bodyMarkdown !== undefined ? changes.bodyMarkdown : current.body_markdown;
    const hasFile = file === undefined ? current.file_key !== null : file !== null;
    if (!body && !hasFile) throw fieldError('body.bodyMarkdown', 'an agreement needs a Markdown body or a PDF');
    const updated = await updateAgreementRow(trx, id, {
      ...(changes.title !== undefined && { title: changes.title }),
      ...(changes.bodyMarkdown !== undefined && { body_markdown: changes.bodyMarkdown }),
      ...(file !== undefined && {
        file_key: file?.key ?? null,
        file_size: file?.size ?? null,
        file_name: file ? (changes.fileName ?? file.name ?? current.file_name ?? `${current.kind}-${current.version}.pdf`) : null,
      }),
      ...(file === undefined && changes.fileName !== undefined && current.file_key !== null && { file_name: changes.fileName }),
      ...(changes.effectiveAt !== undefined && { effective_at: changes.effectiveAt }),
      ...(changes.requiresReacceptance !== undefined && { requires_reacceptance: changes.requiresReacceptance ? 1 : 0 }),
      updated_at: nowIso,
    });
    await recordChange({ deps, trx, afterCommit }, by, {
      event: 'agreement.changed',
      message: `${current.kind.toUpperCase()} version ${current.version} changed`,
      target: { type: 'agreement', id },
      before: auditedAgreement(current),
      after: auditedAgreement(updated),
    });
    return updated;
  });
}

export async function listAgreements(deps: Deps, kind: AgreementKind | undefined, page: PageInput): Promise<Page<AgreementRow>> {
  return listAgreementRows(deps.db.kysely, kind, page);
}

interface CurrentVersion {
  current: AgreementRow;
  /** versions whose acceptance still counts: the current one back to the last one requiring re-acceptance */
  honoured: number[];
}

async function currentVersion(db: Kysely<DB>, kind: AgreementKind, nowIso: string): Promise<CurrentVersion | null> {
  const versions = await listEffectiveAgreements(db, kind, nowIso);
  return versions.length === 0 ? null : { current: versions[0], honoured: honouredOf(versions) };
}

/** Of effective versions, newest first: the ids whose acceptance counts (the current one back to the last one requiring re-acceptance). */
function honouredOf(versions: readonly Pick<AgreementRow, 'id' | 'requires_reacceptance'>[]): number[] {
  const honoured: number[] = [];
  for (const version of versions) {
    honoured.push(version.id);
    if (version.requires_reacceptance === 1) break;
  }
  return honoured;
}

async function status(deps: Deps, kind: AgreementKind, scope: TenantScope, userId?: number): Promise<AgreementStatus> {
  const db = deps.db.kysely;
  const version = await currentVersion(db, kind, deps.clock.now().toISOString());
  if (!version) return { agreement: null, acceptance: null, accepted: false };
  const acceptance = (await findAcceptance(db, scope, version.honoured, userId)) ?? null;
  return { agreement: version.current, acceptance, accepted: acceptance !== null };
}

/** The current EULA and the user's acceptance of it. */
export async function eulaStatus(deps: Deps, actor: UserActor): Promise<AgreementStatus> {
  return status(deps, 'eula', actor.scope, actor.userId);
}

/** The current MSA and the client's acceptance of it. */
export async function msaStatus(deps: Deps, scope: TenantScope): Promise<AgreementStatus> {
  return status(deps, 'msa', scope);
}

/**
 * Records the user's acceptance of the current EULA (or the client's of the
 * current MSA). Accepting what is already accepted returns that acceptance.
 * @throws AppError NOT_FOUND (none published), CONFLICT (`version` given and no longer current)
 */
export async function acceptAgreement(
  deps: Deps,
  kind: AgreementKind,
  actor: UserActor,
  version: string | undefined,
  meta: Partial<RequestMeta>,
): Promise<AgreementStatus> {
  const nowIso = deps.clock.now().toISOString();
  const userId = kind === 'eula' ? actor.userId : undefined;
  const result = await withTransaction(deps.db, { lockClient: actor.scope.clientId }, async (trx) => {
    const current = await currentVersion(trx, kind, nowIso);
    if (!current) throw notFound(kind === 'eula' ? 'EULA' : 'MSA');
    if (version !== undefined && version !== current.current.version) {
      throw conflict(`Version ${version} is not the current ${kind.toUpperCase()} (${current.current.version}); reload and accept again`, {
        currentVersion: current.current.version,
      });
    }
    const existing = await findAcceptance(trx, actor.scope, [current.current.id], userId);
    if (existing) return { agreement: current.current, acceptance: existing, accepted: true, created: false };
    const acceptance = await insertAcceptance(trx, actor.scope, {
      agreement_id: current.current.id,
      kind,
      version: current.current.version,
      user_id: actor.userId,
      user_email: actor.email,
      accepted_at: nowIso,
      ip: meta.ip ?? null,
      user_agent: meta.userAgent ?? null,
    });
    return { agreement: current.current, acceptance, accepted: true, created: true };
  });
  if (result.created) {
    await recordLogEntry(deps, {
      event: `agreement.${kind}_accepted`,
      message: `${kind.toUpperCase()} version ${result.agreement.version} accepted${kind === 'msa' ? ' for the client' : ''}`,
      clientId: actor.clientId,
      userId: actor.userId,
      meta,
      data: { agreementId: result.agreement.id, version: result.agreement.version },
    });
  }
  return { agreement: result.agreement, acceptance: result.acceptance, accepted: true };
}

/**
 * The gate: the client must have accepted the current MSA and the user the
 * current EULA (each only when one is published). It runs on every client
 * request, so it reads through the hot path's cache of the caller's state
 * (emptied by any write to agreements or acceptances, in this process or the
 * CLI's); the version in force is picked by the clock on every call.
 * `checkedSince`: the request's (see HotPathLookups.deploymentState).
 * @throws AppError MSA_NOT_ACCEPTED, EULA_NOT_ACCEPTED
 */
export async function assertAgreementsAccepted(deps: Deps, actor: UserActor, checkedSince?: number): Promise<void> {
  const nowIso = deps.clock.now().toISOString();
  const unaccepted = async (kind: AgreementKind, userId: number | undefined): Promise<string | undefined> => {
    const effective = (await deps.hotPath.agreementVersions(kind, checkedSince)).filter((version) => version.effective_at <= nowIso);
    if (effective.length === 0) return undefined;
    return (await deps.hotPath.accepted(actor.clientId, honouredOf(effective), userId, checkedSince)) ? undefined : effective[0].version;
  };
  const msa = await unaccepted('msa', undefined);
  if (msa !== undefined) throw msaNotAccepted(msa);
  const eula = await unaccepted('eula', actor.userId);
  if (eula !== undefined) throw eulaNotAccepted(eula);
}

export interface AgreementDocument {
  stream: Readable;
  fileName: string;
  size?: number;
}

/**
 * The current MSA as a PDF: the uploaded file, or rendered from its Markdown.
 * @throws AppError NOT_FOUND when no MSA is published
 */
export async function openMsaDocument(deps: Deps): Promise<AgreementDocument> {
  const version = await currentVersion(deps.db.kysely, 'msa', deps.clock.now().toISOString());
  if (!version) throw notFound('MSA');
  const msa = version.current;
  const baseName = `msa-${msa.version.replace(/[^A-Za-z0-9._-]+/g, '_')}.pdf`;
  if (msa.file_key) {
    const file = await deps.storage.get(msa.file_key);
    return { stream: file.stream, size: file.size, fileName: msa.file_name ?? baseName };
  }
  return { stream: renderMarkdownPdf(msa.title, msa.body_markdown ?? '', { subject: `MSA version ${msa.version}` }), fileName: baseName };
}
