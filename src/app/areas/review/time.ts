/**
 * How long something has waited, in the reader's language ("3 hours ago",
 * "vor 3 Stunden"), by the browser's own Intl: the largest unit that fits.
 */
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

export function waitedFor(since: string, now: Date, language: string): string {
  const elapsed = Math.max(0, now.getTime() - Date.parse(since));
  const format = new Intl.RelativeTimeFormat(language, { numeric: 'auto' });
  for (const [unit, ms] of UNITS) if (elapsed >= ms) return format.format(-Math.floor(elapsed / ms), unit);
  return format.format(0, 'minute');
}

/** how long, in minutes, for sorting and for flagging the long waits */
export const waitedMinutes = (since: string | null, now: Date) => (since ? Math.floor((now.getTime() - Date.parse(since)) / 60_000) : 0);
