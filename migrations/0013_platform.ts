import { sql, type Kysely } from 'kysely';

// Platform services: translation entries, bug reports and WebRTC
// logs of remote-assist calls.
//
// `translations` is, like `logs` and `outbox`, a system table: a row with
// client_id NULL is a system-wide text, a row with a client_id that client's
// override. Only system administrators write it; readers ask for the system
// rows and their own client's rows. Partial unique indexes (portable to
// PostgreSQL) keep one text per (language, namespace, key) and owner.
//
// `bug_reports` and `webrtc_logs` are tenant tables: client_id NOT NULL,
// indexes start with it, the author referenced per tenant through
// (client_id, user_id). Their created_at indexes serve the retention job, which
// prunes across clients by age.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('translations')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.references('clients.id').onDelete('cascade'))
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('namespace', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('translations_system_key')
    .on('translations')
    .columns(['language', 'namespace', 'key'])
    .unique()
    .where(sql.ref('client_id'), 'is', null)
    .execute();
  await db.schema
    .createIndex('translations_client_key')
    .on('translations')
    .columns(['client_id', 'language', 'namespace', 'key'])
    .unique()
    .where(sql.ref('client_id'), 'is not', null)
    .execute();

  await db.schema
    .createTable('bug_reports')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    /** 'app' (add-bug-report) or 'web' (bug-report-web) */
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('app_version', 'text', (c) => c.notNull())
    .addColumn('device', 'text', (c) => c.notNull())
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('logs', 'text')
    /** JSON array of file ids */
    .addColumn('attachment_file_ids', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addForeignKeyConstraint('bug_reports_user_fk', ['client_id', 'user_id'], 'users', ['client_id', 'id'], (c) => c.onDelete('cascade'))
    .execute();
  await db.schema.createIndex('bug_reports_client').on('bug_reports').columns(['client_id', 'id']).execute();
  await db.schema.createIndex('bug_reports_client_user').on('bug_reports').columns(['client_id', 'user_id']).execute();

  await db.schema
    .createTable('webrtc_logs')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('call_id', 'text', (c) => c.notNull())
    /** when the client saw it (its clock) */
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    /** JSON object (getStats() excerpt) or NULL */
    .addColumn('stats', 'text')
    /** when the server stored it: what retention goes by */
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addForeignKeyConstraint('webrtc_logs_user_fk', ['client_id', 'user_id'], 'users', ['client_id', 'id'], (c) => c.onDelete('cascade'))
    .execute();
  await db.schema.createIndex('webrtc_logs_client_user').on('webrtc_logs').columns(['client_id', 'user_id', 'id']).execute();
  await db.schema.createIndex('webrtc_logs_client_call').on('webrtc_logs').columns(['client_id', 'call_id', 'id']).execute();
  await db.schema.createIndex('webrtc_logs_created').on('webrtc_logs').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webrtc_logs').execute();
  await db.schema.dropTable('bug_reports').execute();
  await db.schema.dropTable('translations').execute();
}
