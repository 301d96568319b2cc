import { RRule, type Options } from 'rrule';
import { isTimeZone } from '#lib/time-zones';

/**
 * Recurrence of schedules (docs/recurring-and-follow-up-jobs.md):
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
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** COUNT counts from the start, so such a rule is always expanded from it: bounded like a year of hourly jobs. */
export const MAX_COUNT = 1000;
/**
 * How many steps one expansion may take (a step: one FREQ period looked at, about 25 µs): what bounds its time
 * whatever the rule. The library walks period by period and checks its window only at an occurrence, so a rule that
 * never occurs (FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30) would walk to the year 9999 — a minute and more.
 */
export const EXPANSION_STEPS = 2000;
/**
 * How many steps all the expansions of one request may take together (a page of schedules, each asked for its
 * `nextOccurrences`): five expansions that find nothing. A schedule's next occurrences take a few steps each (a
 * weekly rule one a week), so a page of 100 ordinary schedules takes some hundreds; a page of rules that occur
 * rarely, each walking its 2,000 steps, would cost seconds in one query.
 */
export const REQUEST_EXPANSION_STEPS = 5 * EXPANSION_STEPS;

/** The steps left to one request's expansions (REQUEST_EXPANSION_STEPS at first): each takes what it walked. */
export interface ExpansionBudget {
  steps: number;
}

export interface RecurrenceProblem {
  path: 'recurrence' | 'startsAt' | 'timeZone';
  message: string;
}

