/**
 * The schedule form's recurrence builder as data: what a planner chooses (every day at 07:00, on chosen weekdays,
 * on a day of the month, every N hours) and the RFC 5545 RRULE and start the server takes
 * (docs/recurring-and-follow-up-jobs.md). Pure: no texts, no requests — the page words it, the server checks and
 * expands it (schedulePreview, createSchedule). A rule the builder cannot say stays "advanced": its text as written.
 */

export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** The last day of every month (BYMONTHDAY=-1): "the 31st" would skip the shorter months. */
export const LAST_DAY = -1;

export type RecurrenceKind = 'daily' | 'weekly' | 'monthly' | 'hourly' | 'advanced';

export interface RecurrenceChoice {
  kind: RecurrenceKind;
  /** the first occurrence's date, YYYY-MM-DD (the rule's start, in the client's time zone) */
  startDate: string;
  /** the time of day, HH:mm (hourly: the first occurrence's time) */
  time: string;
  /** every `interval` days, weeks or months; hourly: every `interval` hours */
  interval: number;
  /** weekly: the days, Monday first */
  weekdays: Weekday[];
  /** monthly: 1–28, or LAST_DAY */
  monthDay: number;
  /** advanced: the RRULE as written */
  rule: string;
}

export interface ScheduleRule {
  recurrence: string;
  /** YYYY-MM-DDTHH:mm, the wall-clock start in the client's time zone */
  startsAt: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;
export const MAX_HOURS = 23;
export const MAX_INTERVAL = 99;

/** A choice to start from: every day at `time` from `startDate`. */
export function defaultChoice(startDate: string, time = '07:00'): RecurrenceChoice {
  return { kind: 'daily', startDate, time, interval: 1, weekdays: ['MO'], monthDay: 1, rule: '' };
}

/** The RRULE and start a choice stands for. */
export function ruleOf(choice: RecurrenceChoice): ScheduleRule {
  const startsAt = `${choice.startDate}T${choice.time}`;
  const every = choice.interval > 1 ? `;INTERVAL=${choice.interval}` : '';
  switch (choice.kind) {
    case 'daily':
      return { recurrence: `FREQ=DAILY${every}`, startsAt };
    case 'weekly': {
      const days = WEEKDAYS.filter((day) => choice.weekdays.includes(day));
      return { recurrence: `FREQ=WEEKLY${every};BYDAY=${days.join(',')}`, startsAt };
    }
    case 'monthly':
      return { recurrence: `FREQ=MONTHLY${every};BYMONTHDAY=${choice.monthDay}`, startsAt };
    case 'hourly':
      return { recurrence: `FREQ=HOURLY${every}`, startsAt };
    case 'advanced':
      return { recurrence: choice.rule.trim().replace(/^RRULE:/i, ''), startsAt };
  }
}

/** The RRULE's parts by name (upper-case), or null when it is not a plain list of NAME=value. */
function partsOf(rule: string): Map<string, string> | null {
  const parts = new Map<string, string>();
  for (const part of rule
    .trim()
    .replace(/^RRULE:/i, '')
    .split(';')) {
    const match = /^([A-Z]+)=([A-Z0-9,+-]+)$/i.exec(part.trim());
    if (!match || parts.has(match[1].toUpperCase())) return null;
    parts.set(match[1].toUpperCase(), match[2].toUpperCase());
  }
  return parts;
}

/**
 * The choice a saved rule reads as (editing a schedule): one of the builder's shapes exactly as ruleOf writes it,
 * else "advanced" with the rule as it is — nothing is lost or rewritten.
 */
export function choiceOf(recurrence: string, startsAt: string): RecurrenceChoice {
  const [startDate = '', time = '00:00'] = startsAt.split('T');
  const base = defaultChoice(startDate, time);
  const advanced: RecurrenceChoice = { ...base, kind: 'advanced', rule: recurrence };
  const parts = partsOf(recurrence);
  if (!parts) return advanced;
  const interval = parts.has('INTERVAL') ? Number(parts.get('INTERVAL')) : 1;
  if (!Number.isInteger(interval) || interval < 1 || interval > MAX_INTERVAL) return advanced;
  const only = (...names: string[]) => [...parts.keys()].every((name) => name === 'FREQ' || name === 'INTERVAL' || names.includes(name));
  const freq = parts.get('FREQ');
  let choice: RecurrenceChoice = advanced;
  if (freq === 'DAILY' && only()) choice = { ...base, kind: 'daily', interval };
  else if (freq === 'HOURLY' && only() && interval <= MAX_HOURS) choice = { ...base, kind: 'hourly', interval };
  else if (freq === 'WEEKLY' && only('BYDAY') && parts.has('BYDAY')) {
    const days = parts.get('BYDAY')!.split(',');
    if (days.every((day) => (WEEKDAYS as readonly string[]).includes(day)))
      choice = { ...base, kind: 'weekly', interval, weekdays: WEEKDAYS.filter((day) => days.includes(day)) };
  } else if (freq === 'MONTHLY' && only('BYMONTHDAY') && parts.has('BYMONTHDAY')) {
    const day = Number(parts.get('BYMONTHDAY'));
    if (day === LAST_DAY || (Number.isInteger(day) && day >= 1 && day <= 28))
      choice = { ...base, kind: 'monthly', interval, monthDay: day };
  }
  // the builder writes it back the same way, or it is kept as written
  return choice.kind !== 'advanced' &&
    ruleOf(choice).recurrence ===
      recurrence
        .trim()
        .replace(/^RRULE:/i, '')
        .toUpperCase()
    ? choice
    : advanced;
}

export type ChoiceProblem = 'startDate' | 'time' | 'interval' | 'weekdays' | 'rule';

/**
 * What the page can tell before asking the server: a date, a time, an interval in range, a weekday for a weekly
 * rule, a rule for an advanced one. The server checks the rest (at most hourly, occurs at all…).
 */
export function problemsOf(choice: RecurrenceChoice): ChoiceProblem[] {
  const problems: ChoiceProblem[] = [];
  if (!DATE.test(choice.startDate)) problems.push('startDate');
  if (!TIME.test(choice.time)) problems.push('time');
  const max = choice.kind === 'hourly' ? MAX_HOURS : MAX_INTERVAL;
  if (choice.kind !== 'advanced' && !(Number.isInteger(choice.interval) && choice.interval >= 1 && choice.interval <= max))
    problems.push('interval');
  if (choice.kind === 'weekly' && choice.weekdays.length === 0) problems.push('weekdays');
  if (choice.kind === 'advanced' && !choice.rule.trim()) problems.push('rule');
  return problems;
}

/**
 * How the page words a rule (a list, a schedule's page): the text's key and its values, or null for a rule the
 * builder cannot say (shown as written). Weekdays come back as their index from Monday (0) for Intl names.
 */
export function summaryOf(
  recurrence: string,
  startsAt: string,
): { kind: Exclude<RecurrenceKind, 'advanced'>; interval: number; time: string; weekdays: number[]; monthDay: number } | null {
  const choice = choiceOf(recurrence, startsAt);
  if (choice.kind === 'advanced') return null;
  return {
    kind: choice.kind,
    interval: choice.interval,
    time: choice.time,
    weekdays: choice.weekdays.map((day) => WEEKDAYS.indexOf(day)),
    monthDay: choice.monthDay,
  };
}
