import type { Kysely } from 'kysely';

// Integrations and branding.
//
// Logos: `clients.logo_file_id` and `organizations.logo_file_id` name a system
// file (POST /api/admin/upload). No foreign key on purpose: SQLite cannot drop
// a column that takes part in one (down), and system files are never deleted.
//
// `container_notifications` is a system table (like `logs`): notifications of
// the container platform the appliance runs on, one row per notification id
// (the idempotency key).
//
// `erp_sync_runs` and `erp_work_orders` are tenant tables: client_id NOT NULL,
// indexes start with it, the job referenced per tenant through
// (client_id, job_id). A work order is pulled once per upstream id (the
// primary key), and its job's result is pushed once (result_pushed_at).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('clients').addColumn('logo_file_id', 'integer').execute();
  await db.schema.alterTable('organizations').addColumn('logo_file_id', 'integer').execute();

  await db.schema
    .createTable('container_notifications')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('notification_id', 'text', (c) => c.notNull().unique())
    .addColumn('kind', 'text', (c) => c.notNull())
    /** the whole notification as received (JSON text) */
    .addColumn('payload', 'text', (c) => c.notNull())
    /** 'signature' or 'admin:<id>' */
    .addColumn('authenticated_by', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('erp_sync_runs')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('started_by', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text', (c) => c.notNull())
    /** 'succeeded' | 'partial' (some orders or results failed) | 'failed' (the upstream could not be read) */
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('pulled', 'integer', (c) => c.notNull())
    .addColumn('created', 'integer', (c) => c.notNull())
    .addColumn('skipped', 'integer', (c) => c.notNull())
    .addColumn('pushed', 'integer', (c) => c.notNull())
    /** JSON array of {workOrderId?, jobId?, message} */
    .addColumn('errors', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('erp_sync_runs_client').on('erp_sync_runs').columns(['client_id', 'id']).execute();

  await db.schema
    .createTable('erp_work_orders')
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('external_id', 'text', (c) => c.notNull())
    .addColumn('job_id', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('result_pushed_at', 'text')
    .addPrimaryKeyConstraint('erp_work_orders_pk', ['client_id', 'external_id'])
    .addForeignKeyConstraint('erp_work_orders_job_fk', ['client_id', 'job_id'], 'jobs', ['client_id', 'id'], (c) => c.onDelete('cascade'))
    .execute();
  await db.schema.createIndex('erp_work_orders_client_job').on('erp_work_orders').columns(['client_id', 'job_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('erp_work_orders').execute();
  await db.schema.dropTable('erp_sync_runs').execute();
  await db.schema.dropTable('container_notifications').execute();
  await db.schema.alterTable('organizations').dropColumn('logo_file_id').execute();
  await db.schema.alterTable('clients').dropColumn('logo_file_id').execute();
}
