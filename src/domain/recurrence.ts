import { RRule, type Options } from 'rrule';
import { isTimeZone } from '#lib/time-zones';

/**
 * Recurrence of schedules (issue 33, docs/recurring-and-follow-up-jobs.md):
 * an RFC 5545 RRULE (parsed and expanded by the `rrule` library) whose first
 * occurrence is a local wall-clock time in an IANA time zone.
 *
 * Daylight saving: the rule is expanded in *floating* time — wall-clock
 * times, no zone, so "every Monday 07:00" stays 07:00 across a change — and
 * each wall-clock time is then placed in the zone as RFC 5545 (3.3.5) says:
 * a time that occurs twice (clocks going back) is its first occurrence; a
 * time that does not occur (clocks going forward) is read with the offset in
 * force before the gap, so 02:30 on the night clocks jump from 02:00 to 03:00
 * is 03:30. (The library's own TZID support returns "floating" Dates shifted
 * by the machine's zone: not used.)
 */

/** YYYY-MM-DDTHH:mm: a local wall-clock time (the DTSTART of the rule, in the schedule's zone). */
export const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;

/** Rules finer than this are refused: a schedule creates jobs, not ticks. */
const FINEST = RRule.HOURLY;
const DAY = 86_400_000;

export interface RecurrenceProblem {
  path: 'recurrence' | 'startsAt' | 'timeZone';
  message: string;
}

/** A parsed rule: expand it with `occurrencesBetween`. */
export interface Recurrence {
  readonly rule: RRule;
  readonly timeZone: string;
}

export { isTimeZone };

/** The wall-clock time `LOCAL_DATE_TIME` names, as a floating Date (its UTC fields are the wall clock), or undefined. */
export function floatingOf(local: string): Date | undefined {
  const m = LOCAL_DATE_TIME.exec(local);
  if (!m) return undefined;
  const [year, month, day, hour, minute] = m.slice(1).map(Number);
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute));
  // 2026-02-30 would roll over: refused rather than moved
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day || hour > 23 || minute > 59)
    return undefined;
  return date;
}

/**
 * Parses an RRULE (`FREQ=WEEKLY;BYDAY=MO`, an optional `RRULE:` before it) starting at the local wall-clock
 * time `startsAt` in `timeZone`. DTSTART and TZID do not belong in it (they are `startsAt` and the zone), nor
 * rules more frequent than hourly.
 */
export function parseRecurrence(
  rrule: string,
  startsAt: string,
  timeZone: string,
): { recurrence: Recurrence } | { problems: RecurrenceProblem[] } {
  const problems: RecurrenceProblem[] = [];
  const dtstart = floatingOf(startsAt);
  if (!dtstart) problems.push({ path: 'startsAt', message: 'must be a local date and time YYYY-MM-DDTHH:mm' });
  if (!isTimeZone(timeZone)) problems.push({ path: 'timeZone', message: `"${timeZone}" is not an IANA time zone` });
  const text = rrule.trim().replace(/^RRULE:/i, '');
  let options: Partial<Options> | undefined;
  if (
    text.length === 0 ||
    text.length > 500 ||
    /[\r\n]/.test(text) ||
    /(^|;)\s*(DTSTART|TZID)\b/i.test(text) ||
    !/(^|;)\s*FREQ=/i.test(text)
  ) {
    problems.push({
      path: 'recurrence',
      message: 'must be one RFC 5545 RRULE with FREQ (such as FREQ=WEEKLY;BYDAY=MO), without DTSTART or TZID',
    });
  } else {
    try {
      options = RRule.parseString(text);
    } catch (error) {
      problems.push({ path: 'recurrence', message: `not an RRULE: ${(error as Error).message}` });
    }
    if (options && (options.freq === undefined || options.freq > FINEST))
      problems.push({ path: 'recurrence', message: 'recurs at most hourly (FREQ=YEARLY, MONTHLY, WEEKLY, DAILY or HOURLY)' });
    if (options && ((options.interval ?? 1) < 1 || (options.count ?? 1) < 1))
      problems.push({ path: 'recurrence', message: 'INTERVAL and COUNT must be at least 1' });
  }
  if (problems.length > 0 || !options || !dtstart) return { problems };
  try {
    // UNTIL is compared with the floating wall-clock times: a UTC UNTIL is read as wall-clock time too
    const rule = new RRule({ ...options, dtstart, tzid: null });
    // the library checks some parts only when expanding (BYSETPOS, BYWEEKNO…): once here, so a bad rule is refused when saved
    // (bounded: after() would search a rule that never matches up to the year 9999)
    rule.between(dtstart, new Date(dtstart.getTime() + 366 * DAY), true, () => false);
    return { recurrence: { rule, timeZone } };
  } catch (error) {
    return { problems: [{ path: 'recurrence', message: `not an RRULE: ${(error as Error).message}` }] };
  }
}

const formats = new Map<string, Intl.DateTimeFormat>();
function formatFor(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(zone, format);
  }
  return format;
}

/** The zone's offset from UTC at an instant, in ms (wall clock minus UTC). */
export function offsetAt(instant: number, zone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatFor(zone).formatToParts(new Date(instant))) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  const wall = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  return wall - Math.floor(instant / 1000) * 1000;
}

/**
 * The instant of a wall-clock time in a zone (RFC 5545 3.3.5): of two (clocks going back) the first; in a gap
 * (clocks going forward) the offset before the gap. Offsets change at most once within a day of any instant.
 */
export function instantOf(floating: Date, zone: string): Date {
  const wall = floating.getTime();
  const before = offsetAt(wall - DAY, zone);
  const after = offsetAt(wall + DAY, zone);
  const candidates = [wall - before, wall - after].filter((instant) => instant + offsetAt(instant, zone) === wall);
  if (candidates.length > 0) return new Date(Math.min(...candidates));
  return new Date(wall - before);
}

/** The wall-clock time of an instant in a zone, YYYY-MM-DDTHH:mm. */
export function localOf(instant: Date, zone: string): string {
  return new Date(instant.getTime() + offsetAt(instant.getTime(), zone)).toISOString().slice(0, 16);
}

/**
 * The occurrences after `after` up to and including `until` (instants), in order, at most `limit`.
 */
export function occurrencesBetween(recurrence: Recurrence, after: Date, until: Date, limit: number): Date[] {
  if (until.getTime() <= after.getTime() || limit <= 0) return [];
  // the window in floating time, widened by a day each side (zone offsets are under 15 h)
  const found: Date[] = [];
  const seen = new Set<number>();
  recurrence.rule.between(new Date(after.getTime() - DAY), new Date(until.getTime() + DAY), true, (floating) => {
    const instant = instantOf(floating, recurrence.timeZone);
    const t = instant.getTime();
    // two wall-clock times in one gap land on one instant: one occurrence
    if (t > after.getTime() && t <= until.getTime() && !seen.has(t)) {
      seen.add(t);
      found.push(instant);
    }
    // floating times come in order and lie within a day of their instants: past the window, nothing more can be in it
    return found.length < limit && floating.getTime() <= until.getTime() + DAY;
  });
  return found.sort((a, b) => a.getTime() - b.getTime()).slice(0, limit);
}
