import type { Kysely } from 'kysely';

// Files as first-class tenant rows.
// - file_blobs: per client, one row per distinct content (sha256) with the
//   number of rows (files and file_revisions) that reference it. Quota usage is
//   the sum of a client's blob sizes, so a client pays once for content it
//   stores twice. The bytes themselves live once on disk, content-addressed.
// - files: what users upload (name, description, detected content type) and
//   its current content; replaceFile moves the previous content into
//   file_revisions under the same id.
// - system_files: uploads of system administrators (agreement PDFs, branding):
//   not tenant data.
// - alignment_data: the parsed header of a point cloud (PLY) stored as a file,
//   for a template step or an asset.
// - client_settings.storage_quota_bytes: null = unlimited.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('file_blobs')
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('ref_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('file_blobs_pk', ['client_id', 'sha256'])
    .execute();

  await db.schema
    .createTable('files')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('uploaded_by', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addForeignKeyConstraint('files_blob_fk', ['client_id', 'sha256'], 'file_blobs', ['client_id', 'sha256'])
    .execute();
  await db.schema.createIndex('files_tenant_key').on('files').columns(['client_id', 'id']).unique().execute();
  await db.schema.createIndex('files_client_sha256').on('files').columns(['client_id', 'sha256']).execute();

  await db.schema
    .createTable('file_revisions')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('file_id', 'integer', (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('uploaded_by', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('replaced_at', 'text', (c) => c.notNull())
    .addColumn('replaced_by', 'integer')
    .addForeignKeyConstraint('file_revisions_file_fk', ['client_id', 'file_id'], 'files', ['client_id', 'id'], (c) => c.onDelete('cascade'))
    .addForeignKeyConstraint('file_revisions_blob_fk', ['client_id', 'sha256'], 'file_blobs', ['client_id', 'sha256'])
    .execute();
  await db.schema.createIndex('file_revisions_file').on('file_revisions').columns(['client_id', 'file_id', 'revision']).unique().execute();

  await db.schema
    .createTable('system_files')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('uploaded_by_admin', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('alignment_data')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('file_id', 'integer', (c) => c.notNull())
    .addColumn('template_id', 'integer')
    .addColumn('step_id', 'text')
    .addColumn('asset_id', 'integer')
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('point_count', 'integer', (c) => c.notNull())
    /** JSON {min: [x,y,z], max: [x,y,z]} */
    .addColumn('bounds', 'text', (c) => c.notNull())
    .addColumn('created_by', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addForeignKeyConstraint('alignment_data_file_fk', ['client_id', 'file_id'], 'files', ['client_id', 'id'])
    .addForeignKeyConstraint('alignment_data_template_fk', ['client_id', 'template_id'], 'templates', ['client_id', 'id'], (c) =>
      c.onDelete('cascade'),
    )
    .addForeignKeyConstraint('alignment_data_asset_fk', ['client_id', 'asset_id'], 'assets', ['client_id', 'id'], (c) =>
      c.onDelete('cascade'),
    )
    .execute();
  await db.schema.createIndex('alignment_data_step').on('alignment_data').columns(['client_id', 'template_id', 'step_id', 'id']).execute();
  await db.schema.createIndex('alignment_data_asset').on('alignment_data').columns(['client_id', 'asset_id', 'id']).execute();

  await db.schema.alterTable('client_settings').addColumn('storage_quota_bytes', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('client_settings').dropColumn('storage_quota_bytes').execute();
  await db.schema.dropTable('alignment_data').execute();
  await db.schema.dropTable('system_files').execute();
  await db.schema.dropTable('file_revisions').execute();
  await db.schema.dropTable('files').execute();
  await db.schema.dropTable('file_blobs').execute();
}
