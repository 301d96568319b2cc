import { IntlMessageFormat } from 'intl-messageformat';

/**
 * The app's texts are ICU MessageFormat (intl-messageformat): `{name}`
 * placeholders, `{n, plural, one {# step} other {# steps}}`, `{kind, select,
 * …}`. A plain `{name}` shows its value as given (a job id 1234 stays "1234";
 * a quantity is formatted with src/app/format.ts first); a plural's `#` and
 * `{x, number}` are formatted in the text's language ("1.234").
 *
 * A text an administrator reworded (GET /api/client/translate) may be
 * malformed ICU ("{n, plural, one {# Schritt}" without its end): such a text
 * is shown as it is, its plain `{name}` placeholders filled — never a crash,
 * never an empty page. Tags (`<b>`) are plain text.
 */

export type MessageValues = Record<string, string | number>;

interface Compiled {
  message: IntlMessageFormat;
  /** the arguments used as plain `{name}`: given as text, so ICU does not group a number (an id, a year) */
  plain: Set<string>;
}

type Ast = ReturnType<IntlMessageFormat['getAst']>;

const compiled = new Map<string, Compiled | null>();

function compile(text: string, language: string): Compiled | null {
  const cacheKey = `${language}\u0000${text}`;
  let entry = compiled.get(cacheKey);
  if (entry === undefined) {
    try {
      const message = new IntlMessageFormat(text, language, undefined, { ignoreTag: true });
      entry = { message, plain: plainArguments(message.getAst()) };
    } catch {
      entry = null;
    }
    compiled.set(cacheKey, entry);
  }
  return entry;
}

function plainArguments(ast: Ast, into = new Set<string>()): Set<string> {
  for (const element of ast) {
    // TYPE.argument of @formatjs/icu-messageformat-parser: a bare `{name}`
    if ((element.type as number) === 1 && 'value' in element && typeof element.value === 'string') into.add(element.value);
    if ('options' in element)
      for (const option of Object.values(element.options as Record<string, { value: Ast }>)) plainArguments(option.value, into);
  }
  return into;
}

/** The text with its values, in `language`; the raw text (plain placeholders filled) when it is not valid ICU. */
export function formatMessage(text: string, language: string, values?: MessageValues): string {
  // a value the text needs is missing, or of the wrong kind: the raw text keeps the page readable
  return tryFormatMessage(text, language, values) ?? fillPlaceholders(text, values);
}

/** The text with its values, or null when it is malformed or needs a value not given. */
export function tryFormatMessage(text: string, language: string, values?: MessageValues): string | null {
  const entry = compile(text, language);
  if (!entry) return null;
  const given: MessageValues = { ...values };
  for (const name of entry.plain) if (typeof given[name] === 'number') given[name] = String(given[name]);
  try {
    const result = entry.message.format(given);
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
