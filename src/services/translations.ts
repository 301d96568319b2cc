import type { Kysely } from 'kysely';
import type { Deps } from '#deps';
import type { DB, TemplateVersionRow, VersionTranslationRow } from '#db/schema';
import type { TenantScope } from '#db/tenant';
import { withTransaction } from '#db/transaction';
import { AppError, badRequest, conflict, fieldError, notFound, validationFailed } from '#errors';
import { deserializeContent, type Content } from '#domain/content';
import {
  localizeContent,
  serializeUnits,
  sourceUnits,
  textHash,
  unitState,
  type LocalizedContent,
  type SourceUnit,
  type TranslationUnits,
  type UnitState,
} from '#domain/translations';
import { XliffError, type XliffUnit } from '#lib/xliff';
import { assertSeparationOfDuties } from '#policies/versions';
import { appendAudit } from '#repos/audit';
import {
  approveVersionTranslation,
  findApprovedTranslations,
  findVersionTranslation,
  loadTranslationsOfVersions,
  upsertVersionTranslation,
} from '#repos/version-translations';
import type { RequestMeta, UserActor } from './actor';
import { acceptedLanguages, canonicalLanguage, DEFAULT_LANGUAGE, fallbackChain } from './i18n';
import { readSecuritySettings } from './security-settings';
import { getVersion, verifySignature, type SignatureInput } from './templates';
import { requirePermission } from '#policies/permissions';

/**
 * Translated instructions (docs/translated-instructions.md, decision 0009):
 * a version's translations live beside it, one per language, each with its
 * own approval (an e-signature over the hash of its units). Translators get
 * and bring XLIFF 2.0; operators read the content in the best approved
 * language they ask for, text by text, with the source wherever a text has
 * no current translation.
 */

/** What the source texts are written in, as the XLIFF file says (srcLang): the appliance's default language. */
export const SOURCE_LANGUAGE = DEFAULT_LANGUAGE;
/**
 * A PUT above this is 413 PAYLOAD_TOO_LARGE. A version of 200 steps with 10 KB bodies makes a 4.6 MiB file; the
 * parse grows faster than the file (measured: 1.2 MiB 0.13 s, 4.6 MiB 1.9 s, 25 MiB 10 s on a busy 2-core machine).
 * It runs in a worker thread (deps.xliff), so the event loop keeps answering; the limit bounds the thread's time
 * and memory, and how long the next import waits behind one.
 */
export const MAX_XLIFF_BYTES = 8 * 1024 * 1024;

const fileIdOf = (versionId: number) => `version-${versionId}`;
const unitsOf = (row: VersionTranslationRow | undefined): TranslationUnits => (row ? (JSON.parse(row.units) as TranslationUnits) : {});
const contentOf = (version: TemplateVersionRow): Content => deserializeContent(version.content);

/** The version `versionId` of template `templateId` as the caller may see it. @throws AppError NOT_FOUND */
async function versionOfTemplate(deps: Deps, actor: UserActor, templateId: number, versionId: number): Promise<TemplateVersionRow> {
  const version = await getVersion(deps, actor, versionId);
  if (version.template_id !== templateId) throw notFound('Version');
  return version;
}

/** A language tag from a path or argument, canonical. @throws AppError VALIDATION_ERROR */
export function translationLanguage(tag: string, field = 'lang'): string {
  const canonical = canonicalLanguage(tag);
  if (!canonical) throw fieldError(field, 'not a well-formed BCP 47 language tag (e.g. de, pt-BR, zh-Hant)');
  return canonical;
}

// ── XLIFF ───────────────────────────────────────────────────────────────────

/**
 * The version's texts as an XLIFF 2.0 file for translators into `language`:
 * every unit with its source; a target where the translation has one. A
 * current one is `translated` (`final` once approved); a stale one keeps its
 * old target, marked `initial` with the note that its source changed.
 * @throws AppError NOT_FOUND (template, version, or another client's)
 */
export async function exportTranslation(
  deps: Deps,
  actor: UserActor,
  templateId: number,
  versionId: number,
  language: string,
): Promise<{ fileName: string; xml: string }> {
  const version = await versionOfTemplate(deps, actor, templateId, versionId);
  const row = await findVersionTranslation(deps.db.kysely, actor.scope, version.id, language);
  const units = unitsOf(row);
  const approved = row !== undefined && row.approved_hash === row.units_hash;
  const xml = await deps.xliff.write({
    sourceLanguage: SOURCE_LANGUAGE,
    targetLanguage: language,
    fileId: fileIdOf(version.id),
    units: sourceUnits(contentOf(version)).map((source): XliffUnit => {
      const state = unitState(source, units);
      const unit: XliffUnit = { id: source.id, source: source.text, note: source.kind };
      if (state === 'translated') return { ...unit, target: units[source.id].target, state: approved ? 'final' : 'translated' };
      if (state === 'stale')
        return {
          ...unit,
          target: units[source.id].target,
          state: 'initial',
          note: `${source.kind}; stale: the source text changed since this was translated`,
        };
      return { ...unit, state: 'initial' };
    }),
  });
  return { fileName: `template-${templateId}-v${version.number}.${language}.xlf`, xml };
}

