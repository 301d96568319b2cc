import { File, StorageUsage } from '#presenters/schemas';
import { UploadParts } from '../../../schemas';
import { z } from 'zod';
import { defineRoute, IdParams, type RouteSpec } from '../../../route';
import { fieldError } from '#errors';
import { presentFile } from '#presenters/files';
import { commitSystemFiles, getStorageUsage, setStorageQuota } from '#services/files';
import { receiveFiles } from '../../client/files';
import { parseMetadata } from '../../client/files/schema';
import { changedBy } from '#services/security-log';

export const adminUploadRoutes: RouteSpec[] = [
  defineRoute({
    method: 'post',
    path: '/api/admin/upload',
    operationId: 'uploadAdminFiles',
    response: z.object({ files: z.array(File) }),
    requestBody: { 'multipart/form-data': UploadParts },
    summary:
      'Upload system files (agreement PDFs, branding): multipart/form-data with one or more `file` parts and an optional `metadata` part (JSON {description}) → 201 {files: [{id, name, size, sha256, contentType, description, createdAt}]}; use an id as `fileId` of POST/PUT /api/admin/agreement. Streamed, at most WIP_MAX_UPLOAD (413)',
    auth: 'admin',
    accepts: 'multipart',
    status: 201,
    rateLimit: { max: 120, windowMs: 60_000 },
    async handler({ deps, actor, ctx }) {
      const { fields, files } = await receiveFiles(ctx, deps, null);
      const metadata = parseMetadata(fields.metadata);
      if (files.length === 0) throw fieldError('file', 'send at least one file part named "file"');
      const rows = await commitSystemFiles(
        deps,
        files.map((f) => ({ ...f, description: metadata.description })),
        actor.adminId,
      );
      return { files: rows.map(presentFile) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/admin/client/:id/storage-quota',
    operationId: 'getStorageQuota',
    response: StorageUsage,
    summary: "A client's storage quota and usage {storageQuotaBytes (null: unlimited), storageUsedBytes (distinct content)}",
    auth: 'admin',
    params: IdParams,
    async handler({ deps, params }) {
      return getStorageUsage(deps, params.id);
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/admin/client/:id/storage-quota',
    operationId: 'setStorageQuota',
    response: StorageUsage,
    summary:
      "Set a client's storage quota {storageQuotaBytes} in bytes, or null for unlimited (the default); uploads past it are 413 STORAGE_QUOTA_EXCEEDED",
    auth: 'admin',
    params: IdParams,
    body: z.object({ storageQuotaBytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable() }),
    async handler({ deps, params, body, actor, meta }) {
      return setStorageQuota(deps, params.id, body.storageQuotaBytes, changedBy(actor, meta));
    },
  }),
];
