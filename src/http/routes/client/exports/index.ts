import { z } from 'zod';
import { UploadParts } from '../../../schemas';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Deps } from '#deps';
import { maxUploadBytes } from '#config';
import { TEMP_DIR } from '#storage';
import { payloadTooLarge } from '#services/files';
import { readMultipart } from '../../../multipart';
import { defineRoute, IdParams, principalBudget, type RouteSpec } from '../../../route';
import type { AppContext } from '../../../state';
import { fieldError } from '#errors';
import { findLatestVersion } from '#repos/template-versions';
import { copyEntities } from '#services/copy-entities';
import { jobReportZip } from '#services/job-report';
import { packageFiles } from '#services/package-files';
import { renderJobPdf, renderTemplatePdf } from '#services/pdf-exports';
import { exportTemplateZip, importTemplateZip } from '#services/template-archive';
import { operatorLanguages } from '#services/translations';
import { CopyEntitiesInput, LanguageQuery, TemplateIdParams, VersionLanguageQuery, VersionQuery } from './schema';

/** Template import/export (ZIP), copying templates between clients, PDF exports and the zipped job report (docs/api/contract.md 4.3). */

/** Generating documents costs CPU: a budget per user (or system admin) rather than per IP. */
const perCaller = (max: number) => principalBudget('documents', max, 60_000);

/**
 * Streams the multipart part `file` to a temporary file under the file store's
 * tmp folder (ZIP reading needs random access; the daemon clears that folder at
 * start), within WIP_MAX_UPLOAD, never buffered in memory. Returns its path, or
 * undefined when the request had no such part.
 */
async function receiveArchive(ctx: AppContext, deps: Deps): Promise<string | undefined> {
  const limit = maxUploadBytes(deps.config);
  const budget = { remaining: limit, tooLarge: () => payloadTooLarge(limit) };
  const folder = path.join(deps.config.dataDir, 'files', TEMP_DIR);
  await fs.promises.mkdir(folder, { recursive: true, mode: 0o700 });
  const written: string[] = [];
  try {
    const { files } = await readMultipart(ctx, {
      budget,
      async onFile(part) {
        if (part.field !== 'file' || written.length > 0) throw fieldError(part.field, 'send exactly one ZIP in the part named "file"');
        const file = path.join(folder, `import-${randomBytes(8).toString('hex')}.zip`);
        written.push(file);
        const meter = new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            budget.remaining -= chunk.length;
            callback(budget.remaining < 0 ? budget.tooLarge() : null, chunk);
          },
        });
        await pipeline(part.stream, meter, fs.createWriteStream(file, { mode: 0o600 }));
        return file;
      },
    });
    return files[0];
  } catch (error) {
    for (const file of written) fs.rm(file, { force: true }, () => {});
    throw error;
  }
}

/** The bearer token of X-Target-Authorization (copy-entities' proof for the target client); another scheme is 422. */
function targetToken(ctx: AppContext): string | undefined {
  const header = ctx.get('x-target-authorization');
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw fieldError('header.X-Target-Authorization', 'send the target client\'s access token as "Bearer <token>"');
  return match[1];
}

/** The reader's languages: ?lang= (a BCP 47 tag), else Accept-Language (services/translations.ts operatorLanguages). */
const readerLanguages = (ctx: AppContext, lang: string | undefined) => operatorLanguages(lang, ctx.get('accept-language'));

function sendDownload(ctx: AppContext, download: { fileName: string; stream: Readable }, type: string): undefined {
  ctx.attachment(download.fileName);
  ctx.type = type;
  ctx.body = download.stream;
  return undefined;
}

