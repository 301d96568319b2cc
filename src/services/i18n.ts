import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Kysely } from 'kysely';
import type { DB } from '#db/schema';
import type { Deps } from '#deps';
import type { Page, PageInput } from '#db/pagination';
import { mapPage } from '#db/pagination';
import { tenantScope } from '#db/tenant';
import type { Database } from '#db/connection';
import { LruCache } from '#lib/lru';
import { conflict, fieldError, notFound, type ErrorCode } from '#errors';
import { findClientById } from '#repos/clients';
import {
  findTranslation,
  getTranslation,
  insertTranslation,
  listTranslations,
  translationsFor,
  updateTranslationText,
  type TranslationFilter,
  type TranslationRow,
} from '#repos/translations';
import { recordChange, type ChangedBy } from './security-log';
import { withTransaction } from '#db/transaction';
// Static imports: tsc copies the JSON into dist and esbuild inlines it into the
// single executable, so the shipped bundles need no file at run time.
import en from '../../config/i18n/en.json';
import de from '../../config/i18n/de.json';

/** namespace → key → text */
export type Bundle = Record<string, Record<string, string>>;

import { appTexts } from '#lib/app-texts';

/** The appliance's own texts, by language; `app` is the floor app's (src/lib/app-texts.ts). */
const BUILT_IN: Record<string, Bundle> = { en: { ...en, app: appTexts('en') }, de: { ...de, app: appTexts('de') } };
export const DEFAULT_LANGUAGE = 'en';

/**
 * A BCP 47 tag in canonical form (`EN-us` → `en-US`), as Intl (ICU) judges
 * it. Returns null for anything malformed.
 */
export function canonicalLanguage(tag: string): string | null {
  if (tag.length === 0 || tag.length > 64 || tag === '*') return null;
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    return canonical ?? null;
  } catch {
    return null;
  }
}

/** @throws AppError VALIDATION_ERROR (422) naming `field` for a malformed tag */
export function requireLanguage(tag: string, field: string): string {
  const canonical = canonicalLanguage(tag);
  if (!canonical) throw fieldError(field, LANGUAGE_TAG_MESSAGE);
  return canonical;
}

const LANGUAGE_TAG_MESSAGE = 'not a well-formed BCP 47 language tag (e.g. en, de-AT, zh-Hant-TW)';

/** zod: a BCP 47 tag, canonicalised; malformed → 422 VALIDATION_ERROR. */
export const LanguageTag = z
  .string()
  .max(64)
  .transform((tag, ctx) => {
    const canonical = canonicalLanguage(tag);
    if (!canonical) {
      ctx.addIssue({ code: 'custom', message: LANGUAGE_TAG_MESSAGE });
      return z.NEVER;
    }
    return canonical;
  });
export const Namespace = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'letters, digits, _ . - (at most 64)');
export const TranslationKey = z.string().regex(/^[A-Za-z0-9_.:-]{1,200}$/, 'letters, digits, _ . : - (at most 200)');

/** Most specific first, ending in English: de-AT → [de-AT, de, en]; zh-Hant-TW → [zh-Hant-TW, zh-Hant, zh, en]. */
export function fallbackChain(language: string): string[] {
  const chain: string[] = [];
  const parts = language.split('-');
  for (let n = parts.length; n > 0; n--) {
    const tag = parts.slice(0, n).join('-');
    // a lone singleton (x, u, t) before an extension is not a language of its own
    if (n > 1 && parts[n - 1].length === 1) continue;
    chain.push(tag);
  }
  if (!chain.includes(DEFAULT_LANGUAGE)) chain.push(DEFAULT_LANGUAGE);
  return chain;
}

/** A strong validator of what an answer carries. */
export function etagOf(value: unknown): string {
  return `"${createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, 27)}"`;
}

export interface MergedBundle {
  language: string;
  /** the languages merged, most specific first */
  fallback: string[];
  namespaces: Bundle;
  etag: string;
}

