/**
 * Numbers and dates in the user's language, and numbers typed by the user:
 * the one place the app formats or parses them (docs/app.md, "Numbers and
 * dates"). Plain `Intl`, no DOM: the unit tests run it in Node.
 *
 * In a component: `const { format } = useI18n(); format.number(2.5)` →
 * "2,5" in German; `format.range(0.5, 2, 'bar')` → "0,5–2 bar";
 * `format.dateTime(iso)` → "07.12.2026, 06:56". A typed number:
 * `parseNumber(text, language)`.
 */

export interface Formats {
  /** 2.5 → "2,5" (de), 1234.5 → "1.234,5"; every digit the value has (up to 10 decimals) */
  number(value: number): string;
  /** a number for an input the user edits again: no grouping, so parseNumber reads it back */
  numberInput(value: number | null | undefined): string;
  /** a value with its unit: "2,6 bar" */
  quantity(value: number, unit?: string | null): string;
  /** limits: "0,5–2 bar", "≥ 0,5 bar", "≤ 2 bar", or '' without limits */
  range(min: number | null | undefined, max: number | null | undefined, unit?: string | null): string;
  /** "07.12.2026" (de), "Dec 7, 2026" (en); '' for none */
  date(iso: string | Date | null | undefined): string;
  /** "07.12.2026, 06:56" (de, 24 h), "Dec 7, 2026, 6:56 AM" (en); '' for none */
  dateTime(iso: string | Date | null | undefined): string;
  /** to the second, for records whose capture and receipt are often within a minute */
  exactTime(iso: string | Date | null | undefined): string;
  /** "06:56" */
  time(iso: string | Date | null | undefined): string;
  /** "a, b und c" */
  list(items: string[]): string;
}

const cache = new Map<string, Formats>();

export function formatsFor(language: string): Formats {
  let formats = cache.get(language);
  if (!formats) {
    formats = makeFormats(language);
    cache.set(language, formats);
  }
  return formats;
}

function makeFormats(language: string): Formats {
  const numberFormat = new Intl.NumberFormat(language, { maximumFractionDigits: 10 });
  const inputFormat = new Intl.NumberFormat(language, { maximumFractionDigits: 10, useGrouping: false });
  const dateFormat = new Intl.DateTimeFormat(language, { dateStyle: 'medium' });
  const dateTimeFormat = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' });
  const exactFormat = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'medium' });
  const timeFormat = new Intl.DateTimeFormat(language, { timeStyle: 'short' });
  const listFormat = new Intl.ListFormat(language, { style: 'long', type: 'conjunction' });
  const when = (format: Intl.DateTimeFormat) => (value: string | Date | null | undefined) => {
    if (!value) return '';
    const date = value instanceof Date ? value : new Date(value);
    return Number.isNaN(date.getTime()) ? String(value) : format.format(date);
  };
  const number = (value: number) => numberFormat.format(value);
  const quantity = (value: number, unit?: string | null) => (unit ? `${number(value)} ${unit}` : number(value));
  return {
    number,
    numberInput: (value) => (value === null || value === undefined || !Number.isFinite(value) ? '' : inputFormat.format(value)),
    quantity,
    range(min, max, unit) {
      const suffix = unit ? ` ${unit}` : '';
      if (min != null && max != null) return `${number(min)}–${number(max)}${suffix}`;
      if (min != null) return `≥ ${number(min)}${suffix}`;
      if (max != null) return `≤ ${number(max)}${suffix}`;
      return '';
    },
    date: when(dateFormat),
    dateTime: when(dateTimeFormat),
    exactTime: when(exactFormat),
    time: when(timeFormat),
    list: (items) => listFormat.format(items),
  };
}

/** A typed number: its value, or why it is not one (each reason has a text `common.number.<reason>`). */
export type ParsedNumber = { value: number } | { error: 'empty' | 'invalid' | 'ambiguous' };

/** The language's decimal separator: "," in German, "." in English. */
export function decimalSeparator(language: string): string {
  return new Intl.NumberFormat(language).formatToParts(1.5).find((part) => part.type === 'decimal')?.value ?? '.';
}

/**
 * A number as the user typed it, in their language: "2,5" is 2.5 in German,
 * "2.5" in English. Rules (unit-tested in test/unit/app-format.test.ts):
 * - the language's decimal separator, once, is the decimal point;
 * - the other one ("." in German, "," in English), once and NOT followed by
 *   exactly three digits, is read as a decimal point too ("2.5" is 2.5 in
 *   German: no one groups a single digit);
 * - anything that may be a group separator ("1.234" in German, "1,234" in
 *   English, "1.234,5", "1 234") is refused as `ambiguous`: 1234 or 1.234?
 *   The user types the number without grouping;
 * - a sign (+, -, −) in front; no exponent, no letters, no units.
 */
export function parseNumber(text: string, language: string): ParsedNumber {
  const trimmed = text.trim().replace(/^[−–]/, '-');
  if (trimmed === '') return { error: 'empty' };
  const decimal = decimalSeparator(language);
  const other = decimal === ',' ? '.' : ',';
  const match = /^([+-]?)(\d*)(?:([.,])(\d*))?$/.exec(trimmed);
  if (!match) return /^[+-]?[\d.,\s\u00a0\u202f']+$/.test(trimmed) ? { error: 'ambiguous' } : { error: 'invalid' };
  const [, sign, whole, separator, fraction] = match;
  if (whole === '' && (fraction ?? '') === '') return { error: 'invalid' };
  if (separator === other && fraction.length === 3 && whole !== '' && whole !== '0' && !whole.startsWith('0'))
    return { error: 'ambiguous' };
  const value = Number(`${sign}${whole || '0'}${separator ? `.${fraction || '0'}` : ''}`);
  return Number.isFinite(value) ? { value } : { error: 'invalid' };
}

/** The typed number or null (empty or not a number): for a check that only needs the value. */
export function numberOrNull(text: string, language: string): number | null {
  const parsed = parseNumber(text, language);
  return 'value' in parsed ? parsed.value : null;
}
