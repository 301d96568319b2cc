import { z } from 'zod';
import { payloadTooLarge } from '#services/files';
import { exportTranslation, importTranslation, MAX_XLIFF_BYTES, translationLanguage } from '#services/translations';
import { TranslationImport } from '#presenters/schemas';
import { defineRoute, principalBudget, type RouteSpec } from '../../../route';
import type { AppContext } from '../../../state';

/**
 * Translated instructions (docs/translated-instructions.md): a version's texts
 * as an XLIFF 2.0 file for translators, and the translated file brought back.
 */

const PositiveId = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);
/** `:lang` of `:lang.xlf`; whether it is a well-formed BCP 47 tag is checked by the handler (422 naming path.lang, not 404) */
const TranslationParams = z.object({ id: PositiveId, versionId: PositiveId, lang: z.string().min(1).max(64) });

/** Translators work file by file: a budget per user. */
const perCaller = (max: number) => principalBudget('translations', max, 60_000);

const languageOf = (tag: string) => translationLanguage(tag, 'path.lang');

/** The request body as UTF-8 text, read up to MAX_XLIFF_BYTES (413 past it, before the rest is read). */
async function readText(ctx: AppContext): Promise<string> {
  const declared = ctx.request.length;
  if (declared && declared > MAX_XLIFF_BYTES) throw payloadTooLarge(MAX_XLIFF_BYTES);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_XLIFF_BYTES) throw payloadTooLarge(MAX_XLIFF_BYTES);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const XLIFF = 'application/xliff+xml';

export const clientTranslationRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/client/templates/:id/versions/:versionId/translations/:lang.xlf',
    operationId: 'exportVersionTranslation',
    produces: { type: XLIFF, attachment: true },
    errors: ['VALIDATION_ERROR'],
    summary:
      "A version's texts (section and step titles, step bodies, field and option labels) as an XLIFF 2.0 file for translators into :lang (BCP 47): each unit's source, and its target where the translation has one — state translated (final once approved), or initial with a note when its source changed since (stale). docs/translated-instructions.md",
    auth: 'user',
    params: TranslationParams,
    rateLimit: perCaller(120),
    async handler({ deps, actor, params, ctx }) {
      const file = await exportTranslation(deps, actor, params.id, params.versionId, languageOf(params.lang));
      ctx.attachment(file.fileName);
      ctx.type = `${XLIFF}; charset=utf-8`;
      ctx.body = file.xml;
      return undefined;
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/client/templates/:id/versions/:versionId/translations/:lang.xlf',
    operationId: 'importVersionTranslation',
    response: TranslationImport,
    requestBody: { [XLIFF]: z.string().describe('an XLIFF 2.0 file as GET exported it, with targets') },
    errors: ['VALIDATION_ERROR', 'VERSION_NOT_EDITABLE'],
    summary:
      "Author: bring a translated XLIFF 2.0 file (application/xliff+xml, also application/xml or text/xml; at most 8 MiB) for the version into :lang. Each unit with a target becomes the translation of the source the file carries; an untouched `initial` unit stays as it was; the translation's approval is withdrawn when its units change (approveTranslation in GraphQL). 400 BAD_REQUEST for a file that is not XML or not XLIFF 2.0, 422 VALIDATION_ERROR for another version's or language's file or unknown unit ids (details.fields), 409 VERSION_NOT_EDITABLE on a retired version",
    auth: 'user',
    permission: 'author',
    accepts: 'xliff',
    params: TranslationParams,
    rateLimit: perCaller(60),
    async handler({ deps, actor, params, ctx }) {
      const language = languageOf(params.lang);
      const result = await importTranslation(deps, actor, params.id, params.versionId, language, await readText(ctx));
      const t = result.translation;
      return {
        versionId: t.versionId,
        language: t.language,
        approved: t.approved,
        unitsHash: t.unitsHash,
        changed: result.changed,
        unchanged: result.unchanged,
        counts: t.counts,
      };
    },
  }),
];
