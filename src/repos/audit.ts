import { dialectOf } from '#db/dialect';
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AuditEntryRow, DB } from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';
import { paginate, type Page, type PageInput } from '#db/pagination';
import { canonicalJson } from '#lib/canonical-json';

/**
 * The audit trail: append-only and hash-chained per client. This module is the
 * only writer of `audit_entries`, and it never updates or deletes a row.
 * `appendAudit` runs inside the transaction of the change it records, so the
 * entry exists exactly when the change does.
 */

export const GENESIS_HASH = '0'.repeat(64);

export interface AuditEntry {
  /** who: a user of the client, or a label for the CLI / system administrators */
  actor: { userId: number; email: string } | { label: string };
  /** dotted: template.created, version.approved, job.step_recorded, hand_off.accepted… */
  action: string;
  entityType: string;
  entityId: number | string;
  before?: unknown;
  after?: unknown;
  at: string;
}

type HashedFields = Pick<
  AuditEntryRow,
  'client_id' | 'seq' | 'actor_user_id' | 'actor' | 'action' | 'entity_type' | 'entity_id' | 'before' | 'after' | 'at' | 'prev_hash'
>;

/** The hash of an entry covers every stored field but its own id and hash. */
export function hashAuditEntry(row: HashedFields): string {
  const fields = {
    clientId: row.client_id,
    seq: row.seq,
    actorUserId: row.actor_user_id,
    actor: row.actor,
    action: row.action,
    entityType: row.entity_type,
    entityId: row.entity_id,
    before: row.before,
    after: row.after,
    at: row.at,
    prevHash: row.prev_hash,
  };
  return createHash('sha256').update(canonicalJson(fields), 'utf8').digest('hex');
}

/**
 * Appends one entry to the client's chain: reads the chain's head, links to it
 * and moves the head, all inside `trx` (the caller's transaction).
 */
export async function appendAudit(trx: Kysely<DB>, scope: TenantScope, entry: AuditEntry): Promise<void> {
  let headQuery = inTenant(trx, scope).selectFrom('audit_heads').select(['seq', 'hash']);
  // PostgreSQL: the client's writers normally queue before BEGIN (withTransaction's
  // lockClient); one that did not waits here and then fails with a serialization
  // failure (retried), instead of a unique violation at the insert.
  // SQLite needs no lock: BEGIN IMMEDIATE already made this the only writer.
  if (dialectOf(trx) === 'postgres') headQuery = headQuery.forUpdate();
  const head = await headQuery.executeTakeFirst();
  const row: HashedFields = {
    client_id: scope.clientId,
    seq: (head?.seq ?? 0) + 1,
    actor_user_id: 'userId' in entry.actor ? entry.actor.userId : null,
    actor: 'userId' in entry.actor ? `user:${entry.actor.userId} ${entry.actor.email}` : entry.actor.label,
    action: entry.action,
    entity_type: entry.entityType,
    entity_id: String(entry.entityId),
    before: entry.before === undefined ? null : canonicalJson(entry.before),
    after: entry.after === undefined ? null : canonicalJson(entry.after),
    at: entry.at,
    prev_hash: head?.hash ?? GENESIS_HASH,
  };
  const hash = hashAuditEntry(row);
  await trx
    .insertInto('audit_entries')
    .values({ ...row, hash })
    .execute();
  if (head) {
    await inTenant(trx, scope).updateTable('audit_heads').set({ seq: row.seq, hash }).execute();
  } else {
    await trx.insertInto('audit_heads').values({ client_id: scope.clientId, seq: row.seq, hash }).execute();
  }
}

export async function listAuditEntries(
  db: Kysely<DB>,
  scope: TenantScope,
  filter: { entityType?: string; entityId?: string },
  page: PageInput,
): Promise<Page<AuditEntryRow>> {
  let query = inTenant(db, scope).selectFrom('audit_entries').selectAll();
  if (filter.entityType) query = query.where('entity_type', '=', filter.entityType);
  if (filter.entityId) query = query.where('entity_id', '=', filter.entityId);
  return paginate(query, page);
}

