import type { Formats } from './format';
import type { Translate } from './i18n';

/**
 * What a deviation says, in the reader's language: a value out of limits as
 * "p_in = 2,6 bar (außerhalb 0,5–2 bar)". The server's `detail` of
 * OUT_OF_LIMITS is "2.6 outside 0.5..2 bar" (src/domain/deviations.ts), read
 * back here into numbers; any other detail (the operator's reason, a fault)
 * is a person's own words, shown as written.
 */
export function deviationText(
  t: Translate,
  format: Formats,
  d: { kind: string; detail: string; fieldKey?: string | null; value?: unknown },
): string {
  const parts = d.kind === 'OUT_OF_LIMITS' ? /^(.+) outside (-∞|-?[\d.e+-]+)\.\.(∞|-?[\d.e+-]+)(?: (.+))?$/.exec(d.detail) : null;
  if (parts) {
    const [, shown, min, max, unit] = parts;
    const bound = (text: string) => (text.includes('∞') ? null : Number(text));
    const value = d.value !== undefined ? d.value : safeJson(shown);
    const text = t('common.deviation.outside', {
      value: typeof value === 'number' ? format.quantity(value, unit) : shown,
      limits: format.range(bound(min), bound(max), unit),
    });
    return d.fieldKey ? `${d.fieldKey} = ${text}` : text;
  }
  return [d.fieldKey && d.value != null ? `${d.fieldKey} = ${JSON.stringify(d.value)}` : '', d.detail].filter(Boolean).join(': ');
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
