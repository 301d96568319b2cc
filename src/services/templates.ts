import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Deps } from '#deps';
import type { DB, SignatureMeaning, TemplateRow, TemplateVersionRow, VersionState } from '#db/schema';
import type { CountedPage, PageInput } from '#db/pagination';
import { isUniqueViolation, withTransaction } from '#db/transaction';
import type { TenantScope } from '#db/tenant';
import { notify } from './notifications';
import { AppError, conflict, fieldError, invalidSignature, notFound, validationFailed } from '#errors';
import { parseOrFail } from '#lib/parse-or-fail';
import { EMPTY_CONTENT, parseContent, serializeContent, type Content } from '#domain/content';
import { assertFilesOfClient, contentFileIds } from './files';
import { diffContents, type ContentDiff } from '#domain/diff';
import { markRetrainingDue } from './qualification-gate';
import { transition, VERSION_TRANSITIONS, type VersionAction } from '#policies/transitions';
import { assertSeparationOfDuties, assertVersionEditable } from '#policies/versions';
import { appendAudit } from '#repos/audit';
import {
  findTemplateById,
  insertTemplate,
  isTemplateVisible,
  listTemplates as listTemplateRows,
  loadTemplateOrganizations,
  setTemplateOrganizations,
  templateVisibilityOf,
  updateTemplateRow,
  type AwaitingAction,
  type TemplateFilter,
  type TemplateVisibility,
} from '#repos/templates';
import {
  findLatestVersion,
  findVersionById,
  findVersionInState,
  insertSignature,
  insertVersion,
  listOpenJobsOnVersion,
  updateVersionInState,
} from '#repos/template-versions';
import { getUserById } from '#repos/users';
import { copyVersionTranslations } from '#repos/version-translations';
import { findCatalogueRow, loadCatalogueByIds } from '#repos/catalogue';
import type { JobRow } from '#db/schema';
import type { RequestMeta, UserActor } from './actor';
import { assertNotLocked, recordFailedSignIn, signatureAccount } from './lockout';
import { readSecuritySettings } from './security-settings';
import { verifySecondFactor } from './two-factor';
import { emitEvent, type EventTx } from '#events/emit';
import { presentVersionSummary } from '#presenters/templates';
import { permitted, requirePermission } from '#policies/permissions';

/**
 * Templates and their versions: authoring, the version life cycle with
 * electronic signatures, separation of duties, organization visibility and
 * diffs. Every change appends to the client's audit chain in its transaction.
 */

// ── Visibility ──────────────────────────────────────────────────────────────

/** Which templates the caller sees (templateVisibilityOf). */
function visibilityFor(db: Kysely<DB>, actor: UserActor): Promise<TemplateVisibility> {
  return templateVisibilityOf(db, actor.scope, { roles: actor.roles, availableToOrg: actor.user.available_to_org });
}

/** @throws AppError NOT_FOUND when the template is another client's or not visible to the caller */
export async function getVisibleTemplate(db: Kysely<DB>, actor: UserActor, id: number): Promise<TemplateRow> {
  const template = await findTemplateById(db, actor.scope, id);
  if (!template || !(await isTemplateVisible(db, actor.scope, id, await visibilityFor(db, actor)))) throw notFound('Template');
  return template;
}

/** Whether the caller may see the template (a live stream shows a template's events only then). */
export async function templateVisibleTo(db: Kysely<DB>, actor: UserActor, id: number): Promise<boolean> {
  try {
    await getVisibleTemplate(db, actor, id);
    return true;
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND') return false;
    throw error;
  }
}

/** @throws AppError NOT_FOUND when the version is another client's or its template is not visible */
async function getVisibleVersion(db: Kysely<DB>, actor: UserActor, id: number): Promise<TemplateVersionRow> {
  const version = await findVersionById(db, actor.scope, id);
  if (!version || !(await isTemplateVisible(db, actor.scope, version.template_id, await visibilityFor(db, actor))))
    throw notFound('Version');
  return version;
}

