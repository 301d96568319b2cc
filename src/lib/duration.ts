/**
 * Durations in configuration: a number of seconds, or a number with a unit
 * (`30s`, `15m`, `24h`, `30d`). Returned in milliseconds.
 * @throws Error when the text is not a duration.
 */
export function parseDuration(value: string | number): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) throw new Error(`invalid duration: ${value}`);
    return Math.round(value * 1000);
  }
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(value);
  if (!match) throw new Error(`invalid duration: "${value}" (use seconds, or 30s, 15m, 24h, 30d)`);
  const amount = Number(match[1]);
  const unit = match[2] ?? 's';
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[unit]!;
  return Math.round(amount * factor);
}