export interface ImportResult {
  translation: TranslationView;
  /** units of the file whose translation changed (a new target, or one confirmed for a changed source) */
  changed: number;
  /** units of the file that left the translation as it was */
  unchanged: number;
}

/**
 * Takes a translator's XLIFF 2.0 file for (version, language): each unit with
 * a target becomes the translation of the source text the file carries (a
 * file made from an older text is thus stale at once). A unit marked
 * `initial` whose target is the one stored is left alone, so an untouched
 * stale unit stays stale. Any change of the units withdraws the approval.
 * Allowed in every state but RETIRED: a translation has its own approval, so
 * a published version can be translated without a new version.
 * @throws AppError FORBIDDEN, NOT_FOUND, BAD_REQUEST (not XML, not XLIFF 2.0), VALIDATION_ERROR (another version or
 *   language, unknown unit ids, a unit twice), VERSION_NOT_EDITABLE (a retired version)
 */
export async function importTranslation(
  deps: Deps,
  actor: UserActor,
  templateId: number,
  versionId: number,
  language: string,
  xml: string,
): Promise<ImportResult> {
  requirePermission(actor.roles, 'author');
  const version = await versionOfTemplate(deps, actor, templateId, versionId);
  if (version.state === 'RETIRED')
    throw new AppError('VERSION_NOT_EDITABLE', 'A retired version is not translated any more', { state: version.state });
  let file;
  try {
    file = await deps.xliff.read(xml);
  } catch (error) {
    if (error instanceof XliffError) throw badRequest(`Not an XLIFF 2.0 file: ${error.message}`);
    throw error;
  }
  const problems: { path: string; message: string }[] = [];
  if (canonicalLanguage(file.targetLanguage ?? '') !== language)
    problems.push({ path: 'body.trgLang', message: `the file translates into "${file.targetLanguage ?? ''}", not ${language}` });
  if (file.fileId !== fileIdOf(version.id))
    problems.push({
      path: 'body.file.id',
      message: `the file is for "${file.fileId}", not ${fileIdOf(version.id)}: export this version's file`,
    });
  const known = new Set(sourceUnits(contentOf(version)).map((u) => u.id));
  const seen = new Set<string>();
  for (const unit of file.units) {
    if (!known.has(unit.id)) problems.push({ path: `body.unit.${unit.id}`, message: 'no such text in this version' });
    else if (seen.has(unit.id)) problems.push({ path: `body.unit.${unit.id}`, message: 'the unit is in the file twice' });
    seen.add(unit.id);
  }
  if (problems.length > 0) throw validationFailed({ fields: problems.slice(0, 100) }, 'The XLIFF file does not fit this version');

  const now = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: actor.scope.clientId }, async (trx) => {
    const before = await findVersionTranslation(trx, actor.scope, version.id, language);
    const units = unitsOf(before);
    let changed = 0;
    for (const unit of file.units) {
      if (unit.target === undefined) continue;
      const stored = units[unit.id];
      if ((unit.state ?? 'initial') === 'initial' && stored?.target === unit.target) continue;
      const next = { source: textHash(unit.source), target: unit.target };
      if (stored?.source === next.source && stored.target === next.target) continue;
      units[unit.id] = next;
      changed++;
    }
    const { json, hash } = serializeUnits(units);
    const row = await upsertVersionTranslation(trx, actor.scope, {
      version_id: version.id,
      language,
      units: json,
      units_hash: hash,
      updated_by: actor.userId,
      updated_at: now,
    });
    await appendAudit(trx, actor.scope, {
      actor: { userId: actor.userId, email: actor.email },
      action: 'version.translation_imported',
      entityType: 'template_version',
      entityId: version.id,
      before: before ? { language, unitsHash: before.units_hash, approved: before.approved_hash === before.units_hash } : undefined,
      after: { language, unitsHash: hash, changed },
      at: now,
    });
    return { translation: viewOf(row, contentOf(version)), changed, unchanged: file.units.length - changed };
  });
}

// ── Approval ────────────────────────────────────────────────────────────────

/**
 * Approves a version's translation as it is, signed like a version's approval
 * (password or two-factor code; the same roles; not by whoever last imported
 * it unless the client allows self-approval). Operators are served approved
 * translations only.
 * @throws AppError FORBIDDEN, NOT_FOUND, SEPARATION_OF_DUTIES, INVALID_CREDENTIALS, TOO_MANY_ATTEMPTS, VALIDATION_ERROR, CONFLICT
 */
