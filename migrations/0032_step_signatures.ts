import type { Kysely } from 'kysely';

// Step sign-offs (docs/execution-rules.md): e-signatures on a job's
// step with the meaning PERFORMED or VERIFIED. Each binds the signer, the
// printed name (copied, so the record stays readable when the account goes),
// the meaning, the time and the SHA-256 of the step's recorded values.
// Re-recording the step invalidates them (invalidated_at) rather than deleting
// them: they stay part of the record. A tenant table; the job is referenced as
// (client_id, job_id).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('step_signatures')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('job_id', 'integer', (c) => c.notNull())
    .addColumn('step_id', 'text', (c) => c.notNull())
    .addColumn('signer_id', 'integer', (c) => c.notNull())
    .addColumn('signer_name', 'text', (c) => c.notNull())
    .addColumn('signer_email', 'text', (c) => c.notNull())
    .addColumn('meaning', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('values_hash', 'text', (c) => c.notNull())
    .addColumn('signed_at', 'text', (c) => c.notNull())
    .addColumn('invalidated_at', 'text')
    .addForeignKeyConstraint('step_signatures_job_fk', ['client_id', 'job_id'], 'jobs', ['client_id', 'id'], (c) => c.onDelete('cascade'))
    .execute();
  await db.schema.createIndex('step_signatures_job').on('step_signatures').columns(['client_id', 'job_id', 'step_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('step_signatures').execute();
}
