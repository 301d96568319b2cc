import type { Kysely } from 'kysely';

// Frozen once landed: a schema change is a new migration file.
// Tenant tables: client_id NOT NULL, indexes lead with it, and children reference
// (client_id, parent_id) so the database itself refuses cross-tenant links.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('system_admins')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('username', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('admin_sessions')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('admin_id', 'integer', (c) => c.notNull().references('system_admins.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .execute();
  await db.schema.createIndex('admin_sessions_admin').on('admin_sessions').column('admin_id').execute();

  await db.schema
    .createTable('clients')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_normalized', 'text', (c) => c.notNull())
    .addColumn('first_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('last_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('title', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('license_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('available_to_org', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('users_client_email', ['client_id', 'email_normalized'])
    .addUniqueConstraint('users_client_id', ['client_id', 'id'])
    .execute();
  // sign-in looks an email up across clients
  await db.schema.createIndex('users_email').on('users').column('email_normalized').execute();

  await db.schema
    .createTable('user_roles')
    .addColumn('client_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_roles_pk', ['client_id', 'user_id', 'role'])
    .addForeignKeyConstraint('user_roles_user', ['client_id', 'user_id'], 'users', ['client_id', 'id'], (fk) => fk.onDelete('cascade'))
    .execute();

  await db.schema
    .createTable('licenses')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('license_type', 'text', (c) => c.notNull())
    .addColumn('seats', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('licenses_client_type').on('licenses').columns(['client_id', 'license_type']).execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('cookie_hash', 'text', (c) => c.unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addUniqueConstraint('sessions_client_id', ['client_id', 'id'])
    .addForeignKeyConstraint('sessions_user', ['client_id', 'user_id'], 'users', ['client_id', 'id'], (fk) => fk.onDelete('cascade'))
    .execute();
  await db.schema.createIndex('sessions_client_user').on('sessions').columns(['client_id', 'user_id']).execute();

  await db.schema
    .createTable('refresh_tokens')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull())
    .addColumn('session_id', 'integer', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addForeignKeyConstraint('refresh_tokens_session', ['client_id', 'session_id'], 'sessions', ['client_id', 'id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .execute();
  await db.schema.createIndex('refresh_tokens_session').on('refresh_tokens').columns(['client_id', 'session_id']).execute();

  await db.schema
    .createTable('user_tokens')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addForeignKeyConstraint('user_tokens_user', ['client_id', 'user_id'], 'users', ['client_id', 'id'], (fk) => fk.onDelete('cascade'))
    .execute();
  await db.schema.createIndex('user_tokens_user').on('user_tokens').columns(['client_id', 'user_id', 'purpose']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'user_tokens',
    'refresh_tokens',
    'sessions',
    'licenses',
    'user_roles',
    'users',
    'clients',
    'admin_sessions',
    'system_admins',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