/**
 * A page of the templates the caller may see; `needsMyAction` keeps those
 * with a version waiting for them, by what their roles let them do next
 * (VERSION_TRANSITIONS): finish their drafts, review what others submitted
 * (their own too where the client allows self-approval), publish what was
 * approved.
 */
export async function listTemplates(
  deps: Deps,
  actor: UserActor,
  filter: TemplateFilter & { needsMyAction?: boolean | null },
  page: PageInput,
): Promise<CountedPage<TemplateRow>> {
  const db = deps.db.kysely;
  const { needsMyAction, ...rest } = filter;
  const awaiting = needsMyAction ? await awaitingActionOf(db, actor) : null;
  return listTemplateRows(db, actor.scope, { ...rest, awaiting }, await visibilityFor(db, actor), page);
}

async function awaitingActionOf(db: Kysely<DB>, actor: UserActor): Promise<AwaitingAction> {
  const may = (action: VersionAction) => permitted(actor.roles, `${action}Version`);
  const reviews = may('approve');
  return {
    userId: actor.userId,
    drafts: may('submit'),
    reviews,
    reviewsOfOthersOnly: reviews && !(await readSecuritySettings(db, actor.scope)).allowSelfApproval,
    publishing: may('publish'),
  };
}

/** @throws AppError NOT_FOUND */
export async function getTemplate(deps: Deps, actor: UserActor, id: number): Promise<TemplateRow> {
  return getVisibleTemplate(deps.db.kysely, actor, id);
}

/** @throws AppError NOT_FOUND */
export async function getVersion(deps: Deps, actor: UserActor, id: number): Promise<TemplateVersionRow> {
  return getVisibleVersion(deps.db.kysely, actor, id);
}

// ── Templates ───────────────────────────────────────────────────────────────

const TemplateFields = z
  .object({
    title: z.string().trim().min(1).max(500),
    description: z.string().max(10_000),
    tags: z
      .array(z.string().trim().min(1).max(100))
      .max(50)
      .transform((tags) => [...new Set(tags)]),
    assetClassId: z.number().int().positive().nullable(),
    organizationIds: z.array(z.number().int().positive()).max(1000),
  })
  .partial();
type TemplateFields = z.infer<typeof TemplateFields>;

function parseFields(input: unknown, path: string): TemplateFields {
  return parseOrFail(TemplateFields, input, path);
}

/** Asset class and organizations must be the client's own (a foreign id reads as not there). */
async function assertReferencesExist(db: Kysely<DB>, actor: UserActor, fields: TemplateFields, path: string): Promise<void> {
  if (fields.assetClassId != null && !(await findCatalogueRow(db, actor.scope, 'asset_classes', fields.assetClassId))) {
    throw fieldError(`${path}.assetClassId`, 'no such asset class');
  }
  if (fields.organizationIds && fields.organizationIds.length > 0) {
    const found = new Set((await loadCatalogueByIds(db, actor.scope, 'organizations', fields.organizationIds)).map((o) => o.id));
    const missing = fields.organizationIds.filter((id) => !found.has(id));
    if (missing.length > 0) throw fieldError(`${path}.organizationIds`, `no such organization: ${missing.join(', ')}`);
  }
}

const auditActor = (actor: Author) => ({ userId: actor.userId, email: actor.email });
const versionSummary = (v: TemplateVersionRow) => ({
  templateId: v.template_id,
  number: v.number,
  state: v.state,
  contentHash: v.content_hash,
});

async function templateSummary(db: Kysely<DB>, actor: Pick<UserActor, 'scope'>, t: TemplateRow) {
  const orgs = await loadTemplateOrganizations(db, actor.scope, [t.id]);
  return {
    title: t.title,
    description: t.description,
    tags: JSON.parse(t.tags) as string[],
    assetClassId: t.asset_class_id,
    organizationIds: orgs.map((o) => o.id),
  };
}