/** A parsed rule: expand it with `occurrencesBetween`. */
export interface Recurrence {
  /** the RRULE's parts as parsed (no DTSTART) */
  readonly options: Partial<Options>;
  /** the first occurrence as a floating wall-clock time */
  readonly dtstart: Date;
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

const listOf = (value: number | number[] | null | undefined): number[] => (value == null ? [] : Array.isArray(value) ? value : [value]);
const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * What makes a rule recur more often than hourly, or its expansion unbounded, whatever its FREQ: every occurrence has
 * the minute and second of BYMINUTE and BYSECOND (of the start without them), so with one value of each two
 * occurrences are whole hours apart. FREQ=HOURLY steps INTERVAL hours from the start's hour: BYHOUR must name an
 * hour it reaches (the library would loop forever looking for one: FREQ=HOURLY;INTERVAL=24;BYHOUR=1 from 00:00).
 */
function frequencyProblems(options: Partial<Options>, dtstart: Date | undefined): string[] {
  const problems: string[] = [];
  // the library takes any number: an hour 25 is never reached, and looking for it loops forever
  for (const [part, values, min, max] of [
    ['BYHOUR', options.byhour, 0, 23],
    ['BYMINUTE', options.byminute, 0, 59],
    ['BYSECOND', options.bysecond, 0, 59],
    ['BYMONTH', options.bymonth, 1, 12],
    ['BYMONTHDAY', options.bymonthday, -31, 31],
    ['BYYEARDAY', options.byyearday, -366, 366],
    ['BYWEEKNO', options.byweekno, -53, 53],
  ] as const) {
    const list = listOf(values);
    if (list.some((v) => !Number.isInteger(v) || v < min || v > max || (min < 0 && v === 0)))
      problems.push(`${part} takes ${min < 0 ? `${min} to -1 and 1 to ${max}` : `${min} to ${max}`}`);
  }
  if (options.freq === undefined || options.freq > FINEST)
    problems.push('recurs at most hourly (FREQ=YEARLY, MONTHLY, WEEKLY, DAILY or HOURLY)');
  if ((options.interval ?? 1) < 1 || (options.count ?? 1) < 1) problems.push('INTERVAL and COUNT must be at least 1');
  if ((options.count ?? 0) > MAX_COUNT) problems.push(`COUNT is at most ${MAX_COUNT}`);
  if (listOf(options.byminute).length > 1 || listOf(options.bysecond).length > 1)
    problems.push('recurs at most hourly: one BYMINUTE and one BYSECOND at most');
  const byhour = listOf(options.byhour);
  if (options.freq === RRule.HOURLY && dtstart && byhour.length > 0) {
    const step = gcd(options.interval ?? 1, 24);
    if (!byhour.some((h) => (((h - dtstart.getUTCHours()) % step) + step) % step === 0))
      problems.push(`no BYHOUR is reached every ${options.interval ?? 1} hours from the start's hour`);
  }
  return problems;
}

/**
 * Parses an RRULE (`FREQ=WEEKLY;BYDAY=MO`, an optional `RRULE:` before it) starting at the local wall-clock
 * time `startsAt` in `timeZone`. DTSTART and TZID do not belong in it (they are `startsAt` and the zone), nor
 * rules that recur more often than hourly, nor rules whose first occurrence is not found within
 * EXPANSION_STEPS (one that never occurs, or hardly ever).
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
    if (options) for (const message of frequencyProblems(options, dtstart)) problems.push({ path: 'recurrence', message });
  }
  if (problems.length > 0 || !options || !dtstart) return { problems };
  const recurrence: Recurrence = { options, dtstart, timeZone };
  try {
    // the library checks some parts only when expanding (BYSETPOS, BYWEEKNO…): once here, so a bad rule is refused
    // when saved; and a rule whose first occurrence is not found within the steps is refused too
    const first = expandFloating(recurrence, dtstart, new Date(Date.UTC(9999, 0)), 1);
    if (first.cutShort)
      return {
        problems: [
          { path: 'recurrence', message: `occurs too rarely or never: no occurrence within ${EXPANSION_STEPS} steps of its start` },
        ],
      };
    return { recurrence };
  } catch (error) {
    return { problems: [{ path: 'recurrence', message: `not an RRULE: ${(error as Error).message}` }] };
  }
}

/**
 * The rule with its start moved forward to a period of the rule at or before `from` (floating): the library walks
 * from the start, so a schedule started years ago would cost years of steps at every expansion. Moving the start by
 * whole INTERVALs of FREQ keeps every occurrence after `from`: HOURLY, DAILY and WEEKLY periods are fixed lengths of
 * floating time (the start keeps its minute, time, weekday); MONTHLY and YEARLY move to the first day of a period,
 * the day and time the library would have taken from the start given explicitly. COUNT counts from the start: such
 * a rule is never moved (MAX_COUNT bounds it).
 */
function ruleFrom(recurrence: Recurrence, from: Date): RRule {
  const { options, dtstart } = recurrence;
  const interval = options.interval ?? 1;
  const base = { ...options, dtstart, tzid: null };
  if (options.count != null || from.getTime() <= dtstart.getTime()) return new RRule(base);
  const fixed = { [RRule.HOURLY]: HOUR, [RRule.DAILY]: DAY, [RRule.WEEKLY]: 7 * DAY }[options.freq as number];
  if (fixed !== undefined) {
    const step = interval * fixed;
    const periods = Math.floor((from.getTime() - dtstart.getTime()) / step);
    return new RRule({ ...base, dtstart: new Date(dtstart.getTime() + periods * step) });
  }
  const months = interval * (options.freq === RRule.YEARLY ? 12 : 1);
  const elapsed = (from.getUTCFullYear() - dtstart.getUTCFullYear()) * 12 + from.getUTCMonth() - dtstart.getUTCMonth();
  const periods = Math.floor(elapsed / months);
  if (periods < 1) return new RRule(base);
  // the library's defaults from the start (rrule parseoptions): a day only when no BY-day part is given
  const byDay = [options.byweekno, options.byyearday, options.bymonthday, options.byweekday].some((p) => listOf(p as never).length > 0);
  const explicit: Partial<Options> = {
    byhour: options.byhour ?? [dtstart.getUTCHours()],
    byminute: options.byminute ?? [dtstart.getUTCMinutes()],
    bysecond: options.bysecond ?? [0],
  };
  if (!byDay && options.byeaster == null) {
    explicit.bymonthday = [dtstart.getUTCDate()];
    if (options.freq === RRule.YEARLY) explicit.bymonth = options.bymonth ?? [dtstart.getUTCMonth() + 1];
  }
  const start = new Date(Date.UTC(dtstart.getUTCFullYear(), dtstart.getUTCMonth() + periods * months, 1));
  return new RRule({ ...base, ...explicit, dtstart: start });
}

/**
 * Walks the rule in floating time from `from` (inclusive) up to `until`, calling `visit` with each occurrence
 * until it answers false; at most EXPANSION_STEPS steps. The library reads the rule's INTERVAL once a step (rrule
 * 2.8 iter): that read counts the steps, and answering 0 ends the walk — the one way to stop a walk that finds
 * no occurrence. test/unit/recurrence.test.ts checks that it does.
 */
function walk(
  recurrence: Recurrence,
  from: Date,
  until: Date,
  visit: (floating: Date) => boolean,
  budget?: ExpansionBudget,
): { cutShort: boolean; budgetSpent: boolean } {
  const rule = ruleFrom(recurrence, from);
  const interval = rule.options.interval;
  const steps = Math.min(EXPANSION_STEPS, budget?.steps ?? EXPANSION_STEPS);
  let reads = 0;
  let cutShort = false;
  Object.defineProperty(rule.options, 'interval', {
    get: () => {
      // two reads a step (the check and the move to the next period)
      if (++reads <= 2 * steps) return interval;
      cutShort = true;
      return 0;
    },
  });
  let reachedEnd = false;
  rule.between(from, new Date(8.64e15), true, (floating) => {
    if (floating.getTime() > until.getTime()) {
      reachedEnd = true;
      return false;
    }
    return visit(floating);
  });
  if (budget) budget.steps -= Math.min(steps, Math.ceil(reads / 2));
  cutShort &&= !reachedEnd;
  return { cutShort, budgetSpent: cutShort && steps < EXPANSION_STEPS };
}

function expandFloating(recurrence: Recurrence, from: Date, until: Date, limit: number): { found: Date[]; cutShort: boolean } {
  const found: Date[] = [];
  const { cutShort } = walk(recurrence, from, until, (floating) => {
    found.push(floating);
    return found.length < limit;
  });
  return { found, cutShort: cutShort && found.length < limit };
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
 * The occurrences after `after` up to and including `until` (instants), in order, at most `limit`. `cutShort`: the
 * walk ran out of steps (EXPANSION_STEPS, or what `budget` had left) before reaching `until` or `limit`; what was
 * found is still right. `budgetSpent`: it ran out of the budget's steps (none were left: nothing was walked).
 */
export function occurrencesBetween(
  recurrence: Recurrence,
  after: Date,
  until: Date,
  limit: number,
  budget?: ExpansionBudget,
): { instants: Date[]; cutShort: boolean; budgetSpent: boolean } {
  if (until.getTime() <= after.getTime() || limit <= 0) return { instants: [], cutShort: false, budgetSpent: false };
  if (budget && budget.steps <= 0) return { instants: [], cutShort: true, budgetSpent: true };
  // the window in floating time, widened by a day each side (zone offsets are under 15 h)
  const found: Date[] = [];
  const seen = new Set<number>();
  const walked = walk(
    recurrence,
    new Date(after.getTime() - DAY),
    new Date(until.getTime() + DAY),
    (floating) => {
      const instant = instantOf(floating, recurrence.timeZone);
      const t = instant.getTime();
      // two wall-clock times in one gap land on one instant: one occurrence
      if (t > after.getTime() && t <= until.getTime() && !seen.has(t)) {
        seen.add(t);
        found.push(instant);
      }
      return found.length < limit;
    },
    budget,
  );
  const short = found.length < limit;
  return {
    instants: found.sort((a, b) => a.getTime() - b.getTime()).slice(0, limit),
    cutShort: walked.cutShort && short,
    budgetSpent: walked.budgetSpent && short,
  };
}