// Merged bundles are read far more often than entries are written: on the
// embedded database they are kept per (client, language) until the next
// write, which is exact because only the daemon's own process writes
// translations there (the CLI has no command for them). Bounded, because
// every well-formed tag is accepted, from anyone, in Accept-Language. On
// PostgreSQL another node may write at any time, so every read goes to the
// database (one indexed query, as a cache miss does here).
const BUNDLES_KEPT = 256;
interface BundleCache {
  bundles: LruCache<string, MergedBundle>;
  /** translation writes so far: a bundle read before a write is not kept after it */
  writes: number;
}
const bundleCaches = new WeakMap<Database, BundleCache>();

function bundleCache(db: Database): BundleCache | undefined {
  if (db.dialect !== 'sqlite') return undefined;
  let cache = bundleCaches.get(db);
  if (!cache) bundleCaches.set(db, (cache = { bundles: new LruCache(BUNDLES_KEPT), writes: 0 }));
  return cache;
}

function forgetBundles(db: Database): void {
  const cache = bundleCache(db);
  if (!cache) return;
  cache.bundles.clear();
  cache.writes++;
}

/**
 * The bundle a client's users see in one language: for each language of the
 * fallback chain, least specific first, built-in < system < client override,
 * so a more specific language always wins (a German user sees the German
 * built-in text rather than the client's English override).
 */
export async function mergedBundle(deps: Deps, language: string, clientId: number | null): Promise<MergedBundle> {
  const cache = bundleCache(deps.db);
  const cacheKey = `${clientId ?? '-'}:${language}`;
  const cached = cache?.bundles.get(cacheKey);
  if (cached) return cached;
  const writesBefore = cache?.writes;
  const fallback = fallbackChain(language);
  const rows = await translationsFor(deps.db.kysely, fallback, clientId === null ? null : tenantScope(clientId));
  const namespaces = mergeTranslations(fallback, rows, clientId);
  const merged = { language, fallback, namespaces, etag: etagOf([language, namespaces]) };
  if (cache && cache.writes === writesBefore) cache.bundles.set(cacheKey, merged);
  return merged;
}

/**
 * The text for an error code in the best language the caller accepts that has
 * one. Built-in English is what the code already says (and more specifically),
 * so it counts as no translation: the next accepted language is tried, and an
 * English caller keeps the message unless an administrator overrode it.
 * One read of that code's entries for every accepted language, not a merged
 * bundle each: an error answer (a flood's 429 among them) costs at most one
 * small statement, and caches nothing a caller's tags choose.
 */
export async function translatedErrorMessage(
  deps: Deps,
  acceptLanguage: string,
  clientId: number | null,
  code: ErrorCode,
): Promise<string | null> {
  const chains = acceptedLanguages(acceptLanguage).map(fallbackChain);
  if (chains.length === 0) return null;
  const scope = clientId === null ? null : tenantScope(clientId);
  const rows = await translationsFor(deps.db.kysely, [...new Set(chains.flat())], scope, { namespace: 'errors', key: code });
  const builtInEnglish = BUILT_IN[DEFAULT_LANGUAGE].errors?.[code];
  for (const chain of chains) {
    const text = mergeTranslations(chain, rows, clientId, 'errors').errors?.[code];
    if (text !== undefined && text !== builtInEnglish) return text;
  }
  return null;
}

/**
 * One namespace's texts in a language, merged as a bundle is (built-in <
 * system < the client's override, along the fallback chain), read on `db` —
 * the caller's transaction when a message is written in one (notifications).
 */
export async function namespaceTexts(
  db: Kysely<DB>,
  language: string,
  clientId: number,
  namespace: string,
): Promise<Record<string, string>> {
  const fallback = fallbackChain(language);
  const rows = await translationsFor(db, fallback, tenantScope(clientId), { namespace });
  return mergeTranslations(fallback, rows, clientId, namespace)[namespace] ?? {};
}

