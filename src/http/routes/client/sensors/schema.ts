import { z } from 'zod';
import { IsoDateTime, PositiveId } from '../../../schemas';
import { MAX_READINGS_PER_BATCH } from '#services/sensors';

const Reading = z
  .object({
    sensorId: PositiveId,
    // the sender's own id for the reading (a UUID, a device counter…): what makes resending safe
    readingId: z.string().trim().min(1).max(128),
    value: z.number().finite(),
    timestamp: IsoDateTime,
  })
  .strict();

export const UpdateSensors = z.object({ readings: z.array(Reading).min(1).max(MAX_READINGS_PER_BATCH) }).strict();
