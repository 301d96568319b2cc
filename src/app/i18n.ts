import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { APP_LANGUAGES, appTexts, type AppLanguage } from '../lib/app-texts';
import { api, query } from './api/client';

/**
 * The app's texts: the `app` namespace of the server's i18n bundles
 * (config/i18n/app/<area>.<lang>.json). The built-in English and German are
 * bundled into the app, so the sign-in page and a start without network have
 * every text; once signed in, the client's overrides of the namespace come
 * from GET /api/client/translate (an administrator may reword any text).
 *
 * In a component: `const t = useT(); t('shell.nav.home')`, with `{name}`
 * placeholders: `t('operator.steps.of', { n: 2, total: 5 })`. A missing key
 * shows the key itself (and a test that reads the page finds it).
 */

export type Texts = Record<string, string>;
export type Translate = (key: string, values?: Record<string, string | number>) => string;

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

export function translator(texts: Texts): Translate {
  return (key, values) => {
    const text = texts[key] ?? key;
    if (!values) return text;
    return text.replace(/\{([A-Za-z]+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
  };
}

export interface I18n {
  language: AppLanguage;
  t: Translate;
  /** number and date formatting in the user's language */
  formatDate: (iso: string | null | undefined, withTime?: boolean) => string;
  setLanguage: (language: AppLanguage) => Promise<void>;
}

export function formatterFor(language: AppLanguage): I18n['formatDate'] {
  const date = new Intl.DateTimeFormat(language, { dateStyle: 'medium' });
  const dateTime = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' });
  return (iso, withTime = false) => (iso ? (withTime ? dateTime : date).format(new Date(iso)) : '');
}

const fallback: I18n = {
  language: 'en',
  t: translator(builtInTexts('en')),
  formatDate: formatterFor('en'),
  setLanguage: async () => undefined,
};

export const I18nContext = createContext<I18n>(fallback);

export function useI18n(): I18n {
  return useContext(I18nContext);
}

export function useT(): Translate {
  return useContext(I18nContext).t;
}
