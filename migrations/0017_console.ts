import type { Kysely } from 'kysely';

// The admin console: system administrators sign in with a session
// cookie as well as a bearer token. The cookie's value is stored hashed, like
// a user session's; last_seen_at carries the idle timeout of cookie sessions
// (bearer tokens end with their own expiry, so it is null for them).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('admin_sessions').addColumn('cookie_hash', 'text').execute();
  await db.schema.alterTable('admin_sessions').addColumn('last_seen_at', 'text').execute();
  await db.schema.createIndex('admin_sessions_cookie').on('admin_sessions').column('cookie_hash').unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('admin_sessions_cookie').execute();
  await db.schema.alterTable('admin_sessions').dropColumn('last_seen_at').execute();
  await db.schema.alterTable('admin_sessions').dropColumn('cookie_hash').execute();
}
