/**
 * A value of unknown type (a recorded field value, read from JSON) as text, the way String() writes it — except an
 * object, which String() would write as "[object Object]": that is written as its JSON.
 */
export function plainText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.join(',');
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  const primitive = value as number | boolean | bigint | symbol | null | undefined;
  return String(primitive);
}