/** `{name}` placeholders filled from `values`; an unknown name stays as written. */
export function fillPlaceholders(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{([A-Za-z]+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/**
 * The texts of a fallback chain, least specific language first, so a more
 * specific language always wins; within a language built-in < system < the
 * client's override. `only`: one namespace's (an error answer needs no other).
 */
function mergeTranslations(fallback: string[], rows: TranslationRow[], clientId: number | null, only?: string): Bundle {
  const namespaces: Bundle = {};
  const put = (namespace: string, key: string, text: string) => ((namespaces[namespace] ??= {})[key] = text);
  for (const lang of [...fallback].reverse()) {
    for (const [namespace, texts] of Object.entries(BUILT_IN[lang] ?? {})) {
      if (only === undefined || namespace === only) for (const [key, text] of Object.entries(texts)) put(namespace, key, text);
    }
    for (const owner of [null, clientId]) {
      for (const row of rows) if (row.language === lang && row.client_id === owner) put(row.namespace, row.key, row.text);
    }
  }
  return namespaces;
}

/** Accept-Language → well-formed tags by preference (q), at most 5, `*` and q=0 dropped. */
export function acceptedLanguages(header: string): string[] {
  return header
    .split(',')
    .slice(0, 20)
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { tag: canonicalLanguage(tag.trim()), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((l): l is { tag: string; q: number; index: number } => l.tag !== null && l.q > 0 && l.q <= 1)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .slice(0, 5)
    .map((l) => l.tag);
}

export interface TranslationEntry {
  id: number;
  clientId: number | null;
  language: string;
  namespace: string;
  key: string;
  text: string;
  createdAt: string;
  updatedAt: string;
}

function present(row: TranslationRow): TranslationEntry {
  return {
    id: row.id,
    clientId: row.client_id,
    language: row.language,
    namespace: row.namespace,
    key: row.key,
    text: row.text,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function listTranslationEntries(deps: Deps, filter: TranslationFilter, page: PageInput): Promise<Page<TranslationEntry>> {
  return mapPage(await listTranslations(deps.db.kysely, filter, page), present);
}

export interface NewTranslation {
  language: string;
  namespace: string;
  key: string;
  text: string;
  clientId?: number | null;
}

/**
 * Adds a system-wide text or (with clientId) one client's override.
 * @throws AppError NOT_FOUND for an unknown client; CONFLICT (details.id) when the entry exists (change it with PUT)
 */
export async function createTranslation(deps: Deps, input: NewTranslation, by: ChangedBy): Promise<TranslationEntry> {
  const clientId = input.clientId ?? null;
  if (clientId !== null && !(await findClientById(deps.db.kysely, clientId))) throw fieldError('clientId', 'no such client');
  const owner = { clientId, language: input.language, namespace: input.namespace, key: input.key };
  const existing = await findTranslation(deps.db.kysely, owner);
  if (existing) throw conflict('This translation exists; change it with PUT /api/admin/internationalization/:id', { id: existing.id });
  const now = deps.clock.now().toISOString();
  let row: TranslationRow;
  try {
    row = await withTransaction(deps.db, async (trx, afterCommit) => {
      const created = await insertTranslation(trx, {
        client_id: clientId,
        language: input.language,
        namespace: input.namespace,
        key: input.key,
        text: input.text,
        created_at: now,
        updated_at: now,
      });
      await recordChange({ deps, trx, afterCommit }, by, {
        event: 'i18n.translation_created',
        message: `Translation ${created.language} ${created.namespace}.${created.key} created`,
        clientId,
        target: { type: 'translation', id: created.id },
        after: { language: created.language, namespace: created.namespace, key: created.key, text: created.text },
        data: { translationId: created.id },
      });
      return created;
    });
  } catch (error) {
    const raced = await findTranslation(deps.db.kysely, owner);
    if (raced) throw conflict('This translation exists; change it with PUT /api/admin/internationalization/:id', { id: raced.id });
    throw error;
  }
  forgetBundles(deps.db);
  return present(row);
}

/** @throws AppError NOT_FOUND */
export async function changeTranslationText(deps: Deps, id: number, text: string, by: ChangedBy): Promise<TranslationEntry> {
  const row = await withTransaction(deps.db, async (trx, afterCommit) => {
    const before = await getTranslation(trx, id);
    const updated = before && (await updateTranslationText(trx, id, text, deps.clock.now().toISOString()));
    if (!before || !updated) throw notFound('Translation');
    await recordChange({ deps, trx, afterCommit }, by, {
      event: 'i18n.translation_changed',
      message: `Translation ${updated.language} ${updated.namespace}.${updated.key} changed`,
      clientId: updated.client_id,
      target: { type: 'translation', id },
      before: { text: before.text },
      after: { text: updated.text },
      data: { translationId: id },
    });
    return updated;
  });
  forgetBundles(deps.db);
  return present(row);
}
