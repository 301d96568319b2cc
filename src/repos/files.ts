import { sql, type Kysely } from 'kysely';
import type { DB, FileRow, SystemFileRow } from '../db/schema';
import { inTenant, type TenantScope } from '../db/tenant';
import { notFound } from '../errors';

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
    .where('sha256', 'in', contents.map((c) => c.sha256))
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
  return inTenant(db, scope).selectFrom('files').selectAll().where('id', 'in', [...ids]).execute();
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