/** Distinct users who appear as actors on the given entities' entries. */
export async function auditActorIds(
  db: Kysely<DB>,
  scope: TenantScope,
  entities: { entityType: string; entityIds: string[] }[],
): Promise<number[]> {
  const ids = new Set<number>();
  for (const { entityType, entityIds } of entities) {
    if (entityIds.length === 0) continue;
    const rows = await inTenant(db, scope)
      .selectFrom('audit_entries')
      .select('actor_user_id')
      .distinct()
      .where('entity_type', '=', entityType)
      .where('entity_id', 'in', entityIds)
      .where('actor_user_id', 'is not', null)
      .execute();
    for (const row of rows) ids.add(row.actor_user_id!);
  }
  return [...ids];
}

export interface ChainBreak {
  clientId: number;
  /** the first entry that does not verify (its id and seq), or the head that points nowhere */
  entryId: number | null;
  seq: number;
  reason: string;
}

export interface ChainReport {
  clientId: number;
  entries: number;
  broken: ChainBreak | null;
}

/**
 * Walks one client's chain in seq order, in batches (constant memory), and
 * names the first entry that was edited (its hash no longer matches), deleted
 * or reordered (seq gap, or prev_hash not the previous entry's hash), or the
 * first entry missing from the end (the head says the chain is longer). Runs in
 * one read transaction, so a daemon appending meanwhile cannot make the
 * walk and the head disagree.
 */
export async function verifyAuditChain(db: Kysely<DB>, clientId: number): Promise<ChainReport> {
  return db.transaction().execute((trx) => walkChain(trx, clientId));
}

async function walkChain(db: Kysely<DB>, clientId: number): Promise<ChainReport> {
  const BATCH = 1000;
  let expectedSeq = 1;
  let prevHash = GENESIS_HASH;
  let count = 0;
  let afterSeq = 0;
  let lastId: number | null = null;
  const fail = (entryId: number | null, seq: number, reason: string): ChainReport => ({
    clientId,
    entries: count,
    broken: { clientId, entryId, seq, reason },
  });
  for (;;) {
    const rows = await db
      .selectFrom('audit_entries')
      .selectAll()
      .where('client_id', '=', clientId)
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(BATCH)
      .execute();
    for (const row of rows) {
      if (row.seq !== expectedSeq) {
        return fail(
          row.id,
          row.seq,
          `entry ${expectedSeq} is missing (found ${row.seq} after ${expectedSeq - 1}): entries were deleted or reordered`,
        );
      }
      if (row.prev_hash !== prevHash)
        return fail(row.id, row.seq, 'does not link to the previous entry: entries were deleted, inserted or reordered');
      if (hashAuditEntry(row) !== row.hash) return fail(row.id, row.seq, 'content does not match its hash: the entry was edited');
      prevHash = row.hash;
      expectedSeq++;
      count++;
      afterSeq = row.seq;
      lastId = row.id;
    }
    if (rows.length < BATCH) break;
  }
  const head = await db.selectFrom('audit_heads').selectAll().where('client_id', '=', clientId).executeTakeFirst();
  if (!head) {
    return count === 0
      ? { clientId, entries: 0, broken: null }
      : fail(lastId, count, `the chain has ${count} entries but no head: the head was deleted`);
  }
  if (head.seq > count) {
    return fail(
      null,
      count + 1,
      `entry ${count + 1} is missing: the chain ends at entry ${count} but its head says ${head.seq} (entries were deleted from the end)`,
    );
  }
  if (head.seq < count) {
    return fail(
      lastId,
      count,
      `the chain ends at entry ${count} but its head says ${head.seq}: entries were appended around the audit trail, or the head was edited`,
    );
  }
  if (head.hash !== prevHash) {
    return fail(lastId, count, `the last entry does not match the chain's head: it was replaced, or the head was edited`);
  }
  return { clientId, entries: count, broken: null };
}

/**
 * Clients that have an audit chain (for `wip audit verify` without --client-id):
 * those with a head or with entries, so deleting a head hides no chain.
 */
export async function auditedClientIds(db: Kysely<DB>): Promise<number[]> {
  const heads = await db.selectFrom('audit_heads').select('client_id').execute();
  const entries = await db.selectFrom('audit_entries').select('client_id').distinct().execute();
  return [...new Set([...heads, ...entries].map((r) => r.client_id))].sort((a, b) => a - b);
}
