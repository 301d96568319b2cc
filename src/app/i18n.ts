import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { APP_LANGUAGES, appTexts, type AppLanguage } from '../lib/app-texts';
import { api, query } from './api/client';
import { errorText, type Refusal } from './error-text';
import { formatsFor, parseNumber, type Formats } from './format';
import { formatMessage, type MessageValues } from './messages';

/**
 * The app's texts: the `app` namespace of the server's i18n bundles
 * (config/i18n/app/<area>.<lang>.json). The built-in English and German are
 * bundled into the app, so the sign-in page and a start without network have
 * every text; once signed in, the client's overrides of the namespace come
 * from GET /api/client/translate (an administrator may reword any text).
 *
 * In a component: `const t = useT(); t('shell.nav.home')`, with `{name}`
 * placeholders: `t('operator.steps.of', { n: 2, total: 5 })`. Texts are ICU
 * MessageFormat (src/app/messages.ts): a count is a plural, `{n, plural, one
 * {# step} other {# steps}}`, never "step(s)". A missing key shows the key
 * itself (and a test that reads the page finds it). Numbers and dates:
 * `useI18n().format` (src/app/format.ts).
 */

export type Texts = Record<string, string>;
export type Translate = (key: string, values?: MessageValues) => string;

const LANGUAGE_KEY = 'wip.app.language';

export function isAppLanguage(tag: string | null | undefined): tag is AppLanguage {
  return !!tag && (APP_LANGUAGES as readonly string[]).includes(tag);
}

/** The best of the app's languages for a BCP 47 tag (de-AT → de), or null. */
export function appLanguageOf(tag: string | null | undefined): AppLanguage | null {
  if (!tag) return null;
  const base = tag.toLowerCase().split('-')[0];
  return isAppLanguage(base) ? base : null;
}

/** Before sign-in: the language last used on this device, else the browser's, else English. */
export function initialLanguage(): AppLanguage {
  const stored = appLanguageOf(safeStorage()?.getItem(LANGUAGE_KEY));
  if (stored) return stored;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const language = appLanguageOf(tag);
    if (language) return language;
  }
  return 'en';
}

export function rememberLanguage(language: AppLanguage): void {
  safeStorage()?.setItem(LANGUAGE_KEY, language);
}

function safeStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** The built-in texts of a language (no network). */
export function builtInTexts(language: AppLanguage): Texts {
  return language === 'en' ? appTexts('en') : { ...appTexts('en'), ...appTexts(language) };
}

/** The client's texts (built-in < system < client override, merged by the server); the built-in ones when offline. */
export async function clientTexts(language: AppLanguage): Promise<Texts> {
  try {
    const answer = await api<{ translations: Texts }>('GET', `/api/client/translate${query({ lang: language, namespace: 'app' })}`);
    return { ...builtInTexts(language), ...answer.translations };
  } catch {
    return builtInTexts(language);
  }
}

/** t() over a language's texts: ICU MessageFormat in that language, the raw text when a text is malformed. */
export function translator(texts: Texts, language: AppLanguage = 'en'): Translate {
  return (key, values) => {
    const text = texts[key];
    return text === undefined ? key : formatMessage(text, language, values);
  };
}

export interface I18n {
  language: AppLanguage;
  t: Translate;
  /** numbers, limits, dates and times in the user's language (src/app/format.ts) */
  format: Formats;
  /** a date ("07.12.2026") or, withTime, a date and time ("07.12.2026, 06:56"): format.date / format.dateTime */
  formatDate: (iso: string | null | undefined, withTime?: boolean) => string;
  /** the app's text of a refusal (an error code with details), the server's message only for a code it has no text for */
  errorText: (refusal: Refusal) => string;
  /** a role id as its name: "approver" → "Freigeber" */
  roleName: (role: string) => string;
  /** a typed number in the user's language ("2,5" → 2.5), or the text saying why it is not one */
  readNumber: (text: string) => { value: number } | { error: string };
  setLanguage: (language: AppLanguage) => Promise<void>;
}

/** Everything language-bound of the context, for a language and its texts (the shell adds setLanguage). */
export function i18nFor(language: AppLanguage, texts: Texts): Omit<I18n, 'setLanguage'> {
  const t = translator(texts, language);
  const format = formatsFor(language);
  const hasText = (key: string) => key in texts;
  return {
    language,
    t,
    format,
    formatDate: formatterFor(language),
    errorText: (refusal) => errorText({ language, texts, t, format }, refusal),
    roleName: (role) => (hasText(`common.role.${role}`) ? t(`common.role.${role}`) : role),
    readNumber(text) {
      const parsed = parseNumber(text, language);
      if ('value' in parsed) return parsed;
      return { error: t(`common.number.${parsed.error}`, { example: format.numberInput(2.5) }) };
    },
  };
}

export function formatterFor(language: AppLanguage): I18n['formatDate'] {
  const format = formatsFor(language);
  return (iso, withTime = false) => (withTime ? format.dateTime(iso) : format.date(iso));
}

const fallback: I18n = { ...i18nFor('en', builtInTexts('en')), setLanguage: async () => undefined };

export const I18nContext = createContext<I18n>(fallback);

export function useI18n(): I18n {
  return useContext(I18nContext);
}

export function useT(): Translate {
  return useContext(I18nContext).t;
}
