/**
 * Whether `zone` is an IANA time zone this runtime knows (Europe/Berlin, UTC…): what a client's time zone must be
 * (docs/recurring-and-follow-up-jobs.md). Its own module, free of the recurrence library, so the schemas that
 * check a zone load nothing more at start.
 */
export function isTimeZone(zone: string): boolean {
  if (typeof zone !== 'string' || zone.length === 0 || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
