import type { Kysely } from 'kysely';
import type { ContainerNotificationRow, DB } from '#db/schema';
import { paginate, type Page, type PageInput } from '#db/pagination';

/** Container-platform notifications: a system table (no client), one row per notification id. */

export async function findContainerNotification(db: Kysely<DB>, notificationId: string): Promise<ContainerNotificationRow | undefined> {
  return db.selectFrom('container_notifications').selectAll().where('notification_id', '=', notificationId).executeTakeFirst();
}

/** Inserts unless the id is already stored; answers whether it inserted. */
export async function insertContainerNotification(db: Kysely<DB>, row: Omit<ContainerNotificationRow, 'id'>): Promise<boolean> {
  const result = await db
    .insertInto('container_notifications')
    .values(row)
    .onConflict((oc) => oc.column('notification_id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function listContainerNotifications(
  db: Kysely<DB>,
  filter: { kind?: string },
  page: PageInput,
): Promise<Page<ContainerNotificationRow>> {
  let query = db.selectFrom('container_notifications').selectAll();
  if (filter.kind) query = query.where('kind', '=', filter.kind);
  return paginate(query, page);
}
