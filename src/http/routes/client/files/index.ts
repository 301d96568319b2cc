import { z } from 'zod';
import { UploadParts } from '../../../schemas';
import { File } from '#presenters/schemas';
import { defineRoute, IdParams, type RouteSpec } from '../../../route';
import { fieldError, notFound } from '#errors';
import { readMultipart } from '../../../multipart';
import { sendFile } from '../../../send-file';
import { presentFile } from '#presenters/files';
import {
  cleanFileName,
  commitFiles,
  deleteFile,
  getFile,
  openContent,
  putContent,
  recordImageRefused,
  replaceFile,
  uploadBudget,
} from '#services/files';
import { requestMeta } from '../../../request-meta';
import { hasAnyRole } from '#policies/roles';
import { MODEL_TYPES } from '#storage/content-type';
import { AlignmentQuery, ModelParams, parseMetadata } from './schema';
import { alignmentTarget, createAlignmentData, getAlignmentData, presentAlignmentData } from '#services/alignment-data';
import { parseOrFail } from '#lib/parse-or-fail';
import type { AppContext } from '../../../state';
import type { Deps } from '#deps';
import type { TenantScope } from '#db/tenant';
import { PERMISSIONS } from '#policies/permissions';

const Point = z.array(z.number());
/** Point-cloud alignment metadata (services/alignment-data presentAlignmentData). */
const AlignmentData = z
  .object({
    id: z.number().int(),
    pointCount: z.number().int(),
    bounds: z.object({ min: Point, max: Point }),
    format: z.string(),
    fileId: z.number().int(),
    templateId: z.number().int().nullable(),
    stepId: z.string().nullable(),
    assetId: z.number().int().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'AlignmentData' });

const UPLOAD_RATE_LIMIT = { max: 120, windowMs: 60_000 };
/** Revalidate on every use (ETag → 304): a replaced file must not be served stale. */
const REVALIDATE = 'private, no-cache';

/**
 * The file parts of a multipart request, each streamed into the store as it
 * arrives (within WIP_MAX_UPLOAD and the quota, shared by all parts), and its
 * text fields. Only parts named `file` are accepted.
 */
export async function receiveFiles(ctx: AppContext, deps: Deps, scope: TenantScope | null) {
  const budget = await uploadBudget(deps, scope);
  return readMultipart(ctx, {
    budget,
    async onFile(part) {
      if (part.field !== 'file') throw fieldError(part.field, 'unexpected file part: send files in parts named "file"');
      const name = cleanFileName(part.fileName);
      try {
        return { name, content: await putContent(deps, part.stream, name, budget) };
      } catch (error) {
        await recordImageRefused(deps, ctx.state.actor, requestMeta(ctx), error);
        throw error;
      }
    },
  });
}

