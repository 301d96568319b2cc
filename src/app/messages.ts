import { IntlMessageFormat } from 'intl-messageformat';

/**
 * The app's texts are ICU MessageFormat (intl-messageformat): `{name}`
 * placeholders, `{n, plural, one {# step} other {# steps}}`, `{kind, select,
 * …}`. Numbers in placeholders are formatted in the text's language ("1.234").
 *
 * A text an administrator reworded (GET /api/client/translate) may be
 * malformed ICU ("{n, plural, one {# Schritt}" without its end): such a text
 * is shown as it is, its plain `{name}` placeholders filled — never a crash,
 * never an empty page. Tags (`<b>`) are plain text.
 */

export type MessageValues = Record<string, string | number>;

const compiled = new Map<string, IntlMessageFormat | null>();

function compile(text: string, language: string): IntlMessageFormat | null {
  const cacheKey = `${language}\u0000${text}`;
  let message = compiled.get(cacheKey);
  if (message === undefined) {
    try {
      message = new IntlMessageFormat(text, language, undefined, { ignoreTag: true });
    } catch {
      message = null;
    }
    compiled.set(cacheKey, message);
  }
  return message;
}

/** The text with its values, in `language`; the raw text (plain placeholders filled) when it is not valid ICU. */
export function formatMessage(text: string, language: string, values?: MessageValues): string {
  // a value the text needs is missing, or of the wrong kind: the raw text keeps the page readable
  return tryFormatMessage(text, language, values) ?? fillPlaceholders(text, values);
}

/** The text with its values, or null when it is malformed or needs a value not given. */
export function tryFormatMessage(text: string, language: string, values?: MessageValues): string | null {
  const message = compile(text, language);
  if (!message) return null;
  try {
    const result = message.format(values ?? {});
    return typeof result === 'string' ? result : null;
  } catch {
    return null;
  }
}

/** The fallback: `{name}` replaced by its value, everything else as written. */
export function fillPlaceholders(text: string, values?: MessageValues): string {
  if (!values) return text;
  return text.replace(/\{([A-Za-z]\w*)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/** Whether a text is valid ICU MessageFormat (the unit test checks every built-in text). */
export function isValidMessage(text: string, language: string): boolean {
  return compile(text, language) !== null;
}
