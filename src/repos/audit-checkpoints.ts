import type { Kysely } from 'kysely';
import type { AuditCheckpointRow, AuditEntryRow, DB } from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';

/**
 * Signed checkpoints of the audit chains and the reads record
 * bundles need from the chain. Checkpoint rows are inserted once and only
 * their timestamp columns change afterwards (a token fetched later).
 */

export interface AuditEntityRef {
  entityType: string;
  entityIds: string[];
}

/**
 * The contiguous stretch of the client's chain from the first to the last
 * entry about any of `entities` (seq order), or [] when none is. Entries
 * about other things inside the stretch are returned too: the links between
 * the wanted entries run through them.
 */
export async function auditSliceAbout(db: Kysely<DB>, scope: TenantScope, entities: AuditEntityRef[]): Promise<AuditEntryRow[]> {
  const wanted = entities.filter((e) => e.entityIds.length > 0);
  if (wanted.length === 0) return [];
  const bounds = await inTenant(db, scope)
    .selectFrom('audit_entries')
    .select((eb) => [eb.fn.min('seq').as('first'), eb.fn.max('seq').as('last')])
    .where((eb) => eb.or(wanted.map((e) => eb.and([eb('entity_type', '=', e.entityType), eb('entity_id', 'in', e.entityIds)]))))
    .executeTakeFirst();
  if (bounds?.first == null || bounds.last == null) return [];
  return inTenant(db, scope)
    .selectFrom('audit_entries')
    .selectAll()
    .where('seq', '>=', Number(bounds.first))
    .where('seq', '<=', Number(bounds.last))
    .orderBy('seq')
    .execute();
}

export async function findAuditHead(db: Kysely<DB>, clientId: number): Promise<{ seq: number; hash: string } | undefined> {
  return db.selectFrom('audit_heads').select(['seq', 'hash']).where('client_id', '=', clientId).executeTakeFirst();
}

export async function insertCheckpoint(
  db: Kysely<DB>,
  row: {
    client_id: number;
    seq: number;
    hash: string;
    kid: string;
    jws: string;
    timestamp_token: string | null;
    timestamp_error: string | null;
    created_at: string;
  },
): Promise<AuditCheckpointRow> {
  return db
    .insertInto('audit_checkpoints')
    .values({ ...row, timestamp_attempts: row.timestamp_token || row.timestamp_error ? 1 : 0 })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listCheckpoints(db: Kysely<DB>, clientId: number): Promise<AuditCheckpointRow[]> {
  return db.selectFrom('audit_checkpoints').selectAll().where('client_id', '=', clientId).orderBy('id').execute();
}

export async function latestCheckpoint(db: Kysely<DB>, clientId: number): Promise<AuditCheckpointRow | undefined> {
  return db.selectFrom('audit_checkpoints').selectAll().where('client_id', '=', clientId).orderBy('id', 'desc').limit(1).executeTakeFirst();
}

/** Checkpoints still waiting for a timestamp token (the TSA was unreachable), oldest first, a few at a time. */
export async function checkpointsWithoutTimestamp(db: Kysely<DB>, maxAttempts: number, limit: number): Promise<AuditCheckpointRow[]> {
  return db
    .selectFrom('audit_checkpoints')
    .selectAll()
    .where('timestamp_token', 'is', null)
    .where('timestamp_attempts', '<', maxAttempts)
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function recordTimestampAttempt(db: Kysely<DB>, id: number, result: { token: string } | { error: string }): Promise<void> {
  await db
    .updateTable('audit_checkpoints')
    .set((eb) => ({
      timestamp_attempts: eb('timestamp_attempts', '+', 1),
      ...('token' in result ? { timestamp_token: result.token, timestamp_error: null } : { timestamp_error: result.error.slice(0, 500) }),
    }))
    .where('id', '=', id)
    .execute();
}

export async function entryAtSeq(db: Kysely<DB>, clientId: number, seq: number): Promise<AuditEntryRow | undefined> {
  return db.selectFrom('audit_entries').selectAll().where('client_id', '=', clientId).where('seq', '=', seq).executeTakeFirst();
}