export interface CreateTemplateInput {
  title: string;
  description?: string | null;
  tags?: string[] | null;
  content?: unknown;
  assetClassId?: number | null;
  organizationIds?: number[] | null;
}

/**
 * Every sensor a field names is one of the client's (as files are: another client's sensor, or none, is refused
 * before anything is written). @throws AppError VALIDATION_ERROR naming each field's `sensorId`
 */
async function assertSensorsOfClient(db: Kysely<DB>, scope: TenantScope, content: Content, field: string): Promise<void> {
  const refs = content.sections.flatMap((section, s) =>
    section.steps.flatMap((step, i) =>
      step.fields.flatMap((f, k) =>
        f.sensorId === null ? [] : [{ sensorId: f.sensorId, path: `${field}.sections.${s}.steps.${i}.fields.${k}.sensorId` }],
      ),
    ),
  );
  if (refs.length === 0) return;
  const found = new Set((await loadCatalogueByIds(db, scope, 'sensors', [...new Set(refs.map((r) => r.sensorId))])).map((r) => r.id));
  const missing = refs.filter((r) => !found.has(r.sensorId));
  if (missing.length > 0)
    throw validationFailed({ fields: missing.map((r) => ({ path: r.path, message: `sensor ${r.sensorId} does not exist` })) });
}

/**
 * Creates a template owned by the caller and its version 1 as a DRAFT.
 * @throws AppError FORBIDDEN (not an author), VALIDATION_ERROR
 */
export async function createTemplate(deps: Deps, actor: UserActor, input: CreateTemplateInput): Promise<TemplateRow> {
  requirePermission(actor.roles, 'author');
  const fields = parseFields(
    {
      title: input.title,
      description: input.description ?? '',
      tags: input.tags ?? [],
      assetClassId: input.assetClassId ?? null,
      organizationIds: input.organizationIds ?? [],
    },
    'input',
  );
  const content = input.content == null ? EMPTY_CONTENT : parseContent(input.content, 'input.content');
  const { json, hash } = serializeContent(content);
  const db = deps.db.kysely;
  await assertReferencesExist(db, actor, fields, 'input');
  await assertFilesOfClient(db, actor.scope, contentFileIds(content), 'input.content');
  await assertSensorsOfClient(db, actor.scope, content, 'input.content');
  const now = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: actor.scope.clientId }, (trx) =>
    insertTemplateWithDraft(
      trx,
      actor,
      {
        title: fields.title!,
        description: fields.description ?? '',
        tags: fields.tags ?? [],
        assetClassId: fields.assetClassId ?? null,
        organizationIds: fields.organizationIds ?? [],
      },
      { json, hash },
      now,
      {},
    ),
  );
}

/** Who a template or draft is written by: a user of the client (the audit chain names them). */
export type Author = Pick<UserActor, 'scope' | 'userId' | 'email'>;

/**
 * Inside a transaction: a template owned by `author`, its organizations, and
 * its version 1 as a DRAFT with `content`, each with its audit entry (`note`
 * goes into the entries, e.g. where an import or copy came from). Fields are
 * already validated and their references checked.
 */
export async function insertTemplateWithDraft(
  trx: Kysely<DB>,
  author: Author,
  fields: { title: string; description: string; tags: string[]; assetClassId: number | null; organizationIds: number[] },
  content: { json: string; hash: string },
  now: string,
  note: Record<string, unknown>,
): Promise<TemplateRow> {
  const template = await insertTemplate(trx, author.scope, {
    title: fields.title,
    description: fields.description,
    tags: JSON.stringify(fields.tags),
    asset_class_id: fields.assetClassId,
    owner_id: author.userId,
    created_at: now,
    updated_at: now,
  });
  await setTemplateOrganizations(trx, author.scope, template.id, fields.organizationIds);
  await appendAudit(trx, author.scope, {
    actor: auditActor(author),
    action: 'template.created',
    entityType: 'template',
    entityId: template.id,
    after: { ...(await templateSummary(trx, author, template)), ...note },
    at: now,
  });
  await insertDraft(trx, author, template.id, 1, content, now, note);
  return template;
}

