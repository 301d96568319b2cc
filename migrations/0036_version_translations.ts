import type { Kysely } from 'kysely';

// Translated instructions (docs/translated-instructions.md,
// docs/decisions/0009-translations-beside-the-version.md): one row per
// (version, language) holding the translated texts of the version's content
// as canonical JSON — unit id → { the SHA-256 of the source text it
// translates, the target text } — and the translation's own approval: the
// hash of those units as approved, by whom, when and how they signed. A unit
// whose source hash no longer matches the version's text is stale (computed
// on read, never stored). A tenant table; the version is referenced as
// (client_id, version_id). Not to be confused with `translations`, the
// interface texts of migration 0013.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('version_translations')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('version_id', 'integer', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('units', 'text', (c) => c.notNull())
    .addColumn('units_hash', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    // the approval: the units_hash signed, the signer (copied, as version signatures do) and the method
    .addColumn('approved_hash', 'text')
    .addColumn('approved_by', 'integer')
    .addColumn('approver_name', 'text')
    .addColumn('approver_email', 'text')
    .addColumn('approval_method', 'text')
    .addColumn('approved_at', 'text')
    .addForeignKeyConstraint(
      'version_translations_version_fk',
      ['client_id', 'version_id'],
      'template_versions',
      ['client_id', 'id'],
      (c) => c.onDelete('cascade'),
    )
    .addUniqueConstraint('version_translations_language', ['client_id', 'version_id', 'language'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('version_translations').execute();
}
