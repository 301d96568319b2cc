import { sql, type Kysely } from 'kysely';

// Meter report (issue 12): steps recorded per client, UTC day and recording
// user, kept in the transaction of every step recording (src/repos/jobs.ts
// upsertStepRecord), so the meter's steps and active users read one small row
// per (day, user) instead of every step record in the range. A day is the
// finest bucket the meter has and report ranges are whole UTC days, so every
// period (day, week, month) and range is answered exactly from these rows.
// Backfilled from the step records already kept. Rows are removed at zero.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('usage_step_days')
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    // YYYY-MM-DD (UTC): the first ten characters of step_records.recorded_at
    .addColumn('day', 'text', (c) => c.notNull())
    // step_records.recorded_by (no foreign key there either: reports join users)
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('steps', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_step_days_pk', ['client_id', 'day', 'user_id'])
    .execute();
  // substr: portable, and what src/db/time-buckets.ts buckets by
  const day = sql<string>`substr(recorded_at, 1, 10)`;
  await db
    .insertInto('usage_step_days')
    .columns(['client_id', 'day', 'user_id', 'steps'])
    .expression((eb) =>
      eb
        .selectFrom('step_records')
        .select((s) => ['client_id', day.as('day'), 'recorded_by', s.fn.countAll().as('steps')])
        .groupBy(['client_id', day, 'recorded_by']),
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('usage_step_days').execute();
}
