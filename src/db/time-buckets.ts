import { sql, type RawBuilder } from 'kysely';
import type { Dialect } from './dialect';

/**
 * Time buckets of ISO-8601 UTC timestamp columns, for reports that group rows
 * by day, week or month in SQL. Day and month are prefixes of the stored text
 * (`substr`, portable). The week needs date arithmetic, which differs between
 * databases: that dialect-specific part lives here and nowhere else.
 */
export type Period = 'day' | 'week' | 'month';
export const PERIODS: readonly Period[] = ['day', 'week', 'month'];

/**
 * The bucket a timestamp falls in, as text: the day (`2026-01-07`), the
 * Monday starting its ISO week (`2026-01-05`), or the month (`2026-01`).
 * `bucketLabel` below computes the same labels in JavaScript.
 */
export function bucketOf(period: Period, column: string, dialect: Dialect): RawBuilder<string> {
  const ref = sql.ref(column);
  if (period === 'day') return sql<string>`substr(${ref}, 1, 10)`;
  if (period === 'month') return sql<string>`substr(${ref}, 1, 7)`;
  // PostgreSQL: date_trunc('week') starts weeks on Monday (ISO)
  if (dialect === 'postgres') return sql<string>`to_char(date_trunc('week', substr(${ref}, 1, 10)::date), 'YYYY-MM-DD')`;
  // SQLite: %w is 0 for Sunday; step back to the Monday of the same week
  return sql<string>`date(substr(${ref}, 1, 10), '-' || ((cast(strftime('%w', substr(${ref}, 1, 10)) as integer) + 6) % 7) || ' days')`;
}

const DAY_MS = 86_400_000;

/** The label `bucketOf` gives a UTC instant. */
export function bucketLabel(period: Period, at: Date): string {
  if (period === 'day') return at.toISOString().slice(0, 10);
  if (period === 'month') return at.toISOString().slice(0, 7);
  const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  const sinceMonday = (at.getUTCDay() + 6) % 7;
  return new Date(day - sinceMonday * DAY_MS).toISOString().slice(0, 10);
}

/** The start of the bucket after the one `at` falls in. */
function nextBucketStart(period: Period, at: Date): Date {
  const y = at.getUTCFullYear();
  const m = at.getUTCMonth();
  const d = at.getUTCDate();
  if (period === 'month') return new Date(Date.UTC(y, m + 1, 1));
  if (period === 'day') return new Date(Date.UTC(y, m, d + 1));
  return new Date(Date.UTC(y, m, d + 7 - ((at.getUTCDay() + 6) % 7)));
}

export interface TimeBucket {
  /** what `bucketOf` yields for the rows of this bucket */
  bucket: string;
  /** inclusive ISO-8601 start, clipped to the range */
  start: string;
  /** exclusive ISO-8601 end, clipped to the range */
  end: string;
}

/** Every bucket of [from, to), in order, the first and last clipped to the range. */
export function bucketsBetween(period: Period, from: Date, to: Date): TimeBucket[] {
  const buckets: TimeBucket[] = [];
  for (let start = from; start < to;) {
    const next = nextBucketStart(period, start);
    const end = next < to ? next : to;
    buckets.push({ bucket: bucketLabel(period, start), start: start.toISOString(), end: end.toISOString() });
    start = end;
  }
  return buckets;
}

/** How many buckets [from, to) spans, without building them (to refuse oversized ranges cheaply). */
export function countBuckets(period: Period, from: Date, to: Date): number {
  const days = Math.ceil((to.getTime() - from.getTime()) / DAY_MS);
  if (period === 'day') return days;
  if (period === 'week') return Math.ceil(days / 7) + 1;
  return (to.getUTCFullYear() - from.getUTCFullYear()) * 12 + to.getUTCMonth() - from.getUTCMonth() + 1;
}