/**
 * Changes a template's title, description, tags, asset class or
 * organizations; omitted fields keep their values.
 * @throws AppError FORBIDDEN, NOT_FOUND, VALIDATION_ERROR
 */
export async function updateTemplate(
  deps: Deps,
  actor: UserActor,
  id: number,
  input: Omit<CreateTemplateInput, 'content'>,
): Promise<TemplateRow> {
  requirePermission(actor.roles, 'author');
  const db = deps.db.kysely;
  await getVisibleTemplate(db, actor, id);
  const fields = parseFields(
    Object.fromEntries(Object.entries(input).filter(([k, v]) => v !== undefined && (v !== null || k === 'assetClassId'))),
    'input',
  );
  await assertReferencesExist(db, actor, fields, 'input');
  const now = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: actor.scope.clientId }, async (trx) => {
    const before = await findTemplateById(trx, actor.scope, id);
    if (!before) throw notFound('Template');
    const beforeSummary = await templateSummary(trx, actor, before);
    const updated = await updateTemplateRow(trx, actor.scope, id, {
      ...(fields.title !== undefined && { title: fields.title }),
      ...(fields.description !== undefined && { description: fields.description }),
      ...(fields.tags !== undefined && { tags: JSON.stringify(fields.tags) }),
      ...(fields.assetClassId !== undefined && { asset_class_id: fields.assetClassId }),
      updated_at: now,
    });
    if (fields.organizationIds !== undefined) await setTemplateOrganizations(trx, actor.scope, id, fields.organizationIds);
    await appendAudit(trx, actor.scope, {
      actor: auditActor(actor),
      action: 'template.updated',
      entityType: 'template',
      entityId: id,
      before: beforeSummary,
      after: await templateSummary(trx, actor, updated!),
      at: now,
    });
    return updated!;
  });
}

// ── Drafts ──────────────────────────────────────────────────────────────────

/**
 * Starts a new DRAFT of a template as a copy of its latest version. A
 * template has at most one draft: asking again while one exists is a
 * CONFLICT naming it (`details.draftVersionId`), so two authors never edit
 * two drafts believing each is the only one.
 * @throws AppError FORBIDDEN, NOT_FOUND, CONFLICT
 */
export async function createDraft(deps: Deps, actor: UserActor, templateId: number): Promise<TemplateVersionRow> {
  requirePermission(actor.roles, 'author');
  await getVisibleTemplate(deps.db.kysely, actor, templateId);
  const now = deps.clock.now().toISOString();
  try {
    return await withTransaction(deps.db, { lockClient: actor.scope.clientId }, async (trx) => {
      const existing = await findVersionInState(trx, actor.scope, templateId, 'DRAFT');
      if (existing) throw draftExists(existing.id);
      const latest = await findLatestVersion(trx, actor.scope, templateId);
      const copied = latest ? { json: latest.content, hash: latest.content_hash } : serializeContent(EMPTY_CONTENT);
      const draft = await insertDraft(trx, actor, templateId, (latest?.number ?? 0) + 1, copied, now, {
        copiedFromVersionId: latest?.id ?? null,
      });
      // its translations come along: a unit whose source text the draft changes becomes stale (domain/translations.ts)
      if (latest) await copyVersionTranslations(trx, actor.scope, latest.id, draft.id);
      return draft;
    });
  } catch (error) {
    // the partial unique index is the last word if two requests race
    if (isUniqueViolation(error)) throw draftExists(null);
    throw error;
  }
}

