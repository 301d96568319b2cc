import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../../../route';
import type { AppContext } from '../../../state';
import { etagOf, requireLanguage, LanguageTag, mergedBundle, Namespace, TranslationKey } from '#services/i18n';

// Bundles change only when an administrator edits an entry: clients keep them
// and revalidate with If-None-Match (304 when unchanged). private: a bundle
// carries the client's overrides.
const REVALIDATE = 'private, no-cache';

/** 304 when the client already holds this bundle; otherwise sets the ETag. */
function notModified(ctx: AppContext, etag: string): boolean {
  ctx.set('ETag', etag);
  const match = ctx.get('If-None-Match');
  if (!match || !match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*')) return false;
  ctx.status = 304;
  ctx.body = null;
  return true;
}

/** key → text */
const Texts = z.record(z.string(), z.string());
/** A merged text bundle of a language (services/i18n mergedBundle). */
const TranslationBundle = z
  .object({ language: z.string(), fallback: z.array(z.string()), namespaces: z.record(z.string(), Texts) })
  .meta({ id: 'TranslationBundle' });
/** The texts of one namespace of a merged bundle. */
const NamespaceTranslations = z
  .object({ language: z.string(), namespace: z.string(), translations: Texts })
  .meta({ id: 'NamespaceTranslations' });

export const clientI18nRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/client/internalization/:lang',
    operationId: 'getTranslationBundle',
    produces: { type: 'application/json', etag: true },
    response: TranslationBundle,
    errors: ['NOT_FOUND', 'VALIDATION_ERROR'],
    summary:
      'The merged text bundle of a language (built-in < system < client override; fallback de-AT → de → en): {language, fallback, namespaces: {ns: {key: text}}}; ETag/304; a malformed tag is 422',
    auth: 'user',
    cacheControl: REVALIDATE,
    // a path that names a language, but a malformed one is a validation error (422), not an unknown resource
    params: z.object({ lang: z.string() }),
    async handler({ deps, actor, params, ctx }) {
      const bundle = await mergedBundle(deps, requireLanguage(params.lang, 'lang'), actor.clientId);
      if (notModified(ctx, bundle.etag)) return undefined;
      return { language: bundle.language, fallback: bundle.fallback, namespaces: bundle.namespaces };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/translate',
    operationId: 'translate',
    produces: { type: 'application/json', etag: true },
    response: NamespaceTranslations,
    summary:
      'Texts of one namespace in a language, merged like internalization/:lang: {language, namespace, translations: {key: text}} (only `keys`, comma-separated, when given; keys without a text are left out); ETag/304',
    auth: 'user',
    cacheControl: REVALIDATE,
    query: z.object({
      lang: LanguageTag,
      namespace: Namespace,
      keys: z
        .string()
        .max(10_000)
        .transform((v) =>
          v
            .split(',')
            .map((k) => k.trim())
            .filter(Boolean),
        )
        .pipe(z.array(TranslationKey).max(500))
        .optional(),
    }),
    async handler({ deps, actor, query, ctx }) {
      const bundle = await mergedBundle(deps, query.lang, actor.clientId);
      const texts = bundle.namespaces[query.namespace] ?? {};
      const translations = query.keys
        ? Object.fromEntries(query.keys.filter((k) => Object.hasOwn(texts, k)).map((k) => [k, texts[k]]))
        : texts;
      const data = { language: bundle.language, namespace: query.namespace, translations };
      if (notModified(ctx, etagOf(data))) return undefined;
      return data;
    },
  }),
];
