import type { Kysely } from 'kysely';

// Capture time and step revisions (docs/records.md). A record is
// evidence with two times: when the values were entered on the device
// (captured_at, sent by the app converted to server time, else the receipt
// time) and when the server stored them (recorded_at, kept under its name).
// Records and faults made before this migration were captured when received.
// Each step record also carries a revision, incremented by every recording of
// the step, so a device can name the record it saw (expectedStepRevision) and
// never silently overwrite someone else's; existing records start at 1.
// captured_at stays nullable in the table (SQLite adds no NOT NULL column
// without a default) but every row has one: backfilled here, always written.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('step_records').addColumn('captured_at', 'text').execute();
  await db.schema
    .alterTable('step_records')
    .addColumn('revision', 'integer', (col) => col.notNull().defaultTo(1))
    .execute();
  await db
    .updateTable('step_records')
    .set((eb) => ({ captured_at: eb.ref('recorded_at') }))
    .execute();
  await db.schema.alterTable('faults').addColumn('captured_at', 'text').execute();
  await db
    .updateTable('faults')
    .set((eb) => ({ captured_at: eb.ref('raised_at') }))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('faults').dropColumn('captured_at').execute();
  await db.schema.alterTable('step_records').dropColumn('revision').execute();
  await db.schema.alterTable('step_records').dropColumn('captured_at').execute();
}