/** A new DRAFT version by the caller, and its audit entry. */
async function insertDraft(
  trx: Kysely<DB>,
  actor: Author,
  templateId: number,
  number: number,
  content: { json: string; hash: string },
  now: string,
  note: Record<string, unknown>,
): Promise<TemplateVersionRow> {
  const version = await insertVersion(trx, actor.scope, {
    template_id: templateId,
    number,
    state: 'DRAFT',
    content: content.json,
    content_hash: content.hash,
    created_by: actor.userId,
    updated_by: actor.userId,
    created_at: now,
    updated_at: now,
  });
  await appendAudit(trx, actor.scope, {
    actor: auditActor(actor),
    action: 'version.created',
    entityType: 'template_version',
    entityId: version.id,
    after: { ...versionSummary(version), ...note },
    at: now,
  });
  return version;
}

const draftExists = (draftVersionId: number | null) => conflict('The template already has a draft', { draftVersionId });

/**
 * Replaces a draft's content. Steps and sections keep the ids sent; those
 * sent without an id are new. With `expectedRevision` (the revision the
 * author's copy was read at) the edit applies only while the draft is still
 * at it: otherwise a CONFLICT naming the draft's current revision and who
 * last wrote it, so two authors editing one draft never silently overwrite
 * each other. Without it, the last edit wins (as before revisions existed).
 * @throws AppError FORBIDDEN, NOT_FOUND, VERSION_NOT_EDITABLE, VALIDATION_ERROR, CONFLICT
 */
export async function updateDraft(
  deps: Deps,
  actor: UserActor,
  versionId: number,
  input: unknown,
  expectedRevision?: number | null,
): Promise<TemplateVersionRow> {
  if (expectedRevision != null && (!Number.isSafeInteger(expectedRevision) || expectedRevision < 1)) {
    throw fieldError('expectedRevision', 'must be a revision the draft was read at (a positive integer)');
  }
  requirePermission(actor.roles, 'author');
  const current = await getVisibleVersion(deps.db.kysely, actor, versionId);
  assertVersionEditable(current.state);
  const content = parseContent(input, 'content');
  await assertFilesOfClient(deps.db.kysely, actor.scope, contentFileIds(content), 'content');
  await assertSensorsOfClient(deps.db.kysely, actor.scope, content, 'content');
  const { json, hash } = serializeContent(content);
  const now = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: actor.scope.clientId }, async (trx) => {
    const before = await findVersionById(trx, actor.scope, versionId);
    if (!before) throw notFound('Version');
    assertVersionEditable(before.state);
    if (expectedRevision != null && before.revision !== expectedRevision) throw draftMoved(before, expectedRevision);
    const updated = await updateVersionInState(
      trx,
      actor.scope,
      versionId,
      before.state,
      { content: json, content_hash: hash, updated_by: actor.userId, updated_at: now },
      expectedRevision ?? undefined,
    );
    if (!updated) {
      const moved = await findVersionById(trx, actor.scope, versionId);
      if (moved && expectedRevision != null) throw draftMoved(moved, expectedRevision);
      throw notFound('Version');
    }
    await appendAudit(trx, actor.scope, {
      actor: auditActor(actor),
      action: 'version.edited',
      entityType: 'template_version',
      entityId: versionId,
      before: versionSummary(before),
      after: versionSummary(updated),
      at: now,
    });
    return updated;
  });
}

/** The draft was written since the author read it: what they need to reload it and see who did. */
const draftMoved = (current: TemplateVersionRow, expectedRevision: number) =>
  conflict(`The draft changed since you opened it: expected revision ${expectedRevision}, it is at ${current.revision}`, {
    expectedRevision,
    currentRevision: current.revision,
    state: current.state,
    updatedBy: current.updated_by,
    updatedAt: current.updated_at,
  });

// ── Transitions ─────────────────────────────────────────────────────────────

const STAMP: Record<VersionAction, 'submitted_at' | 'approved_at' | 'published_at' | 'retired_at' | null> = {
  submit: 'submitted_at',
  reject: null,
  approve: 'approved_at',
  publish: 'published_at',
  retire: 'retired_at',
};

