import type { Kysely } from 'kysely';

// Notifications: each user's choices about the mail and web push the
// appliance sends when work waits for them — the language the messages are
// written in and the kinds turned off. No row: every kind on, in English. A
// tenant table: client_id NOT NULL, the user referenced as (client_id, user_id).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('notification_preferences')
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    // BCP 47 tag (canonical); NULL: the appliance's default language
    .addColumn('language', 'text')
    // JSON array of the notification kinds the user turned off
    .addColumn('disabled_kinds', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('notification_preferences_pk', ['client_id', 'user_id'])
    .addForeignKeyConstraint('notification_preferences_user_fk', ['client_id', 'user_id'], 'users', ['client_id', 'id'], (c) =>
      c.onDelete('cascade'),
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('notification_preferences').execute();
}
