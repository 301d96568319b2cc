import type { Kysely, Selectable } from 'kysely';
import type { DB, OutboxRow, OutboxStatus } from '#db/schema';
import { decodeCursor, toPage, type Page, type PageInput } from '#db/pagination';

// The mail outbox: a message is a row before it is anything else, so a crash or
// a dead SMTP server never loses it. Not a tenant table (see the migration).

export async function insertOutbox(
  db: Kysely<DB>,
  values: { client_id: number | null; user_id: number | null; kind: string; to_address: string; subject: string; text_body: string },
  now: string,
): Promise<number> {
  const row = await db
    .insertInto('outbox')
    .values({ ...values, status: 'pending', attempts: 0, next_attempt_at: now, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

// ── Delivery queues ─────────────────────────────────────────────────────────
// The columns every queue shares (mail's `outbox`, web push's `push_outbox`, `webhook_deliveries`):
// status, attempts, next_attempt_at, last_error, updated_at. One set of
// functions serves both; the table is a parameter.

export type QueueTable = 'outbox' | 'push_outbox' | 'webhook_deliveries';
export interface QueueRow {
  id: number;
  attempts: number;
  next_attempt_at: string;
}

// kysely cannot resolve columns on a table chosen by a type parameter; both
// tables have the columns used below, so the queries are built against one.
const asQueue = (table: QueueTable) => table as 'outbox';

export async function listDue<T extends QueueTable>(db: Kysely<DB>, table: T, now: string, limit: number): Promise<Selectable<DB[T]>[]> {
  const rows = await db
    .selectFrom(asQueue(table))
    .selectAll()
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows as unknown as Selectable<DB[T]>[];
}

/**
 * Takes a row for delivery by pushing its next attempt past a lease: only the
 * caller that moved it sends it (the daemon loop and a CLI may race).
 */
export async function claim(db: Kysely<DB>, table: QueueTable, row: QueueRow, leaseUntil: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable(asQueue(table))
    .set({ next_attempt_at: leaseUntil, updated_at: now })
    .where('id', '=', row.id)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '=', row.next_attempt_at)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function markAttemptFailed(
  db: Kysely<DB>,
  table: QueueTable,
  id: number,
  values: { attempts: number; status: 'pending' | 'failed'; next_attempt_at: string; last_error: string },
  now: string,
): Promise<void> {
  await db
    .updateTable(asQueue(table))
    .set({ ...values, updated_at: now })
    .where('id', '=', id)
    .execute();
}

const PRUNE_BATCH = 1000;

/**
 * Deletes the rows that left the queue (sent, stored or failed for good) before
 * `before`, by when they did (updated_at: a row's last change is the one that
 * ended its delivery; a retried one is pending again). A pending row stays
 * however old: it is still owed a delivery. Returns how many were deleted.
 */
export async function pruneFinished(db: Kysely<DB>, table: 'outbox' | 'push_outbox', before: string): Promise<number> {
  const finished = table === 'outbox' ? ['sent', 'stored', 'failed'] : ['sent', 'failed'];
  let total = 0;
  // in batches: the first round after an upgrade may find months of rows; one statement would hold the
  // write lock, and on SQLite (synchronous) the daemon's event loop, for seconds (≈2 s for 180k rows;
  // a batch of 1000 ≈30 ms)
  for (;;) {
    const batch = db
      .selectFrom(asQueue(table))
      .select('id')
      .where('status', 'in', finished as OutboxStatus[])
      .where('updated_at', '<', before)
      .limit(PRUNE_BATCH);
    const result = await db.deleteFrom(asQueue(table)).where('id', 'in', batch).executeTakeFirst();
    const deleted = Number(result.numDeletedRows);
    total += deleted;
    if (deleted < PRUNE_BATCH) return total;
  }
}

/** Which of these outbox ids still have a row. */
export async function existingOutboxIds(db: Kysely<DB>, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('outbox')
    .select('id')
    .where('id', 'in', [...ids])
    .execute();
  return new Set(rows.map((r) => r.id));
}

// ── Mail ────────────────────────────────────────────────────────────────────

export async function markOutboxDone(
  db: Kysely<DB>,
  id: number,
  status: Extract<OutboxStatus, 'sent' | 'stored'>,
  now: string,
): Promise<void> {
  await db
    .updateTable('outbox')
    .set({
      status,
      sent_at: now,
      updated_at: now,
      last_error: null,
      attempts: (eb) => eb('attempts', '+', 1),
      // delivered over SMTP: the copy here is no longer needed and may hold a live link
      ...(status === 'sent' && { text_body: '' }),
    })
    .where('id', '=', id)
    .execute();
}

/** Puts failed messages back in the queue (all, or one). Returns how many. */
export async function requeueFailedOutbox(db: Kysely<DB>, now: string, id?: number): Promise<number> {
  let query = db
    .updateTable('outbox')
    .set({ status: 'pending', attempts: 0, next_attempt_at: now, updated_at: now })
    .where('status', '=', 'failed');
  if (id !== undefined) query = query.where('id', '=', id);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Newest first. */
export async function listOutbox(db: Kysely<DB>, page: PageInput, status?: OutboxStatus): Promise<Page<OutboxRow>> {
  const cursor = decodeCursor(page.cursor);
  let query = db.selectFrom('outbox').selectAll();
  if (cursor > 0) query = query.where('id', '<', cursor);
  if (status) query = query.where('status', '=', status);
  const rows = await query
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .execute();
  return toPage(rows, page.limit);
}

export async function getOutbox(db: Kysely<DB>, id: number): Promise<OutboxRow | undefined> {
  return db.selectFrom('outbox').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The newest invitation mail of a user (its body holds the live link until it is handed over or sent). */
export async function findLatestInvitationMail(db: Kysely<DB>, clientId: number, userId: number): Promise<OutboxRow | undefined> {
  return db
    .selectFrom('outbox')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('user_id', '=', userId)
    .where('kind', '=', 'invitation')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Replaces a message's body only if it is still `expected`: false when someone changed it first (the link is handed over once). */
export async function replaceOutboxBody(db: Kysely<DB>, id: number, expected: string, body: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('outbox')
    .set({ text_body: body, updated_at: now })
    .where('id', '=', id)
    .where('text_body', '=', expected)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