/**
 * The meaning each signed action records. Approve and publish are always signed; a rejection is signed when the
 * rejecting reviewer gives their password or code (the floor app always does): the signature then says who
 * refused which document (its hash) and why — a rejection without one stays a plain state change, as it was.
 */
const MEANING: Partial<Record<VersionAction, SignatureMeaning>> = { approve: 'APPROVED', publish: 'PUBLISHED', reject: 'REJECTED' };

/** Whether the action is signed this time: always, except a rejection without a password or code. */
function signs(action: VersionAction, signature: SignatureInput | undefined): boolean {
  if (!MEANING[action]) return false;
  return action !== 'reject' || Boolean(signature?.password || signature?.code);
}

export interface SignatureInput {
  password?: string | null;
  code?: string | null;
}

/** The checks that depend on the person, after the transition was found legal. */
async function assertPersonMay(db: Kysely<DB>, actor: UserActor, action: VersionAction, version: TemplateVersionRow): Promise<void> {
  if (action === 'approve') assertSeparationOfDuties(version, actor.userId, await readSecuritySettings(db, actor.scope));
}

/**
 * Applies one transition of VERSION_TRANSITIONS to a version. The rules are
 * checked before anything else (role, state, separation of duties), then the
 * signature when the action is one (approve, publish), then again inside the
 * transaction, which also retires the previously published version on
 * publish, records the signature and appends the audit entries.
 */
async function applyTransition(
  deps: Deps,
  actor: UserActor,
  versionId: number,
  action: VersionAction,
  extra: { reason?: string; signature?: SignatureInput; meta?: RequestMeta },
): Promise<TemplateVersionRow> {
  const db = deps.db.kysely;
  const current = await getVisibleVersion(db, actor, versionId);
  transition(VERSION_TRANSITIONS, current.state, action, actor.roles);
  await assertPersonMay(db, actor, action, current);
  const meaning = signs(action, extra.signature) ? MEANING[action] : undefined;
  const signer = meaning ? await verifySignature(deps, actor, extra.signature ?? {}, extra.meta ?? { ip: null, userAgent: null }) : null;
  const now = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: actor.scope.clientId }, async (trx, afterCommit) => {
    const tx: EventTx = { deps, trx, afterCommit };
    const before = await findVersionById(trx, actor.scope, versionId);
    if (!before) throw notFound('Version');
    const to: VersionState = transition(VERSION_TRANSITIONS, before.state, action, actor.roles);
    await assertPersonMay(trx, actor, action, before);
    if (action === 'publish') {
      const previous = await findVersionInState(trx, actor.scope, before.template_id, 'PUBLISHED');
      if (previous) {
        await retireInTransaction(tx, actor, previous, now, { supersededBy: before.id });
        // docs/qualifications.md: changed steps are read (and acknowledged) by those qualified on the template
        await markRetrainingDue(trx, actor.scope, previous, before, auditActor(actor), now);
      }
    }
    const stamp = STAMP[action];
    const updated = await updateVersionInState(trx, actor.scope, versionId, before.state, {
      state: to,
      updated_at: now,
      ...(stamp && { [stamp]: now }),
      ...(action === 'reject' && { reject_reason: extra.reason ?? '' }),
      ...(action === 'submit' && { reject_reason: null }),
    });
    if (!updated) throw notFound('Version');
    if (meaning && signer) {
      await insertSignature(trx, actor.scope, {
        version_id: versionId,
        signer_id: actor.userId,
        signer_name: signer.name,
        signer_email: signer.email,
        meaning,
        method: signer.method,
        // the hash of the document as signed: the content is immutable from here on
        content_hash: updated.content_hash,
        signed_at: now,
      });
    }
    await appendAudit(trx, actor.scope, {
      actor: auditActor(actor),
      action: `version.${PAST[action]}`,
      entityType: 'template_version',
      entityId: versionId,
      before: versionSummary(before),
      after: {
        ...versionSummary(updated),
        ...(action === 'reject' && { reason: extra.reason }),
        ...(signer && { signature: { meaning, method: signer.method, contentHash: updated.content_hash } }),
      },
      at: now,
    });
    const notified = VERSION_NOTICES[action];
    const template = notified && (await findTemplateById(trx, actor.scope, updated.template_id));
    if (notified && template) await notify(tx, actor, { kind: notified, version: updated, template });
    await versionEvent(tx, actor, action, updated);
    return updated;
  });
}

