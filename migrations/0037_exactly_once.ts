import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';

// Exactly once across crashes and restores (docs/reliability.md).
// `idempotency_keys.owner`: a key in progress now belongs to the process that
// runs its request (null once done). `idempotency_owners`: one row per
// process (daemon) that may hold keys — its node (host and data directory,
// so the node's next start releases what its dead process held) and its
// lease, renewed every few seconds while it lives; any node takes over a key
// whose owner's lease ran out. The lease lives beside the keys, not on them,
// so renewing it never touches a key a request's transaction is writing.
// `data_epoch`: one row, the epoch the server announces to devices
// (Wip-Data-Epoch), made here when the database is created and replaced by
// every restore, so a device can tell that acknowledged writes may be gone.
// Keys left in progress by the daemon that ran before this upgrade belong to
// no live request (the daemon was stopped to upgrade): they are released.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').addColumn('owner', 'text').execute();
  await db.deleteFrom('idempotency_keys').where('status', '=', 'in_progress').execute();
  await db.schema.createIndex('idempotency_keys_owner').on('idempotency_keys').column('owner').execute();
  await db.schema
    .createTable('idempotency_owners')
    // <node>/<pid>/<random>
    .addColumn('owner', 'text', (c) => c.primaryKey())
    // <host>:<hash of the data directory>
    .addColumn('node', 'text', (c) => c.notNull())
    .addColumn('lease_until', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('data_epoch')
    // always 1: a single row
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('epoch', 'text', (c) => c.notNull())
    .addColumn('changed_at', 'text', (c) => c.notNull())
    // created | restore
    .addColumn('reason', 'text', (c) => c.notNull())
    .execute();
  await db
    .insertInto('data_epoch')
    .values({ id: 1, epoch: randomBytes(16).toString('hex'), changed_at: new Date().toISOString(), reason: 'created' })
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('data_epoch').execute();
  await db.schema.dropTable('idempotency_owners').execute();
  await db.schema.dropIndex('idempotency_keys_owner').execute();
  await db.schema.alterTable('idempotency_keys').dropColumn('owner').execute();
}
