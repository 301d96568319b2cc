import type { CreateTableBuilder, Kysely } from 'kysely';

// Recurring and follow-up jobs (docs/recurring-and-follow-up-jobs.md).
//
// - clients.time_zone: the IANA zone a client's schedules recur in (their
//   wall-clock times, daylight-saving changes included). UTC until set.
// - schedules: a published template (pinned version, or null: the latest
//   published), an asset or an asset class, assignees or a team (an
//   organization), priority, due offset, an RFC 5545 RRULE with its local
//   start, what to do with missed occurrences, and `generated_until`: the
//   instant up to which occurrences have been handled. Deleting keeps the row
//   (deleted_at): its jobs keep their link and the audit chain its subject.
// - schedule_occurrences: one row per (schedule, occurrence, asset) ever
//   handled — the unique key that makes every occurrence exactly once, on
//   several nodes and across restarts; asset_key is the asset's id, 0 for none.
// - follow_up_jobs: a job created from a fault, both ways, and whether
//   completing the job closes the fault.
// All tenant tables; children reference (client_id, parent_id).

type Builder = CreateTableBuilder<any, any>;

function tenantTable(db: Kysely<any>, name: string): Builder {
  return db.schema
    .createTable(name)
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade')) as Builder;
}

/** (client_id, column) → parent(client_id, id): the cross-tenant link is impossible. */
function childOf(builder: Builder, table: string, column: string, parent: string, onDelete: 'cascade' | 'restrict' = 'cascade'): Builder {
  return builder.addForeignKeyConstraint(`${table}_${column}_fk`, ['client_id', column], parent, ['client_id', 'id'], (c) =>
    c.onDelete(onDelete),
  ) as Builder;
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('clients')
    .addColumn('time_zone', 'text', (c) => c.notNull().defaultTo('UTC'))
    .execute();

  let schedules = tenantTable(db, 'schedules')
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('template_id', 'integer', (c) => c.notNull())
    // null: each occurrence runs the template's version published at the time
    .addColumn('version_id', 'integer')
    .addColumn('asset_id', 'integer')
    .addColumn('asset_class_id', 'integer')
    // JSON array of user ids
    .addColumn('assignee_ids', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('team_id', 'integer')
    .addColumn('priority', 'text', (c) => c.notNull())
    .addColumn('due_offset_minutes', 'integer')
    .addColumn('rrule', 'text', (c) => c.notNull())
    // the first occurrence's local wall-clock time, YYYY-MM-DDTHH:mm (DTSTART in the client's zone)
    .addColumn('starts_at', 'text', (c) => c.notNull())
    .addColumn('missed', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('generated_until', 'text', (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_by', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text');
  schedules = childOf(schedules, 'schedules', 'template_id', 'templates', 'restrict');
  schedules = childOf(schedules, 'schedules', 'version_id', 'template_versions', 'restrict');
  schedules = childOf(schedules, 'schedules', 'asset_id', 'assets', 'restrict');
  schedules = childOf(schedules, 'schedules', 'asset_class_id', 'asset_classes', 'restrict');
  schedules = childOf(schedules, 'schedules', 'team_id', 'organizations', 'restrict');
  await schedules.execute();
  await db.schema.createIndex('schedules_tenant_key').on('schedules').columns(['client_id', 'id']).unique().execute();
  // the worker's scan: active schedules whose horizon is not covered yet
  await db.schema.createIndex('schedules_due').on('schedules').columns(['state', 'generated_until']).execute();

  let occurrences = tenantTable(db, 'schedule_occurrences')
    .addColumn('schedule_id', 'integer', (c) => c.notNull())
    .addColumn('occurs_at', 'text', (c) => c.notNull())
    .addColumn('asset_key', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('job_id', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull());
  occurrences = childOf(occurrences, 'schedule_occurrences', 'schedule_id', 'schedules');
  occurrences = childOf(occurrences, 'schedule_occurrences', 'job_id', 'jobs');
  await occurrences.execute();
  await db.schema
    .createIndex('schedule_occurrences_once')
    .on('schedule_occurrences')
    .columns(['client_id', 'schedule_id', 'occurs_at', 'asset_key'])
    .unique()
    .execute();
  await db.schema.createIndex('schedule_occurrences_job').on('schedule_occurrences').columns(['client_id', 'job_id']).execute();

  // faults get the (client_id, id) key a child row references them by (0005 gave it to the tables it had children for)
  await db.schema.createIndex('faults_tenant_key').on('faults').columns(['client_id', 'id']).unique().execute();
  let followUps = tenantTable(db, 'follow_up_jobs')
    .addColumn('fault_id', 'integer', (c) => c.notNull())
    .addColumn('job_id', 'integer', (c) => c.notNull())
    .addColumn('closes_fault', 'integer', (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull());
  followUps = childOf(followUps, 'follow_up_jobs', 'fault_id', 'faults');
  followUps = childOf(followUps, 'follow_up_jobs', 'job_id', 'jobs');
  await followUps.execute();
  await db.schema.createIndex('follow_up_jobs_job').on('follow_up_jobs').columns(['client_id', 'job_id']).unique().execute();
  await db.schema.createIndex('follow_up_jobs_fault').on('follow_up_jobs').columns(['client_id', 'fault_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('follow_up_jobs').execute();
  await db.schema.dropIndex('faults_tenant_key').execute();
  await db.schema.dropTable('schedule_occurrences').execute();
  await db.schema.dropTable('schedules').execute();
  await db.schema.alterTable('clients').dropColumn('time_zone').execute();
}