export async function approveTranslation(
  deps: Deps,
  actor: UserActor,
  versionId: number,
  tag: string,
  signature: SignatureInput,
  meta: RequestMeta,
): Promise<TranslationView> {
  requirePermission(actor.roles, 'approveVersion');
  const language = translationLanguage(tag, 'input.language');
  const version = await getVersion(deps, actor, versionId);
  const row = await findVersionTranslation(deps.db.kysely, actor.scope, version.id, language);
  if (!row) throw notFound('Translation');
  const settings = await readSecuritySettings(deps.db.kysely, actor.scope);
  assertSeparationOfDuties({ created_by: row.updated_by, updated_by: row.updated_by }, actor.userId, settings);
  const signer = await verifySignature(deps, actor, signature, meta);
  const now = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: actor.scope.clientId }, async (trx) => {
    const approved = await approveVersionTranslation(trx, actor.scope, row.id, row.units_hash, {
      approved_by: actor.userId,
      approver_name: signer.name,
      approver_email: signer.email,
      approval_method: signer.method,
      approved_at: now,
    });
    if (!approved) throw conflict('The translation changed since you read it: read it again before approving', { language });
    await appendAudit(trx, actor.scope, {
      actor: { userId: actor.userId, email: actor.email },
      action: 'version.translation_approved',
      entityType: 'template_version',
      entityId: version.id,
      after: { language, unitsHash: approved.units_hash, signature: { method: signer.method } },
      at: now,
    });
    return viewOf(approved, contentOf(version));
  });
}

// ── Reading ─────────────────────────────────────────────────────────────────

export interface TranslationUnitView {
  unitId: string;
  kind: SourceUnit['kind'];
  source: string;
  target: string | null;
  state: UnitState;
}

export interface TranslationView {
  versionId: number;
  language: string;
  approved: boolean;
  approvedBy: number | null;
  approverName: string | null;
  approvedAt: string | null;
  unitsHash: string;
  updatedBy: number;
  updatedAt: string;
  counts: Record<UnitState, number>;
  units: TranslationUnitView[];
}

function viewOf(row: VersionTranslationRow, content: Content): TranslationView {
  const units = unitsOf(row);
  const views = sourceUnits(content).map((source): TranslationUnitView => {
    const state = unitState(source, units);
    return { unitId: source.id, kind: source.kind, source: source.text, target: units[source.id]?.target ?? null, state };
  });
  const approved = row.approved_hash === row.units_hash;
  return {
    versionId: row.version_id,
    language: row.language,
    approved,
    approvedBy: approved ? row.approved_by : null,
    approverName: approved ? row.approver_name : null,
    approvedAt: approved ? row.approved_at : null,
    unitsHash: row.units_hash,
    updatedBy: row.updated_by,
    updatedAt: row.updated_at,
    counts: {
      translated: views.filter((v) => v.state === 'translated').length,
      stale: views.filter((v) => v.state === 'stale').length,
      missing: views.filter((v) => v.state === 'missing').length,
    },
    units: views,
  };
}

/** Every translation of the versions (GraphQL's TemplateVersion.translations), by version id. */
export async function translationsOfVersions(
  db: Kysely<DB>,
  scope: TenantScope,
  versions: readonly { id: number; content: Content }[],
): Promise<Map<number, TranslationView[]>> {
  const rows = await loadTranslationsOfVersions(
    db,
    scope,
    versions.map((v) => v.id),
  );
  const byId = new Map(versions.map((v) => [v.id, v.content]));
  const out = new Map<number, TranslationView[]>(versions.map((v) => [v.id, []]));
  for (const row of rows) out.get(row.version_id)?.push(viewOf(row, byId.get(row.version_id)!));
  return out;
}

/**
 * The languages an operator asked for, best first: an explicit tag (GraphQL's
 * argument, REST's ?lang=) else the Accept-Language header; each followed by
 * its less specific forms (de-AT → de). Empty: the source.
 */
export function operatorLanguages(explicit: string | null | undefined, acceptLanguage: string | null | undefined): string[] {
  const tags = explicit ? [translationLanguage(explicit, 'language')] : acceptedLanguages(acceptLanguage ?? '');
  // fallbackChain ends in the default language; here the end of every chain is the source itself
  const chain = tags.flatMap((tag) => fallbackChain(tag).filter((t) => t === tag || tag.startsWith(`${t}-`)));
  return [...new Set(chain)];
}

/**
 * The content of a version in the best approved language of `languages`,
 * with `language` the one used (null: the source as it is).
 */
export async function contentInLanguage(
  db: Kysely<DB>,
  scope: TenantScope,
  versionId: number,
  content: Content,
  languages: readonly string[],
): Promise<{ language: string | null; content: LocalizedContent }> {
  const rows = await findApprovedTranslations(db, scope, versionId, languages);
  for (const language of languages) {
    const row = rows.find((r) => r.language === language);
    if (row) return { language, content: localizeContent(content, unitsOf(row)) };
  }
  return { language: null, content };
}
