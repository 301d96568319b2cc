import { defineRoute, type RouteSpec } from '../../../route';
import { fieldError } from '../../../../errors';
import { presentFile } from '../../../../presenters/files';
import { commitSystemFiles } from '../../../../services/files';
import { receiveFiles } from '../../client/files';
import { parseMetadata } from '../../client/files/schema';

export const adminUploadRoutes: RouteSpec[] = [
  defineRoute({
    method: 'post',
    path: '/api/admin/upload',
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
      const rows = await commitSystemFiles(deps, files.map((f) => ({ ...f, description: metadata.description })), actor.adminId);
      return { files: rows.map(presentFile) };
    },
  }),
];
