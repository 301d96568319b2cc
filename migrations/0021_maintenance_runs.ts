import type { Kysely } from 'kysely';

// Scale-out: when work that must happen once per period across all
// nodes last ran (the scheduled backup), so that N nodes take it once. The
// nodes serialize on an advisory lock (src/ops/run-once.ts) and read and write
// this row under it. Not a tenant table: one row per kind of work.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('maintenance_runs')
    .addColumn('name', 'text', (c) => c.primaryKey())
    // ISO time of the last successful run (by the clock of the node that ran it)
    .addColumn('last_run_at', 'text', (c) => c.notNull())
    // which node ran it (host name and process id), for operators
    .addColumn('last_node', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('maintenance_runs').execute();
}
