import type { Kysely } from 'kysely';

// The event log: application and security events (sign-ins, lockouts, token
// reuse, license changes…). Not a tenant table: system events have no client.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('logs')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('client_id', 'integer')
    .addColumn('user_id', 'integer')
    .addColumn('admin_id', 'integer')
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('request_id', 'text')
    .addColumn('data', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await db.schema.createIndex('logs_created').on('logs').column('created_at').execute();
  await db.schema.createIndex('logs_client').on('logs').columns(['client_id', 'id']).execute();
  await db.schema.createIndex('logs_event').on('logs').columns(['event', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('logs').execute();
}
