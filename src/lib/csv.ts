/**
 * The one CSV writer of the product (reports over HTTP, `wip logs export`):
 * RFC 4180 quoting, one record per line.
 *
 * A text cell that a spreadsheet would run as a formula (it begins with =, +,
 * -, @, tab or carriage return) is prefixed with a single quote, as OWASP
 * advises against CSV injection: names and emails are typed by users, and
 * these files are opened in spreadsheets. Numbers are written as they are.
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  let text = typeof value === 'string' ? value : JSON.stringify(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record, newline-terminated. */
export function csvRow(values: readonly unknown[]): string {
  return values.map(csvField).join(',') + '\n';
}

/** A header line and the records, as one text (for reports whose size is bounded by their buckets or clients). */
export function csvDocument<T>(columns: readonly { header: string; value: (row: T) => unknown }[], rows: readonly T[]): string {
  return csvRow(columns.map((c) => c.header)) + rows.map((row) => csvRow(columns.map((c) => c.value(row)))).join('');
}
