import type { Kysely } from 'kysely';

// Web push: the browsers (and apps) a user subscribed, the user's
// on/off switch, and the push queue — one row per notification per
// subscription, written in the transaction of the event that causes it and
// delivered after commit (src/push/sender.ts). Tenant tables: client_id NOT
// NULL, children reference (client_id, parent_id).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('push_subscriptions')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('p256dh', 'text', (c) => c.notNull())
    .addColumn('auth', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addForeignKeyConstraint('push_subscriptions_user_fk', ['client_id', 'user_id'], 'users', ['client_id', 'id'], (c) =>
      c.onDelete('cascade'),
    )
    .execute();
  // one row per browser endpoint within a client: subscribing again (or as another user of that browser) replaces it
  await db.schema.createIndex('push_subscriptions_endpoint').on('push_subscriptions').columns(['client_id', 'endpoint']).unique().execute();
  await db.schema.createIndex('push_subscriptions_user').on('push_subscriptions').columns(['client_id', 'user_id']).execute();
  await db.schema.createIndex('push_subscriptions_tenant_key').on('push_subscriptions').columns(['client_id', 'id']).unique().execute();

  // no row: push is on (a browser still has to subscribe first)
  await db.schema
    .createTable('push_preferences')
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('push_preferences_pk', ['client_id', 'user_id'])
    .addForeignKeyConstraint('push_preferences_user_fk', ['client_id', 'user_id'], 'users', ['client_id', 'id'], (c) =>
      c.onDelete('cascade'),
    )
    .execute();

  await db.schema
    .createTable('push_outbox')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    // deleting a subscription (unsubscribe, 404/410 from the push service) drops what was queued for it
    .addColumn('subscription_id', 'integer', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    /** JSON: the notification the service worker shows */
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('sent_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addForeignKeyConstraint(
      'push_outbox_subscription_fk',
      ['client_id', 'subscription_id'],
      'push_subscriptions',
      ['client_id', 'id'],
      (c) => c.onDelete('cascade'),
    )
    .execute();
  await db.schema.createIndex('push_outbox_subscription').on('push_outbox').columns(['client_id', 'subscription_id']).execute();
  // The one index not led by client_id: the sender scans what is due across all clients, like the mail outbox.
  await db.schema.createIndex('push_outbox_due').on('push_outbox').columns(['status', 'next_attempt_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['push_outbox', 'push_preferences', 'push_subscriptions']) await db.schema.dropTable(table).execute();
}
