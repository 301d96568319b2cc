import { z } from 'zod';
import { PositiveId } from '../../../schemas';
import { ReportFormat } from '../../../csv';
import { PERIODS } from '#db/time-buckets';
import { LICENSE_TYPES } from '#policies/roles';

/** A whole UTC day. */
export const Day = z.iso.date({ message: 'must be a date, YYYY-MM-DD' });

export const DateRangeQuery = z.object({
  /** first day, inclusive (default: 30 days before `to`) */
  from: Day.optional(),
  /** last day, inclusive (default: today, UTC) */
  to: Day.optional(),
  format: ReportFormat,
});

export const MeterReportQuery = DateRangeQuery.extend({
  period: z.enum(PERIODS as [string, ...string[]]).default('day'),
  userId: PositiveId.optional(),
  templateId: PositiveId.optional(),
  organizationId: PositiveId.optional(),
  licenseType: z.enum(LICENSE_TYPES).optional(),
});
