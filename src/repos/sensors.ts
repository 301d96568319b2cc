import type { Insertable, Kysely } from 'kysely';
import type { DB, SensorReadingRow, SensorReadingsTable } from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';

/** Sensor readings: append-only telemetry, one row per sender-chosen readingId within a client. */

// Well under every database's bound-parameter limit, for `in (…)` lists.
const IN_CHUNK = 500;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += IN_CHUNK) out.push(items.slice(i, i + IN_CHUNK));
  return out;
}

/** Which of these reading ids the client already stored. */
export async function storedReadingIds(db: Kysely<DB>, scope: TenantScope, readingIds: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const part of chunks(readingIds)) {
    const rows = await inTenant(db, scope).selectFrom('sensor_readings').select('reading_id').where('reading_id', 'in', part).execute();
    for (const row of rows) found.add(row.reading_id);
  }
  return found;
}

export async function insertReadings(
  db: Kysely<DB>,
  scope: TenantScope,
  readings: Omit<Insertable<SensorReadingsTable>, 'client_id'>[],
): Promise<void> {
  for (const part of chunks(readings)) {
    await db
      .insertInto('sensor_readings')
      .values(part.map((r) => ({ ...r, client_id: scope.clientId })))
      .execute();
  }
}

/**
 * The newest reading (by measurement time, then arrival) of each of these
 * sensors, one statement for the lot: the rows at each sensor's max
 * measured_at, ties resolved here.
 */
export async function latestReadings(db: Kysely<DB>, scope: TenantScope, sensorIds: readonly number[]): Promise<SensorReadingRow[]> {
  if (sensorIds.length === 0) return [];
  const rows = await inTenant(db, scope)
    .selectFrom('sensor_readings')
    .selectAll()
    .where('sensor_id', 'in', [...sensorIds])
    .where(({ eb, selectFrom }) =>
      eb(
        'measured_at',
        '=',
        selectFrom('sensor_readings as newest')
          .select(({ fn }) => fn.max('newest.measured_at').as('m'))
          .whereRef('newest.client_id', '=', 'sensor_readings.client_id')
          .whereRef('newest.sensor_id', '=', 'sensor_readings.sensor_id'),
      ),
    )
    .execute();
  const bySensor = new Map<number, SensorReadingRow>();
  for (const row of rows) {
    const kept = bySensor.get(row.sensor_id);
    if (!kept || row.id > kept.id) bySensor.set(row.sensor_id, row);
  }
  return [...bySensor.values()];
}

/**
 * The newest reading of one sensor of the client, or undefined (no reading,
 * or not the client's sensor). Pass the transaction when reading it for a
 * recording, so the value is the one current when the record is written.
 */
export async function latestReading(db: Kysely<DB>, scope: TenantScope, sensorId: number): Promise<SensorReadingRow | undefined> {
  return inTenant(db, scope)
    .selectFrom('sensor_readings')
    .selectAll()
    .where('sensor_id', '=', sensorId)
    .orderBy('measured_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}
