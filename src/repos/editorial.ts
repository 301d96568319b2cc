import type { Insertable, Kysely } from 'kysely';
import type { DB, EditorialEventsTable } from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';

/** Editorial analytics: raw events per template, aggregated on read. */

export interface EventRange {
  templateId: number;
  /** inclusive, ISO-8601 */
  from?: string;
  /** exclusive, ISO-8601 */
  to?: string;
}

/** Which of these template ids belong to the client. */
export async function clientTemplateIds(db: Kysely<DB>, scope: TenantScope, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await inTenant(db, scope)
    .selectFrom('templates')
    .select('id')
    .where('id', 'in', [...ids])
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** versionId → templateId for the client's versions among these ids. */
export async function templateOfVersions(db: Kysely<DB>, scope: TenantScope, ids: readonly number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await inTenant(db, scope)
    .selectFrom('template_versions')
    .select(['id', 'template_id'])
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((r) => [r.id, r.template_id]));
}

export async function insertEditorialEvents(
  db: Kysely<DB>,
  scope: TenantScope,
  events: Omit<Insertable<EditorialEventsTable>, 'client_id'>[],
): Promise<void> {
  if (events.length === 0) return;
  await db
    .insertInto('editorial_events')
    .values(events.map((e) => ({ ...e, client_id: scope.clientId })))
    .execute();
}

function inRange(db: Kysely<DB>, scope: TenantScope, range: EventRange) {
  let query = inTenant(db, scope).selectFrom('editorial_events').where('template_id', '=', range.templateId);
  if (range.from) query = query.where('at', '>=', range.from);
  if (range.to) query = query.where('at', '<', range.to);
  return query;
}

/** Number of events per type in the range. */
export async function countEventsByType(db: Kysely<DB>, scope: TenantScope, range: EventRange): Promise<Record<string, number>> {
  const rows = await inRange(db, scope, range)
    .select(({ fn }) => ['type', fn.countAll<number | string>().as('n')])
    .groupBy('type')
    .execute();
  // PostgreSQL returns count(*) as a bigint string
  return Object.fromEntries(rows.map((r) => [r.type, Number(r.n)]));
}

/** Every STEP_DWELL duration in the range, by step then duration (percentiles are computed by the caller). */
export async function dwellDurations(
  db: Kysely<DB>,
  scope: TenantScope,
  range: EventRange,
): Promise<{ step_id: string; duration_ms: number }[]> {
  const rows = await inRange(db, scope, range)
    .select(['step_id', 'duration_ms'])
    .where('type', '=', 'STEP_DWELL')
    .where('step_id', 'is not', null)
    .where('duration_ms', 'is not', null)
    .orderBy('step_id')
    .orderBy('duration_ms')
    .execute();
  return rows as { step_id: string; duration_ms: number }[];
}