/** template.version.<past tense>, seen on live streams only by users who may see the template. */
function versionEvent(tx: EventTx, actor: UserActor, action: VersionAction, version: TemplateVersionRow) {
  return emitEvent(tx, actor.scope, `template.version.${PAST[action]}`, presentVersionSummary(version), {
    templateId: version.template_id,
  });
}

/** The transitions that put work before someone (services/notifications.ts says whom). */
const VERSION_NOTICES: Partial<Record<VersionAction, 'version_submitted' | 'version_approved' | 'version_rejected'>> = {
  submit: 'version_submitted',
  approve: 'version_approved',
  reject: 'version_rejected',
};

const PAST: Record<VersionAction, 'submitted' | 'rejected' | 'approved' | 'published' | 'retired'> = {
  submit: 'submitted',
  reject: 'rejected',
  approve: 'approved',
  publish: 'published',
  retire: 'retired',
};

async function retireInTransaction(tx: EventTx, actor: UserActor, version: TemplateVersionRow, now: string, why: Record<string, unknown>) {
  const { trx } = tx;
  // the retirement a publish causes follows the table too (PUBLISHED → RETIRED), with the publisher's roles
  const to = transition(VERSION_TRANSITIONS, version.state, 'retire', actor.roles);
  const retired = await updateVersionInState(trx, actor.scope, version.id, version.state, { state: to, retired_at: now, updated_at: now });
  await appendAudit(trx, actor.scope, {
    actor: auditActor(actor),
    action: 'version.retired',
    entityType: 'template_version',
    entityId: version.id,
    before: versionSummary(version),
    after: { ...versionSummary(retired!), ...why },
    at: now,
  });
  await versionEvent(tx, actor, 'retire', retired!);
}

/**
 * An electronic signature re-authenticates the signer: their password, or a
 * current TOTP code (or recovery code) when they have two-factor on. A wrong
 * one counts toward the sign-in lockout of their account exactly like a
 * failed sign-in, and a locked account cannot sign.
 * @throws AppError VALIDATION_ERROR (neither given), INVALID_CREDENTIALS, TOO_MANY_ATTEMPTS
 */
export async function verifySignature(
  deps: Deps,
  actor: UserActor,
  input: SignatureInput,
  meta: RequestMeta,
): Promise<{ name: string; email: string; method: string }> {
  if (!input.password && !input.code)
    throw fieldError('password', 'an electronic signature needs your password or a current two-factor code');
  const user = await getUserById(deps.db.kysely, actor.scope, actor.userId);
  await assertNotLocked(deps, user.email, meta);
  let method: string | null = null;
  if (input.code) {
    try {
      method = await verifySecondFactor(deps, actor.scope, user.id, input.code);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'TWO_FACTOR_INVALID') throw error;
    }
  } else if (user.password_hash && (await deps.passwords.verify(input.password!, user.password_hash))) {
    method = 'password';
  }
  if (!method) {
    await recordFailedSignIn(
      deps,
      signatureAccount(user.email),
      {
        reason: `wrong ${input.code ? 'second factor' : 'password'} on an electronic signature`,
        clientId: actor.clientId,
        userId: user.id,
      },
      meta,
    );
    throw invalidSignature();
  }
  const name = `${user.first_name} ${user.last_name}`.trim() || user.email;
  return { name, email: user.email, method };
}

