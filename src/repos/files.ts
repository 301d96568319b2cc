import { sql, type Kysely } from 'kysely';
import type { DB, FileRow, SystemFileRow } from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';
import { notFound } from '#errors';

/** Content just written to the store, ready to be referenced by a row. */
export interface StoredContent {
  sha256: string;
  size: number;
  contentType: string;
}

/** Bytes of distinct content a client stores (what its quota counts). */
export async function sumClientStorage(db: Kysely<DB>, scope: TenantScope): Promise<number> {
  const row = await inTenant(db, scope)
    .selectFrom('file_blobs')
    .select((eb) => eb.fn.sum<number | string | null>('size').as('total'))
    .executeTakeFirst();
  return Number(row?.total ?? 0);
}

/** Of these contents, the ones the client does not hold yet (what a commit adds to its usage). */
export async function listNewBlobs(db: Kysely<DB>, scope: TenantScope, contents: StoredContent[]): Promise<StoredContent[]> {
  if (contents.length === 0) return [];
  const held = await inTenant(db, scope)
    .selectFrom('file_blobs')
    .select('sha256')
    .where(
      'sha256',
      'in',
      contents.map((c) => c.sha256),
    )
    .execute();
  const known = new Set(held.map((r) => r.sha256));
  const fresh = new Map<string, StoredContent>();
  for (const content of contents) if (!known.has(content.sha256)) fresh.set(content.sha256, content);
  return [...fresh.values()];
}

/** One more row of this client references the content. */
async function addBlobRef(trx: Kysely<DB>, scope: TenantScope, content: StoredContent, nowIso: string): Promise<void> {
  await trx
    .insertInto('file_blobs')
    .values({ client_id: scope.clientId, sha256: content.sha256, size: content.size, ref_count: 1, created_at: nowIso })
    .onConflict((oc) => oc.columns(['client_id', 'sha256']).doUpdateSet({ ref_count: sql`file_blobs.ref_count + 1` }))
    .execute();
}

