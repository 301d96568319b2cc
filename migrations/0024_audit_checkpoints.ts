import type { Kysely } from 'kysely';

// Records anyone can verify: signed checkpoints of each client's
// audit chain head. A checkpoint is the appliance's signature (a JWS, kept as
// its flattened JSON serialization) over {clientId, seq, hash, at}; whoever
// holds one can later tell whether the chain was cut short or rewritten. A
// tenant table: client_id NOT NULL, its index starts with it. The RFC 3161
// timestamp token is added later when the time-stamping authority was not
// reachable (timestamp_attempts, timestamp_error: the retry's state).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('audit_checkpoints')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    // the chain head signed: its seq and hash (seq 0 and the genesis hash for an empty chain)
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('kid', 'text', (c) => c.notNull())
    // the flattened JWS (JSON text) whose payload is the canonical JSON of the checkpoint
    .addColumn('jws', 'text', (c) => c.notNull())
    // base64 DER of the RFC 3161 TimeStampToken over the JWS signature; NULL: none (yet)
    .addColumn('timestamp_token', 'text')
    .addColumn('timestamp_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('timestamp_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_checkpoints_client_seq').on('audit_checkpoints').columns(['client_id', 'seq']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('audit_checkpoints').execute();
}
