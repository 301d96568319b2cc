import type { Kysely } from 'kysely';

// The floor app's editor autosaves a draft while another author may
// be editing it too. Each version carries a revision, incremented by every
// write to it (an edit, a transition); an edit may name the revision it was
// made from (`expectedRevision`) and is refused with a CONFLICT when the draft
// moved meanwhile, so no author's work is silently overwritten. Existing
// versions start at 1.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('template_versions')
    .addColumn('revision', 'integer', (col) => col.notNull().defaultTo(1))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('template_versions').dropColumn('revision').execute();
}