/** DRAFT → IN_REVIEW. @throws AppError FORBIDDEN, NOT_FOUND, INVALID_TRANSITION */
export async function submitVersion(deps: Deps, actor: UserActor, versionId: number): Promise<TemplateVersionRow> {
  return applyTransition(deps, actor, versionId, 'submit', {});
}

/**
 * IN_REVIEW → DRAFT with a reason; signed (meaning REJECTED) when `signature` holds a password or code.
 * @throws AppError FORBIDDEN, NOT_FOUND, INVALID_TRANSITION, VALIDATION_ERROR, INVALID_CREDENTIALS, TOO_MANY_ATTEMPTS
 */
export async function rejectVersion(
  deps: Deps,
  actor: UserActor,
  versionId: number,
  reason: string,
  signature: SignatureInput = {},
  meta?: RequestMeta,
): Promise<TemplateVersionRow> {
  const trimmed = reason.trim();
  if (trimmed.length === 0 || trimmed.length > 2000) throw fieldError('reason', 'give a reason of 1 to 2000 characters');
  return applyTransition(deps, actor, versionId, 'reject', { reason: trimmed, signature, meta });
}

/**
 * IN_REVIEW → APPROVED, signed (meaning APPROVED). Separation of duties: not
 * by the version's creator or last editor unless the client allows it.
 * @throws AppError FORBIDDEN, NOT_FOUND, INVALID_TRANSITION, SEPARATION_OF_DUTIES, INVALID_CREDENTIALS, TOO_MANY_ATTEMPTS, VALIDATION_ERROR
 */
export async function approveVersion(deps: Deps, actor: UserActor, versionId: number, signature: SignatureInput, meta: RequestMeta) {
  return applyTransition(deps, actor, versionId, 'approve', { signature, meta });
}

/**
 * APPROVED → PUBLISHED, signed (meaning PUBLISHED); the template's previously
 * published version is retired in the same transaction.
 * @throws AppError FORBIDDEN, NOT_FOUND, INVALID_TRANSITION, INVALID_CREDENTIALS, TOO_MANY_ATTEMPTS, VALIDATION_ERROR
 */
export async function publishVersion(deps: Deps, actor: UserActor, versionId: number, signature: SignatureInput, meta: RequestMeta) {
  return applyTransition(deps, actor, versionId, 'publish', { signature, meta });
}

/** PUBLISHED → RETIRED. @throws AppError FORBIDDEN, NOT_FOUND, INVALID_TRANSITION */
export async function retireVersion(deps: Deps, actor: UserActor, versionId: number): Promise<TemplateVersionRow> {
  return applyTransition(deps, actor, versionId, 'retire', {});
}

// ── Diff ────────────────────────────────────────────────────────────────────

export interface VersionDiffResult extends ContentDiff {
  /** open jobs pinned to the older of the two versions */
  jobsOnOlderVersion: JobRow[];
}

/**
 * The semantic diff from one version of a template to another (either order:
 * the older one is the one with the lower number).
 * @throws AppError NOT_FOUND, VALIDATION_ERROR (versions of different templates)
 */
export async function diffVersions(deps: Deps, actor: UserActor, fromVersionId: number, toVersionId: number): Promise<VersionDiffResult> {
  const db = deps.db.kysely;
  const from = await getVisibleVersion(db, actor, fromVersionId);
  const to = await getVisibleVersion(db, actor, toVersionId);
  if (from.template_id !== to.template_id) throw fieldError('toVersionId', 'both versions must belong to the same template');
  const older = from.number <= to.number ? from : to;
  const diff = diffContents(parsed(from), parsed(to));
  return { ...diff, jobsOnOlderVersion: await listOpenJobsOnVersion(db, actor.scope, older.id) };
}

const parsed = (v: TemplateVersionRow): Content => JSON.parse(v.content) as Content;
