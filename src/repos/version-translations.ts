import type { Insertable, Kysely } from 'kysely';
import type { DB, VersionTranslationRow, VersionTranslationsTable } from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';

/** Translations of template versions (migration 0036), one row per (version, language). */

export async function loadTranslationsOfVersions(
  db: Kysely<DB>,
  scope: TenantScope,
  versionIds: readonly number[],
): Promise<VersionTranslationRow[]> {
  if (versionIds.length === 0) return [];
  return inTenant(db, scope)
    .selectFrom('version_translations')
    .selectAll()
    .where('version_id', 'in', [...versionIds])
    .orderBy('version_id')
    .orderBy('language')
    .execute();
}

export async function findVersionTranslation(
  db: Kysely<DB>,
  scope: TenantScope,
  versionId: number,
  language: string,
): Promise<VersionTranslationRow | undefined> {
  return inTenant(db, scope)
    .selectFrom('version_translations')
    .selectAll()
    .where('version_id', '=', versionId)
    .where('language', '=', language)
    .executeTakeFirst();
}

/** The approved translations of a version among `languages` (an operator's fallback chain). */
export async function findApprovedTranslations(
  db: Kysely<DB>,
  scope: TenantScope,
  versionId: number,
  languages: readonly string[],
): Promise<VersionTranslationRow[]> {
  if (languages.length === 0) return [];
  return inTenant(db, scope)
    .selectFrom('version_translations')
    .selectAll()
    .where('version_id', '=', versionId)
    .where('language', 'in', [...languages])
    .whereRef('approved_hash', '=', 'units_hash')
    .execute();
}

/** Inserts or replaces the units of (version, language); a change of the units drops nothing else (the approval is checked against units_hash). */
export async function upsertVersionTranslation(
  db: Kysely<DB>,
  scope: TenantScope,
  row: Pick<Insertable<VersionTranslationsTable>, 'version_id' | 'language' | 'units' | 'units_hash' | 'updated_by' | 'updated_at'>,
): Promise<VersionTranslationRow> {
  return db
    .insertInto('version_translations')
    .values({ ...row, client_id: scope.clientId })
    .onConflict((oc) =>
      oc
        .columns(['client_id', 'version_id', 'language'])
        .doUpdateSet({ units: row.units, units_hash: row.units_hash, updated_by: row.updated_by, updated_at: row.updated_at }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Records an approval of the units as they are at `unitsHash`: undefined when they changed meanwhile. */
export async function approveVersionTranslation(
  db: Kysely<DB>,
  scope: TenantScope,
  id: number,
  unitsHash: string,
  approval: { approved_by: number; approver_name: string; approver_email: string; approval_method: string; approved_at: string },
): Promise<VersionTranslationRow | undefined> {
  return inTenant(db, scope)
    .updateTable('version_translations')
    .set({ ...approval, approved_hash: unitsHash })
    .where('id', '=', id)
    .where('units_hash', '=', unitsHash)
    .returningAll()
    .executeTakeFirst();
}

/**
 * A new draft starts with the translations of the version it was copied from,
 * approvals included: an approval signs (unit, source hash, target) triples,
 * and a unit whose source the draft changes is stale, so never served.
 */
export async function copyVersionTranslations(
  db: Kysely<DB>,
  scope: TenantScope,
  fromVersionId: number,
  toVersionId: number,
): Promise<void> {
  const rows = await loadTranslationsOfVersions(db, scope, [fromVersionId]);
  for (const { id: _id, client_id: _client, version_id: _version, ...row } of rows) {
    await db
      .insertInto('version_translations')
      .values({ ...row, client_id: scope.clientId, version_id: toVersionId })
      .execute();
  }
}
