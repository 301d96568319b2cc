import type { Insertable, Kysely, Updateable } from 'kysely';
import type {
  DB,
  JobRow,
  TemplateVersionRow,
  TemplateVersionsTable,
  VersionSignatureRow,
  VersionSignaturesTable,
  VersionState,
} from '#db/schema';
import { inTenant, selectByIds, type TenantScope } from '#db/tenant';
import { columnSet, type ColumnSet } from '#db/columns';

/** Template versions, their signatures, and the jobs pinned to them (for diffs). */

export async function insertVersion(
  db: Kysely<DB>,
  scope: TenantScope,
  row: Omit<Insertable<TemplateVersionsTable>, 'client_id'>,
): Promise<TemplateVersionRow> {
  return db
    .insertInto('template_versions')
    .values({ ...row, client_id: scope.clientId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findVersionById(db: Kysely<DB>, scope: TenantScope, id: number): Promise<TemplateVersionRow | undefined> {
  return inTenant(db, scope).selectFrom('template_versions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Every column of a version but its document (a few KB each): what a page of jobs showing their versions reads. */
export const VERSION_SUMMARY_COLUMNS = [
  'id',
  'client_id',
  'template_id',
  'number',
  'state',
  'content_hash',
  'created_by',
  'updated_by',
  'revision',
  'reject_reason',
  'created_at',
  'updated_at',
  'submitted_at',
  'approved_at',
  'published_at',
  'retired_at',
] as const satisfies readonly Exclude<keyof TemplateVersionRow, 'content'>[];
export type VersionSummaryRow = Omit<TemplateVersionRow, 'content'>;
export type VersionSummaryColumn = (typeof VERSION_SUMMARY_COLUMNS)[number];
const VERSION_SUMMARY = columnSet(VERSION_SUMMARY_COLUMNS);

/** Versions among `ids` without their documents, with only `columns` (GraphQL: the fields a query selects), the others absent. */
export async function loadVersionSummariesByIds(
  db: Kysely<DB>,
  scope: TenantScope,
  ids: readonly number[],
  columns: ColumnSet<VersionSummaryColumn> = VERSION_SUMMARY,
): Promise<VersionSummaryRow[]> {
  return selectByIds(db, scope, `versionSummaries:${columns.key}`, ids, (batch) =>
    inTenant(db, scope).selectFrom('template_versions').select(columns.columns).where('id', 'in', batch),
  );
}

/** The documents of versions (canonical JSON), for what a summary left out. */
export async function loadVersionContents(
  db: Kysely<DB>,
  scope: TenantScope,
  ids: readonly number[],
): Promise<{ id: number; content: string }[]> {
  if (ids.length === 0) return [];
  return inTenant(db, scope)
    .selectFrom('template_versions')
    .select(['id', 'content'])
    .where('id', 'in', [...ids])
    .execute();
}

/** Every version of the templates, oldest first. */
export async function loadVersionsByTemplateIds(
  db: Kysely<DB>,
  scope: TenantScope,
  templateIds: readonly number[],
): Promise<TemplateVersionRow[]> {
  if (templateIds.length === 0) return [];
  return inTenant(db, scope)
    .selectFrom('template_versions')
    .selectAll()
    .where('template_id', 'in', [...templateIds])
    .orderBy('template_id')
    .orderBy('number')
    .execute();
}

/** The highest-numbered version of a template. */
export async function findLatestVersion(db: Kysely<DB>, scope: TenantScope, templateId: number): Promise<TemplateVersionRow | undefined> {
  return inTenant(db, scope)
    .selectFrom('template_versions')
    .selectAll()
    .where('template_id', '=', templateId)
    .orderBy('number', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function findVersionInState(
  db: Kysely<DB>,
  scope: TenantScope,
  templateId: number,
  state: VersionState,
): Promise<TemplateVersionRow | undefined> {
  return inTenant(db, scope)
    .selectFrom('template_versions')
    .selectAll()
    .where('template_id', '=', templateId)
    .where('state', '=', state)
    .executeTakeFirst();
}

/**
 * Updates a version only while it is still in `expectedState` (the state the
 * caller's rule was checked against) and, when given, still at
 * `expectedRevision`: undefined when it moved meanwhile. Every write
 * increments the version's revision, in the same statement.
 */
export async function updateVersionInState(
  db: Kysely<DB>,
  scope: TenantScope,
  id: number,
  expectedState: VersionState,
  changes: Omit<Updateable<TemplateVersionsTable>, 'id' | 'client_id' | 'template_id' | 'revision'>,
  expectedRevision?: number,
): Promise<TemplateVersionRow | undefined> {
  let query = inTenant(db, scope)
    .updateTable('template_versions')
    .set((eb) => ({ ...changes, revision: eb('revision', '+', 1) }))
    .where('id', '=', id)
    .where('state', '=', expectedState);
  if (expectedRevision !== undefined) query = query.where('revision', '=', expectedRevision);
  return query.returningAll().executeTakeFirst();
}

export async function insertSignature(
  db: Kysely<DB>,
  scope: TenantScope,
  row: Omit<Insertable<VersionSignaturesTable>, 'client_id'>,
): Promise<VersionSignatureRow> {
  return db
    .insertInto('version_signatures')
    .values({ ...row, client_id: scope.clientId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function loadSignaturesByVersionIds(
  db: Kysely<DB>,
  scope: TenantScope,
  versionIds: readonly number[],
): Promise<VersionSignatureRow[]> {
  if (versionIds.length === 0) return [];
  return inTenant(db, scope)
    .selectFrom('version_signatures')
    .selectAll()
    .where('version_id', 'in', [...versionIds])
    .orderBy('id')
    .execute();
}

/** Jobs still running (OPEN, IN_PROGRESS, PAUSED) that are pinned to a version. */
export async function listOpenJobsOnVersion(db: Kysely<DB>, scope: TenantScope, versionId: number): Promise<JobRow[]> {
  return inTenant(db, scope)
    .selectFrom('jobs')
    .selectAll()
    .where('version_id', '=', versionId)
    .where('state', 'in', ['OPEN', 'IN_PROGRESS', 'PAUSED'])
    .orderBy('id')
    .execute();
}
