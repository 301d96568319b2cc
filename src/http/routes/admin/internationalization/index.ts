import { Page, TranslationEntry } from '#presenters/schemas';
import { z } from 'zod';
import { defineRoute, IdParams, type RouteSpec } from '../../../route';
import { PageQuery } from '#db/pagination';
import { PositiveId } from '../../../schemas';
import { changeTranslationText, createTranslation, LanguageTag, listTranslationEntries, Namespace, TranslationKey } from '#services/i18n';
import { changedBy } from '#services/security-log';

const Text = z.string().min(1).max(10_000);

export const adminInternationalizationRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/admin/internationalization',
    operationId: 'listTranslations',
    response: Page(TranslationEntry),
    summary:
      'List translation entries (system-wide: clientId null; client overrides), in id order; filter by clientId, language, namespace',
    auth: 'admin',
    query: PageQuery.extend({ clientId: PositiveId.optional(), language: LanguageTag.optional(), namespace: Namespace.optional() }),
    async handler({ deps, query }) {
      const { limit, cursor, ...filter } = query;
      return listTranslationEntries(deps, filter, { limit, cursor });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/admin/internationalization',
    operationId: 'createTranslation',
    response: TranslationEntry,
    errors: ['CONFLICT'],
    summary:
      "Add a translation {language (BCP 47), namespace, key, text, clientId?}: system-wide, or one client's override with clientId; an existing entry is 409 CONFLICT (details.id: change it with PUT)",
    auth: 'admin',
    status: 201,
    body: z
      .object({ language: LanguageTag, namespace: Namespace, key: TranslationKey, text: Text, clientId: PositiveId.nullable().optional() })
      .strict(),
    async handler({ deps, body, actor, meta }) {
      return createTranslation(deps, body, changedBy(actor, meta));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/admin/internationalization/:id',
    operationId: 'updateTranslation',
    response: TranslationEntry,
    summary: 'Change the text of a translation entry {text} (language, namespace, key and owner stay: add a new entry for another)',
    auth: 'admin',
    params: IdParams,
    body: z.object({ text: Text }).strict(),
    async handler({ deps, params, body, actor, meta }) {
      return changeTranslationText(deps, params.id, body.text, changedBy(actor, meta));
    },
  }),
];
