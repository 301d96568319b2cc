import { sql, type Kysely } from 'kysely';
import type { DB, EventRow } from '#db/schema';

// The event outbox (0011_events). client_id NULL is a system event. Readers
// always name the owner: `ownedBy` is the one filter.

/** A client's id, or null for system events and system administrators' endpoints. */
export type EventOwner = number | null;

/**
 * The one owner filter of the event tables (as inTenant is for tenant tables):
 * `<table>.client_id = ?`, or `is null` for the system's own.
 */
export function ownerIs(owner: EventOwner, table: 'events' | 'webhooks' | 'webhook_deliveries') {
  const ref = sql.ref(`${table}.client_id`);
  return owner === null ? sql<boolean>`${ref} is null` : sql<boolean>`${ref} = ${owner}`;
}

export async function insertEvent(
  trx: Kysely<DB>,
  values: { client_id: EventOwner; public_id: string; type: string; template_id: number | null; payload: string; created_at: string },
): Promise<EventRow> {
  return trx.insertInto('events').values(values).returningAll().executeTakeFirstOrThrow();
}

/** A client's events after `afterId`, oldest first, not older than `since` (the retained window). */
export async function listClientEventsAfter(
  db: Kysely<DB>,
  clientId: number,
  afterId: number,
  since: string,
  limit: number,
  except: string,
): Promise<EventRow[]> {
  return db
    .selectFrom('events')
    .selectAll()
    .where(ownerIs(clientId, 'events'))
    .where('id', '>', afterId)
    .where('created_at', '>=', since)
    .where('type', '!=', except)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The newest event id of a client (0 when none): where a fresh stream starts. */
export async function lastClientEventId(db: Kysely<DB>, clientId: number): Promise<number> {
  const row = await db
    .selectFrom('events')
    .select('id')
    .where(ownerIs(clientId, 'events'))
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.id ?? 0;
}

/** Deletes events (with their delivery log) older than the retained window. */
export async function pruneEvents(db: Kysely<DB>, before: string): Promise<number> {
  const result = await db
    .deleteFrom('events')
    .where('created_at', '<', before)
    // an event still being delivered stays until its delivery ends
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('webhook_deliveries')
            .select('id')
            .whereRef('webhook_deliveries.event_id', '=', 'events.id')
            .where('status', '=', 'pending'),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
