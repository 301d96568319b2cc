import type { Kysely } from 'kysely';

// Indexes for the usage reports (meter report, activity report, vendor users
// report). Every report query is a range scan on one of these: the tenant
// first, then the timestamp the report buckets on, then the columns it reads
// (so most scans never touch the table). No new tables: the reports are
// computed from the rows the domain already keeps, so they cannot drift.
const INDEXES: [name: string, table: string, columns: string[]][] = [
  // sign-ins and active users by time; last sign-in of a user
  ['sessions_client_created', 'sessions', ['client_id', 'created_at', 'user_id']],
  ['sessions_client_user_created', 'sessions', ['client_id', 'user_id', 'created_at']],
  // steps recorded (and the users recording them) by time
  ['step_records_client_recorded', 'step_records', ['client_id', 'recorded_at', 'recorded_by', 'job_id']],
  // jobs created, started and completed by time
  ['jobs_client_created', 'jobs', ['client_id', 'created_at']],
  ['jobs_client_started', 'jobs', ['client_id', 'started_at']],
  ['jobs_client_completed', 'jobs', ['client_id', 'completed_at']],
  // templates created and versions published by time
  ['templates_client_created', 'templates', ['client_id', 'created_at']],
  ['template_versions_client_published', 'template_versions', ['client_id', 'published_at']],
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, table, columns] of INDEXES) await db.schema.createIndex(name).on(table).columns(columns).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of [...INDEXES].reverse()) await db.schema.dropIndex(name).execute();
}
