import type { Kysely } from 'kysely';

// Scale-out: request rate-limit counters shared by the nodes, one
// fixed window per key (`<namespace>:<principal or IP>`). Only PostgreSQL mode
// uses it; a single node counts in memory. Not a tenant table: keys are IPs
// and principals, and rows live one window.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rate_limits')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('hits', 'integer', (c) => c.notNull())
    // Unix milliseconds: the end of the current window
    .addColumn('reset_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rate_limits_reset_at').on('rate_limits').column('reset_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rate_limits').execute();
}
