import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';

// On-prem licensing and agreements.
// - installed_licenses: every key ever installed (history); deployment_state
//   points at the current one, so a `wip license install` by the CLI is seen by
//   the running daemon on its next request.
// - deployment_state: one row (id 1): this installation's id (license keys may
//   be bound to it), the current license, and the newest time seen (clock
//   rollback detection).
// - agreements: versioned EULA / MSA documents (system-wide, not tenant data).
// - agreement_acceptances: tenant table; EULA acceptances are per user, MSA
//   acceptances per client (user_id records who accepted).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('installed_licenses')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('license_key', 'text', (c) => c.notNull())
    .addColumn('kid', 'text', (c) => c.notNull())
    .addColumn('license_id', 'text', (c) => c.notNull())
    .addColumn('licensee', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('installed_at', 'text', (c) => c.notNull())
    .addColumn('installed_by', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('deployment_state')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('installation_id', 'text', (c) => c.notNull())
    .addColumn('license_row_id', 'integer', (c) => c.references('installed_licenses.id'))
    .addColumn('newest_seen_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db
    .insertInto('deployment_state')
    .values({ id: 1, installation_id: randomUUID(), license_row_id: null, newest_seen_at: null, updated_at: new Date().toISOString() })
    .execute();

  await db.schema
    .createTable('agreements')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('body_markdown', 'text')
    .addColumn('file_key', 'text')
    .addColumn('file_name', 'text')
    .addColumn('file_size', 'integer')
    .addColumn('effective_at', 'text', (c) => c.notNull())
    .addColumn('requires_reacceptance', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('agreements_kind_version', ['kind', 'version'])
    .execute();
  await db.schema.createIndex('agreements_kind_effective').on('agreements').columns(['kind', 'effective_at']).execute();

  await db.schema
    .createTable('agreement_acceptances')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('agreement_id', 'integer', (c) => c.notNull().references('agreements.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('user_email', 'text', (c) => c.notNull())
    .addColumn('accepted_at', 'text', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .execute();
  await db.schema
    .createIndex('agreement_acceptances_client')
    .on('agreement_acceptances')
    .columns(['client_id', 'kind', 'agreement_id'])
    .execute();
  await db.schema.createIndex('agreement_acceptances_user').on('agreement_acceptances').columns(['client_id', 'user_id', 'kind']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['agreement_acceptances', 'agreements', 'deployment_state', 'installed_licenses']) {
    await db.schema.dropTable(table).execute();
  }
}