export async function insertFile(
  trx: Kysely<DB>,
  scope: TenantScope,
  values: { name: string; description: string; content: StoredContent; uploadedBy: number | null; nowIso: string },
): Promise<FileRow> {
  await addBlobRef(trx, scope, values.content, values.nowIso);
  return trx
    .insertInto('files')
    .values({
      client_id: scope.clientId,
      name: values.name,
      description: values.description,
      sha256: values.content.sha256,
      size: values.content.size,
      content_type: values.content.contentType,
      uploaded_by: values.uploadedBy,
      created_at: values.nowIso,
      updated_at: values.nowIso,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** New content under the same id: the current content becomes a revision (still referenced, so kept). */
export async function replaceFileContent(
  trx: Kysely<DB>,
  scope: TenantScope,
  file: FileRow,
  values: { name: string; content: StoredContent; uploadedBy: number | null; nowIso: string },
): Promise<FileRow> {
  await trx
    .insertInto('file_revisions')
    .values({
      client_id: scope.clientId,
      file_id: file.id,
      revision: file.revision,
      name: file.name,
      sha256: file.sha256,
      size: file.size,
      content_type: file.content_type,
      uploaded_by: file.uploaded_by,
      created_at: file.updated_at,
      replaced_at: values.nowIso,
      replaced_by: values.uploadedBy,
    })
    .execute();
  await addBlobRef(trx, scope, values.content, values.nowIso);
  return inTenant(trx, scope)
    .updateTable('files')
    .set({
      name: values.name,
      sha256: values.content.sha256,
      size: values.content.size,
      content_type: values.content.contentType,
      revision: file.revision + 1,
      uploaded_by: values.uploadedBy,
      updated_at: values.nowIso,
    })
    .where('id', '=', file.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** @throws AppError NOT_FOUND (also for another client's file) */
export async function getFileById(db: Kysely<DB>, scope: TenantScope, id: number): Promise<FileRow> {
  const row = await inTenant(db, scope).selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('File');
  return row;
}

export async function findFilesByIds(db: Kysely<DB>, scope: TenantScope, ids: readonly number[]): Promise<FileRow[]> {
  if (ids.length === 0) return [];
  return inTenant(db, scope)
    .selectFrom('files')
    .selectAll()
    .where('id', 'in', [...ids])
    .execute();
}

export async function insertSystemFile(
  trx: Kysely<DB>,
  values: { name: string; description: string; content: StoredContent; adminId: number | null; nowIso: string },
): Promise<SystemFileRow> {
  return trx
    .insertInto('system_files')
    .values({
      name: values.name,
      description: values.description,
      sha256: values.content.sha256,
      size: values.content.size,
      content_type: values.content.contentType,
      uploaded_by_admin: values.adminId,
      created_at: values.nowIso,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** @throws AppError NOT_FOUND */
export async function getSystemFileById(db: Kysely<DB>, id: number): Promise<SystemFileRow> {
  const row = await findSystemFileById(db, id);
  if (!row) throw notFound('File');
  return row;
}

export async function findSystemFileById(db: Kysely<DB>, id: number): Promise<SystemFileRow | undefined> {
  return db.selectFrom('system_files').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findStorageQuota(db: Kysely<DB>, scope: TenantScope): Promise<number | null> {
  const row = await inTenant(db, scope).selectFrom('client_settings').select('storage_quota_bytes').executeTakeFirst();
  return row?.storage_quota_bytes ?? null;
}

/** null: unlimited. The client has a settings row (ensureClientSettingsRow). */
export async function updateStorageQuota(db: Kysely<DB>, scope: TenantScope, bytes: number | null): Promise<void> {
  await inTenant(db, scope).updateTable('client_settings').set({ storage_quota_bytes: bytes }).execute();
}

/** Where a client's file is still used: what stands between it and deletion. */
export type FileReference =
  | { type: 'templateVersion'; templateId: number; versionId: number; state: string }
  | { type: 'stepRecord'; jobId: number; stepId: string }
  | { type: 'fault'; faultId: number }
  | { type: 'alignmentData'; alignmentDataId: number };

/** At most this many references are listed (the first few tell the user where to look). */
const REFERENCES_SHOWN = 20;

/**
 * Every row of the client that refers to the file: template versions (step
 * media and models, any state), recorded PHOTO/SIGNATURE values, fault photos
 * and alignment data. The JSON documents are narrowed in SQL by the id's digits
 * (portable LIKE) and then checked exactly, so a number that merely contains
 * the digits is not a reference. Runs inside the deleting transaction, so no
 * reference can appear between the check and the delete.
 */
export async function findFileReferences(
  db: Kysely<DB>,
  scope: TenantScope,
  fileId: number,
  refs: {
    contentFileIds: (contentJson: string) => number[];
    recordedFileIds: (contentJson: string, stepId: string, valuesJson: string) => number[];
  },
): Promise<FileReference[]> {
  const digits = `%${fileId}%`;
  const found: FileReference[] = [];
  const versions = await inTenant(db, scope)
    .selectFrom('template_versions')
    .select(['id', 'template_id', 'state', 'content'])
    .where('content', 'like', digits)
    .orderBy('id')
    .execute();
  for (const v of versions) {
    if (refs.contentFileIds(v.content).includes(fileId))
      found.push({ type: 'templateVersion', templateId: v.template_id, versionId: v.id, state: v.state });
  }
  const faults = await inTenant(db, scope)
    .selectFrom('faults')
    .select(['id', 'photos'])
    .where('photos', 'like', digits)
    .orderBy('id')
    .execute();
  for (const f of faults) if ((JSON.parse(f.photos) as number[]).includes(fileId)) found.push({ type: 'fault', faultId: f.id });
  const records = await inTenant(db, scope)
    .selectFrom('step_records')
    .innerJoin('jobs', (join) => join.onRef('jobs.client_id', '=', 'step_records.client_id').onRef('jobs.id', '=', 'step_records.job_id'))
    .innerJoin('template_versions', (join) =>
      join.onRef('template_versions.client_id', '=', 'jobs.client_id').onRef('template_versions.id', '=', 'jobs.version_id'),
    )
    .select(['step_records.job_id', 'step_records.step_id', 'step_records.values', 'template_versions.content'])
    .where('step_records.values', 'like', digits)
    .orderBy('step_records.id')
    .execute();
  for (const r of records) {
    if (refs.recordedFileIds(r.content, r.step_id, r.values).includes(fileId))
      found.push({ type: 'stepRecord', jobId: r.job_id, stepId: r.step_id });
  }
  const alignments = await inTenant(db, scope)
    .selectFrom('alignment_data')
    .select('id')
    .where('file_id', '=', fileId)
    .orderBy('id')
    .execute();
  for (const a of alignments) found.push({ type: 'alignmentData', alignmentDataId: a.id });
  return found.slice(0, REFERENCES_SHOWN);
}

/**
 * Deletes a file and its prior revisions; each content they held loses one
 * reference, and content the client no longer references at all (its blob row
 * gone, so its quota is freed at once) is queued as garbage for the store.
 * @returns the sha256 of the content queued
 */
export async function deleteFileRow(trx: Kysely<DB>, scope: TenantScope, file: FileRow, nowIso: string): Promise<string[]> {
  const revisions = await inTenant(trx, scope).selectFrom('file_revisions').select('sha256').where('file_id', '=', file.id).execute();
  await inTenant(trx, scope).deleteFrom('file_revisions').where('file_id', '=', file.id).execute();
  await inTenant(trx, scope).deleteFrom('files').where('id', '=', file.id).execute();
  const released = new Map<string, number>();
  for (const sha of [file.sha256, ...revisions.map((r) => r.sha256)]) released.set(sha, (released.get(sha) ?? 0) + 1);
  const freed: string[] = [];
  for (const [sha, count] of released) {
    await inTenant(trx, scope)
      .updateTable('file_blobs')
      .set({ ref_count: sql`ref_count - ${count}` })
      .where('sha256', '=', sha)
      .execute();
    const gone = await inTenant(trx, scope)
      .deleteFrom('file_blobs')
      .where('sha256', '=', sha)
      .where('ref_count', '<=', 0)
      .executeTakeFirst();
    if (Number(gone.numDeletedRows) > 0) freed.push(sha);
  }
  if (freed.length) {
    await trx
      .insertInto('file_garbage')
      .values(freed.map((sha256) => ({ sha256, queued_at: nowIso })))
      .onConflict((oc) => oc.column('sha256').doNothing())
      .execute();
  }
  return freed;
}

/** Content queued for removal from the store, oldest first. */
export async function listFileGarbage(db: Kysely<DB>, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('file_garbage').select('sha256').orderBy('queued_at').orderBy('sha256').limit(limit).execute();
  return rows.map((r) => r.sha256);
}

/** Puts a queued content at the back of the queue (its removal failed; see collectFileGarbage). */
export async function requeueFileGarbage(db: Kysely<DB>, sha256: string, now: string): Promise<void> {
  await db.updateTable('file_garbage').set({ queued_at: now }).where('sha256', '=', sha256).execute();
}

export async function dropFileGarbage(db: Kysely<DB>, sha256: string): Promise<void> {
  await db.deleteFrom('file_garbage').where('sha256', '=', sha256).execute();
}