export const clientExportRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/client/export-zip/:templateId',
    operationId: 'exportTemplateZip',
    produces: { type: 'application/zip', attachment: true },
    summary:
      'A template as a ZIP: manifest.json (format wip-template v1: template, version content, sensors, files with sha256) and media/; the published version, else the latest, or ?versionId=',
    auth: 'user',
    feature: 'import-export',
    params: TemplateIdParams,
    query: VersionQuery,
    rateLimit: perCaller(60),
    async handler({ deps, actor, params, query, ctx }) {
      return sendDownload(
        ctx,
        await exportTemplateZip(deps, packageFiles(deps), actor, params.templateId, query.versionId),
        'application/zip',
      );
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/client/import-zip',
    operationId: 'importTemplateZip',
    response: z.object({ templateId: z.number().int(), versionId: z.number().int(), title: z.string() }),
    requestBody: { 'multipart/form-data': UploadParts },
    errors: ['ARCHIVE_INVALID', 'STORAGE_QUOTA_EXCEEDED'],
    summary:
      'Author: import a template ZIP (multipart part `file`) as a new template with one DRAFT; refuses unsafe or inconsistent archives with 422 ARCHIVE_INVALID (details.reason) and writes nothing',
    auth: 'user',
    feature: 'import-export',
    permission: 'author',
    accepts: 'multipart',
    status: 201,
    rateLimit: perCaller(30),
    async handler({ deps, actor, ctx }) {
      const received = await receiveArchive(ctx, deps);
      try {
        if (!received) throw fieldError('body.file', 'send the ZIP as the multipart part "file"');
        const template = await importTemplateZip(deps, packageFiles(deps), actor, received);
        const version = await findLatestVersion(deps.db.kysely, actor.scope, template.id);
        return { templateId: template.id, versionId: version!.id, title: template.title };
      } finally {
        if (received) fs.rm(received, { force: true }, () => {});
      }
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/client/copy-entities',
    operationId: 'copyEntities',
    response: z.object({
      templates: z.array(z.object({ sourceTemplateId: z.number().int(), sourceVersionId: z.number().int(), templateId: z.number().int() })),
    }),
    summary:
      'Copy templates ({templateIds, targetClientId}) into another client as new templates with one DRAFT (media and sensors copied, ids remapped). A Security Administrator who proves to be one of the target too with X-Target-Authorization (an access token of the target client), or a system administrator (who adds sourceClientId); a target without that proof is 404',
    auth: 'user-or-admin',
    feature: 'import-export',
    permission: 'administerSecurity',
    body: CopyEntitiesInput,
    errors: ['NOT_FOUND', 'STORAGE_QUOTA_EXCEEDED'],
    honours: ['X-Target-Authorization'],
    status: 201,
    rateLimit: perCaller(30),
    async handler({ deps, actor, body, meta, ctx }) {
      return copyEntities(deps, packageFiles(deps), actor, body, { targetToken: targetToken(ctx), meta });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/get-as-pdf/getTemplateAsPdf/:id',
    operationId: 'getTemplatePdf',
    produces: { type: 'application/pdf', attachment: true },
    errors: ['NO_PUBLISHED_VERSION'],
    summary:
      "A template's published version (or ?versionId=) as PDF: steps, images (each embedded once, at most 64 MB of images in all; past that they are named), field tables, signatures; its texts in the reader's language (?lang=, else Accept-Language) where an approved translation has them (docs/translated-instructions.md)",
    auth: 'user',
    feature: 'reports',
    params: IdParams,
    query: VersionLanguageQuery,
    rateLimit: perCaller(60),
    async handler({ deps, actor, params, query, ctx }) {
      return sendDownload(
        ctx,
        await renderTemplatePdf(deps, packageFiles(deps), actor, params.id, query.versionId, readerLanguages(ctx, query.lang)),
        'application/pdf',
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/get-as-pdf/getJobHistoryAsPdf/:id',
    operationId: 'getJobHistoryPdf',
    produces: { type: 'application/pdf', attachment: true },
    summary:
      "A job's history as PDF: recorded values with out-of-limit marks, photos, signatures, hand-offs, faults; images are embedded once each and at most 64 MB of them in all (past that they are named: the zipped job report carries every file); the version's texts in the reader's language (?lang=, else Accept-Language) where an approved translation has them",
    auth: 'user',
    feature: 'reports',
    params: IdParams,
    query: LanguageQuery,
    rateLimit: perCaller(60),
    async handler({ deps, actor, params, query, ctx }) {
      return sendDownload(
        ctx,
        await renderJobPdf(deps, packageFiles(deps), actor, params.id, readerLanguages(ctx, query.lang)),
        'application/pdf',
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/download-zipped-job-report/:id',
    operationId: 'downloadJobReportZip',
    produces: { type: 'application/zip', attachment: true },
    summary:
      "A job report as a streamed ZIP: the job history PDF (the version's texts in the reader's language: ?lang=, else Accept-Language, where an approved translation has them), values.csv and values.json of every recorded value (source texts), signoffs.json, deviations.json, and the attached photos and signature images",
    auth: 'user',
    feature: 'reports',
    params: IdParams,
    query: LanguageQuery,
    rateLimit: perCaller(30),
    async handler({ deps, actor, params, query, ctx }) {
      return sendDownload(
        ctx,
        await jobReportZip(deps, packageFiles(deps), actor, params.id, readerLanguages(ctx, query.lang)),
        'application/zip',
      );
    },
  }),
];
