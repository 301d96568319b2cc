import type { Kysely } from 'kysely';

// File deletion and storage metering.
// - file_garbage: content (sha256) whose last reference of a client went away
//   with a deleted file, queued in the deleting transaction. After commit (and
//   on every maintenance round, so a crash in between loses nothing) the bytes
//   are removed from the store once no row of any client or of the system
//   references the content and the file was not written or touched for an
//   hour (an upload of the same bytes may be between its store write and its
//   commit). Not tenant data: the bytes on disk are shared by content.
// - file_blobs_sha256: "is this content referenced anywhere" for the collector
//   (a system lookup across clients, hence not starting with client_id).
// - file_blobs_created: the meter report's storage figure per time bucket.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('file_garbage')
    .addColumn('sha256', 'text', (c) => c.primaryKey())
    .addColumn('queued_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('file_blobs_sha256').on('file_blobs').column('sha256').execute();
  await db.schema.createIndex('file_blobs_created').on('file_blobs').columns(['client_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('file_blobs_created').execute();
  await db.schema.dropIndex('file_blobs_sha256').execute();
  await db.schema.dropTable('file_garbage').execute();
}
