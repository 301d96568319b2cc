import type { Kysely } from 'kysely';

// Who did it: every security event names its actor — a system
// administrator, a client user, the CLI (run by an OS user) or the system
// itself — with the name as it was when the event was recorded, so the log
// still says who after the account is renamed or deleted. NULL: nobody known
// (a failed sign-in), and on older rows (their admin_id / user_id remain).

export async function up(db: Kysely<any>): Promise<void> {
  // 'admin' | 'user' | 'cli' | 'system'
  await db.schema.alterTable('logs').addColumn('actor_kind', 'text').execute();
  // the admin's or user's id; NULL for the CLI and the system
  await db.schema.alterTable('logs').addColumn('actor_id', 'integer').execute();
  // an admin's username, a user's name and email, the CLI's OS user
  await db.schema.alterTable('logs').addColumn('actor_name', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('logs').dropColumn('actor_name').execute();
  await db.schema.alterTable('logs').dropColumn('actor_id').execute();
  await db.schema.alterTable('logs').dropColumn('actor_kind').execute();
}
