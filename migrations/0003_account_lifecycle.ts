import type { Kysely } from 'kysely';

// Account lifecycle: the mail outbox, per-client security settings,
// brute-force counters and lockouts, and TOTP two-factor enrolments.

export async function up(db: Kysely<any>): Promise<void> {
  // Not a tenant table: some mail (self-service sign-up) belongs to no client yet.
  await db.schema
    .createTable('outbox')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('client_id', 'integer')
    .addColumn('user_id', 'integer')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('sent_at', 'text')
    .execute();
  await db.schema.createIndex('outbox_due').on('outbox').columns(['status', 'next_attempt_at']).execute();

  await db.schema
    .createTable('client_settings')
    .addColumn('client_id', 'integer', (c) => c.primaryKey().references('clients.id').onDelete('cascade'))
    .addColumn('password_min_length', 'integer', (c) => c.notNull())
    .addColumn('two_factor_required', 'text', (c) => c.notNull())
    .addColumn('session_idle_timeout', 'integer')
    .addColumn('allowed_sign_up_domains', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('sso_enforced', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  // Keys are `email:<normalized email>` or `ip:<address>`; not tenant data.
  await db.schema
    .createTable('auth_failures')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('auth_failures_key').on('auth_failures').columns(['key', 'created_at']).execute();
  await db.schema
    .createTable('auth_lockouts')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('locked_until', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('user_two_factor')
    .addColumn('client_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('enabled_at', 'text')
    .addColumn('last_used_step', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('recovery_codes', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_two_factor_pk', ['client_id', 'user_id'])
    .addForeignKeyConstraint('user_two_factor_user', ['client_id', 'user_id'], 'users', ['client_id', 'id'], (fk) => fk.onDelete('cascade'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['user_two_factor', 'auth_lockouts', 'auth_failures', 'client_settings', 'outbox']) {
    await db.schema.dropTable(table).execute();
  }
}
