import type { Kysely } from 'kysely';

// Deviations and review by exception (docs/execution-rules.md).
// `deviations`: what went other than planned on a job — a value out of limits,
// a FAILED step, a step the operator marked not applicable, a fault raised on
// the job, a supervisor's override, a late completion — written in the same
// transaction as what caused it and acknowledged, each with a comment, by a
// reviewer. `job_reviews`: the REVIEWED e-signature on a completed job (one
// per job), binding the signer, printed name, time and the SHA-256 of the
// deviations as acknowledged. Both tenant tables; the job is referenced as
// (client_id, job_id).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('deviations')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('job_id', 'integer', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('step_id', 'text')
    .addColumn('field_key', 'text')
    // JSON of the value that deviated (a number out of limits), null otherwise
    .addColumn('value', 'text')
    // what happened, for people: the operator's reason, the fault's description, …
    .addColumn('detail', 'text', (c) => c.notNull())
    .addColumn('fault_id', 'integer')
    .addColumn('raised_by', 'integer')
    .addColumn('raised_at', 'text', (c) => c.notNull())
    .addColumn('ack_comment', 'text')
    .addColumn('acknowledged_by', 'integer')
    .addColumn('acknowledged_by_name', 'text')
    .addColumn('acknowledged_at', 'text')
    .addForeignKeyConstraint('deviations_job_fk', ['client_id', 'job_id'], 'jobs', ['client_id', 'id'], (c) => c.onDelete('cascade'))
    .execute();
  await db.schema.createIndex('deviations_job').on('deviations').columns(['client_id', 'job_id']).execute();
  await db.schema.createIndex('deviations_client').on('deviations').columns(['client_id', 'id']).execute();

  await db.schema
    .createTable('job_reviews')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('job_id', 'integer', (c) => c.notNull())
    .addColumn('signer_id', 'integer', (c) => c.notNull())
    .addColumn('signer_name', 'text', (c) => c.notNull())
    .addColumn('signer_email', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('comment', 'text', (c) => c.notNull())
    .addColumn('deviations_hash', 'text', (c) => c.notNull())
    .addColumn('signed_at', 'text', (c) => c.notNull())
    .addForeignKeyConstraint('job_reviews_job_fk', ['client_id', 'job_id'], 'jobs', ['client_id', 'id'], (c) => c.onDelete('cascade'))
    .addUniqueConstraint('job_reviews_one_per_job', ['client_id', 'job_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('job_reviews').execute();
  await db.schema.dropTable('deviations').execute();
}
