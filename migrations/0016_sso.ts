import type { Kysely } from 'kysely';

// Single sign-on: per-client identity providers, the identities they
// vouch for, pending sign-ins (OIDC state/PKCE, SAML request ids) and the SAML
// assertion replay cache. All tenant tables: client_id NOT NULL, indexes start
// with it, children reference (client_id, parent_id) — except one lookup:
// provider names are unique across the appliance (they appear in sign-in URLs
// that carry no client id), so `sso_providers_name` is on name alone.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sso_providers')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    // oidc | saml | dynamics | directory
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    // oidc: issuer URL; saml: IdP entity id; dynamics: directory tenant; directory: unused
    .addColumn('issuer', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('oauth_client_id', 'text', (c) => c.notNull().defaultTo(''))
    // sealed with the data directory's secret (SecretBox); never shown again
    .addColumn('client_secret', 'text')
    // JSON: the kind's other settings (scopes, authority template, IdP certificates, graph URL …)
    .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
    // JSON: claim/attribute names for email, firstName, lastName, roles, organizations
    .addColumn('attribute_mapping', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('jit_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('jit_roles', 'text', (c) => c.notNull().defaultTo('["viewer"]'))
    .addColumn('jit_license_type', 'text', (c) => c.notNull().defaultTo('connect'))
    .addColumn('post_login_url', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('sso_providers_client_id_id', ['client_id', 'id'])
    .execute();
  await db.schema.createIndex('sso_providers_name').on('sso_providers').column('name').unique().execute();

  await db.schema
    .createTable('sso_identities')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('provider_id', 'integer', (c) => c.notNull())
    // the IdP's stable subject (OIDC `sub`, SAML NameID, directory object id)
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_sign_in_at', 'text', (c) => c.notNull())
    .addForeignKeyConstraint('sso_identities_provider_fk', ['client_id', 'provider_id'], 'sso_providers', ['client_id', 'id'], (c) =>
      c.onDelete('cascade'),
    )
    .addForeignKeyConstraint('sso_identities_user_fk', ['client_id', 'user_id'], 'users', ['client_id', 'id'], (c) => c.onDelete('cascade'))
    .execute();
  await db.schema
    .createIndex('sso_identities_subject')
    .on('sso_identities')
    .columns(['client_id', 'provider_id', 'subject'])
    .unique()
    .execute();
  await db.schema.createIndex('sso_identities_user').on('sso_identities').columns(['client_id', 'user_id']).execute();

  await db.schema
    .createTable('sso_pending')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('provider_id', 'integer', (c) => c.notNull())
    // oidc: SHA-256 of `state`; saml: the AuthnRequest ID (InResponseTo)
    .addColumn('handle', 'text', (c) => c.notNull())
    // oidc: SHA-256 of the browser-binding cookie (login CSRF defence)
    .addColumn('browser_hash', 'text')
    // oidc: sealed JSON {codeVerifier, nonce}
    .addColumn('secrets', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addForeignKeyConstraint('sso_pending_provider_fk', ['client_id', 'provider_id'], 'sso_providers', ['client_id', 'id'], (c) =>
      c.onDelete('cascade'),
    )
    .execute();
  // a handle is looked up before the client is known (the callback carries only `state`)
  await db.schema.createIndex('sso_pending_handle').on('sso_pending').column('handle').unique().execute();
  await db.schema.createIndex('sso_pending_client').on('sso_pending').columns(['client_id', 'provider_id']).execute();
  await db.schema.createIndex('sso_pending_expires').on('sso_pending').column('expires_at').execute();

  await db.schema
    .createTable('sso_assertions_seen')
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('provider_id', 'integer', (c) => c.notNull())
    .addColumn('assertion_id', 'text', (c) => c.notNull())
    // kept until the assertion could no longer be accepted anyway (NotOnOrAfter + skew)
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addForeignKeyConstraint('sso_assertions_seen_provider_fk', ['client_id', 'provider_id'], 'sso_providers', ['client_id', 'id'], (c) =>
      c.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('sso_assertions_seen_id')
    .on('sso_assertions_seen')
    .columns(['client_id', 'provider_id', 'assertion_id'])
    .unique()
    .execute();
  await db.schema.createIndex('sso_assertions_seen_expires').on('sso_assertions_seen').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sso_assertions_seen').execute();
  await db.schema.dropTable('sso_pending').execute();
  await db.schema.dropTable('sso_identities').execute();
  await db.schema.dropTable('sso_providers').execute();
}
