import { sql, type Kysely } from 'kysely';

// Meter report: the counts the meter reads most, kept per client
// and UTC day in the transaction of every write that changes them, so a
// report reads one small row per day (and recorder) instead of every step
// record and job of the range. A day is the finest bucket the meter has and
// report ranges are whole UTC days, so every period (day, week, month) and
// range is answered exactly from these rows. Both are backfilled from the rows
// already kept.
// - usage_step_days: step records per day and recording user (src/repos/jobs.ts
//   upsertStepRecord); a row at zero is removed, so a row means "recorded that day".
// - usage_job_days: jobs started and completed per day (insertJob, updateJobAtRevision).

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
  await db.schema
    .createTable('usage_job_days')
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('started', 'integer', (c) => c.notNull())
    .addColumn('completed', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_job_days_pk', ['client_id', 'day'])
    .execute();

  // substr: portable, and what src/db/time-buckets.ts buckets by
  const day = (column: string) => sql<string>`substr(${sql.ref(column)}, 1, 10)`;
  await db
    .insertInto('usage_step_days')
    .columns(['client_id', 'day', 'user_id', 'steps'])
    .expression((eb) =>
      eb
        .selectFrom('step_records')
        .select((s) => ['client_id', day('recorded_at').as('day'), 'recorded_by', s.fn.countAll().as('steps')])
        .groupBy(['client_id', day('recorded_at'), 'recorded_by']),
    )
    .execute();
  const events = db
    .selectFrom('jobs')
    .select(['client_id', day('started_at').as('day'), sql<number>`1`.as('started'), sql<number>`0`.as('completed')])
    .where('started_at', 'is not', null)
    .unionAll(
      db
        .selectFrom('jobs')
        .select(['client_id', day('completed_at').as('day'), sql<number>`0`.as('started'), sql<number>`1`.as('completed')])
        .where('completed_at', 'is not', null),
    );
  await db
    .insertInto('usage_job_days')
    .columns(['client_id', 'day', 'started', 'completed'])
    .expression((eb) =>
      eb
        .selectFrom(events.as('e'))
        .select((s) => ['e.client_id', 'e.day', s.fn.sum('e.started').as('started'), s.fn.sum('e.completed').as('completed')])
        .groupBy(['e.client_id', 'e.day']),
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('usage_job_days').execute();
  await db.schema.dropTable('usage_step_days').execute();
}
