import type { Deps } from '#deps';
import { withTransaction } from '#db/transaction';
import { validationFailed } from '#errors';
import { loadCatalogueByIds } from '#repos/catalogue';
import { insertReadings, storedReadingIds } from '#repos/sensors';
import type { UserActor } from './actor';
import { requirePermission } from '#policies/permissions';

/** Readings per request: a device buffering offline sends in batches of at most this many. */
export const MAX_READINGS_PER_BATCH = 1000;

export interface ReadingInput {
  sensorId: number;
  readingId: string;
  value: number;
  /** ISO-8601 UTC: when the value was measured */
  timestamp: string;
}

export interface UpdateSensorsResult {
  accepted: number;
  duplicates: number;
}

/**
 * Stores a batch of readings idempotently by `readingId` (unique per client):
 * a reading whose id is already stored — or appears earlier in the same batch
 * — is a duplicate, counted and not stored again, so a device may resend a
 * batch after a lost answer. A sensorId the client does not have (unknown or
 * another client's) refuses the whole batch with VALIDATION_ERROR naming each
 * such reading: a device misconfiguration should be seen, not half-stored.
 * Readings are telemetry, not changes to a record, so they are not audited.
 * @throws AppError FORBIDDEN unless admin or operator; VALIDATION_ERROR naming `body.readings.<i>.sensorId`
 */
export async function updateSensors(deps: Deps, actor: UserActor, readings: ReadingInput[]): Promise<UpdateSensorsResult> {
  requirePermission(actor.roles, 'sendReadings');
  const receivedAt = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: actor.scope.clientId }, async (trx) => {
    const sensorIds = [...new Set(readings.map((r) => r.sensorId))];
    const known = new Set((await loadCatalogueByIds(trx, actor.scope, 'sensors', sensorIds)).map((s) => s.id));
    const unknown = readings.flatMap((r, i) =>
      known.has(r.sensorId)
        ? []
        : [{ path: `body.readings.${i}.sensorId`, message: `unknown sensor ${r.sensorId} (reading ${r.readingId})` }],
    );
    if (unknown.length > 0) throw validationFailed({ fields: unknown }, 'Unknown sensor');

    const seen = await storedReadingIds(
      trx,
      actor.scope,
      readings.map((r) => r.readingId),
    );
    const fresh = readings.filter((r) => {
      if (seen.has(r.readingId)) return false;
      seen.add(r.readingId);
      return true;
    });
    await insertReadings(
      trx,
      actor.scope,
      fresh.map((r) => ({
        sensor_id: r.sensorId,
        reading_id: r.readingId,
        value: r.value,
        measured_at: r.timestamp,
        received_at: receivedAt,
      })),
    );
    return { accepted: fresh.length, duplicates: readings.length - fresh.length };
  });
}
