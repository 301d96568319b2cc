import type { Kysely } from 'kysely';

// Scale-out: the secrets every node must share (JWT signing key,
// cookie keys, VAPID keys), sealed with a key derived from WIP_MASTER_KEY.
// Only PostgreSQL mode uses it; a single node keeps <data-dir>/secrets.json.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('shared_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('shared_secrets').execute();
}