export const clientFileRoutes: RouteSpec[] = [
  defineRoute({
    method: 'post',
    path: '/api/client/upload',
    operationId: 'uploadFiles',
    response: z.object({ files: z.array(File) }),
    requestBody: { 'multipart/form-data': UploadParts },
    errors: ['STORAGE_QUOTA_EXCEEDED'],
    summary:
      'Upload files: multipart/form-data with one or more `file` parts and an optional `metadata` part (JSON {description}) → 201 {files: [{id, name, size, sha256, contentType, description, createdAt}]}; streamed, at most WIP_MAX_UPLOAD in all (413 PAYLOAD_TOO_LARGE) and within the client storage quota (413 STORAGE_QUOTA_EXCEEDED); content type detected from the bytes; an image (PNG, JPEG, GIF, WebP by its bytes) that cannot be decoded, or declares more than 20,000 pixels a side or 40 megapixels, 422 VALIDATION_ERROR naming the file (docs/api/files.md); malformed metadata 422',
    auth: 'user',
    permission: 'uploadFiles',
    accepts: 'multipart',
    status: 201,
    rateLimit: UPLOAD_RATE_LIMIT,
    async handler({ deps, actor, ctx }) {
      const { fields, files } = await receiveFiles(ctx, deps, actor.scope);
      const metadata = parseMetadata(fields.metadata);
      if (files.length === 0) throw fieldError('file', 'send at least one file part named "file"');
      const rows = await commitFiles(
        deps,
        actor.scope,
        files.map((f) => ({ ...f, description: metadata.description })),
        { userId: actor.userId, email: actor.email },
      );
      return { files: rows.map(presentFile) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/client/replaceFile',
    operationId: 'replaceFile',
    response: z.object({ file: File }),
    requestBody: { 'multipart/form-data': UploadParts.extend({ id: z.string() }) },
    errors: ['STORAGE_QUOTA_EXCEEDED', 'NOT_FOUND', 'CONFLICT'],
    summary:
      "Replace a file's bytes: multipart/form-data with a `fileId` field and one `file` part → the file under the same id (revision + 1; every reference follows); the previous content is kept as a prior revision. Another client's id → 404",
    auth: 'user',
    permission: 'uploadFiles',
    accepts: 'multipart',
    rateLimit: UPLOAD_RATE_LIMIT,
    async handler({ deps, actor, ctx }) {
      const { fields, files } = await receiveFiles(ctx, deps, actor.scope);
      const fileId = Number(fields.fileId);
      if (!Number.isSafeInteger(fileId) || fileId <= 0) throw fieldError('fileId', 'must be the id of a file');
      if (files.length !== 1) throw fieldError('file', 'send exactly one file part named "file"');
      const [file] = files;
      const row = await replaceFile(deps, actor.scope, fileId, file.content, {
        name: file.name,
        uploadedBy: { userId: actor.userId, email: actor.email },
      });
      return { file: presentFile(row) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/files/:id',
    operationId: 'downloadFile',
    produces: { type: '*/*', etag: true, ranges: true, attachment: true },
    summary:
      "Download a file (the `url` of a File): its bytes with the detected Content-Type, Content-Length, ETag, Accept-Ranges; If-None-Match → 304; a single Range → 206, unsatisfiable → 416. Another client's id → 404",
    auth: 'user',
    params: IdParams,
    cacheControl: REVALIDATE,
    async handler({ deps, actor, params, ctx }) {
      const file = await getFile(deps, actor.scope, params.id);
      await sendFile(ctx, file, (range) => openContent(deps, file, range));
      return undefined;
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/client/files/:id',
    operationId: 'deleteFile',
    response: z.object({ id: z.number().int(), deleted: z.boolean() }),
    errors: ['FILE_IN_USE'],
    summary:
      "Delete a file and its prior revisions → {id, deleted: true}. Admins and authors delete any file of the client, operators only those they uploaded (else 403). A file still used by a template version (any state), a recorded value, a fault photo or alignment data → 409 FILE_IN_USE with details.references; content the client no longer holds frees its quota at once and leaves the disk after commit. Another client's id → 404",
    auth: 'user',
    permission: 'uploadFiles',
    params: IdParams,
    rateLimit: UPLOAD_RATE_LIMIT,
    async handler({ deps, actor, params }) {
      await deleteFile(deps, actor.scope, params.id, {
        userId: actor.userId,
        email: actor.email,
        onlyOwn: !hasAnyRole(actor.roles, PERMISSIONS.deleteAnyFile),
      });
      return { id: params.id, deleted: true };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/download-model/:type/:id',
    operationId: 'downloadModel',
    produces: { type: '*/*', etag: true, ranges: true, attachment: true },
    summary:
      'Download a 3D model (type glb, gltf, obj, fbx, usdz or ply; a type that does not match the stored file → 404) with Content-Length, ETag, Accept-Ranges; If-None-Match → 304; a single Range → 206 (resumable), unsatisfiable → 416',
    auth: 'user',
    params: ModelParams,
    cacheControl: REVALIDATE,
    async handler({ deps, actor, params, ctx }) {
      const file = await getFile(deps, actor.scope, params.id);
      if (!(MODEL_TYPES[params.type] as readonly string[]).includes(file.content_type)) throw notFound('File');
      await sendFile(ctx, file, (range) => openContent(deps, file, range));
      return undefined;
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/client/alignment-data',
    operationId: 'uploadAlignmentData',
    response: AlignmentData,
    requestBody: {
      'multipart/form-data': UploadParts.extend({
        templateId: z.string().optional(),
        stepId: z.string().optional(),
        assetId: z.string().optional(),
      }),
    },
    summary:
      'Upload point-cloud alignment data for a template step or an asset: multipart/form-data with `templateId` and `stepId` (or `assetId`) fields and one `file` part, a PLY (ascii, binary little or big endian) → 201 {id, pointCount, bounds {min, max}, format, fileId}; the header and vertex data are checked (422 naming `file` when malformed); the original is stored',
    auth: 'user',
    permission: 'author',
    accepts: 'multipart',
    status: 201,
    rateLimit: UPLOAD_RATE_LIMIT,
    async handler({ deps, actor, ctx }) {
      const { fields, files } = await receiveFiles(ctx, deps, actor.scope);
      const query = parseOrFail(AlignmentQuery, fields);
      if (files.length !== 1) throw fieldError('file', 'send exactly one file part named "file"');
      return presentAlignmentData(await createAlignmentData(deps, actor, alignmentTarget(query), files[0]));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/alignment-data',
    operationId: 'getAlignmentData',
    response: AlignmentData,
    produces: { type: ['application/json', 'application/x-ply'], etag: true, ranges: true },
    summary:
      "The newest alignment data of ?templateId=&stepId= or ?assetId=: metadata {id, pointCount, bounds, format, fileId}, or the original PLY bytes with Accept: application/octet-stream (ETag, ranges). Another client's template or asset → 404",
    auth: 'user',
    query: AlignmentQuery,
    cacheControl: REVALIDATE,
    async handler({ deps, actor, query, ctx }) {
      const row = await getAlignmentData(deps, actor, alignmentTarget(query));
      if (
        ctx.accepts('application/json', 'application/octet-stream') === 'application/octet-stream' &&
        !ctx.get('accept').includes('application/json')
      ) {
        const file = await getFile(deps, actor.scope, row.file_id);
        await sendFile(ctx, file, (range) => openContent(deps, file, range));
        return undefined;
      }
      return presentAlignmentData(row);
    },
  }),
];
