import { BackupFile, BackupJob, Page } from '#presenters/schemas';
import { z } from 'zod';
import { PageQuery } from '#db/pagination';
import { BACKUP_NAME } from '#ops/backup-archive';
import { listBackups, openBackup } from '#ops/backups';
import { defineRoute, IdParams, principalBudget, type RouteSpec } from '../../../route';

/** only names the appliance writes: anything else (a path, another file) is 404 */
const BackupNameParams = z.object({ name: z.string().max(100).regex(BACKUP_NAME) });

export const adminBackupRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/admin/backups',
    operationId: 'listBackups',
    response: Page(BackupFile),
    summary:
      'List the backup archives in backupDir, newest first: {name, kind (manual, scheduled, pre-upgrade), bytes, createdAt}; paginated by `limit`/`cursor`',
    auth: 'admin',
    query: PageQuery,
    async handler({ deps, query }) {
      return listBackups(deps, query);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/admin/backups',
    operationId: 'startBackup',
    response: BackupJob,
    errors: ['CONFLICT'],
    summary:
      "Start a backup (the same archive as `wip backup`: SQLite online backup, or pg_dump in PostgreSQL mode; written into this node's backupDir while the daemon keeps serving); answers 202 with the job at once — poll GET /api/admin/backups/jobs/:id (on the same node) for its progress. 409 CONFLICT while one is running on this node",
    auth: 'admin',
    status: 202,
    rateLimit: principalBudget('backup-start', 10, 60 * 60_000),
    async handler({ deps, actor, meta }) {
      return deps.backupJobs.start({ adminId: actor.adminId, meta });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/admin/backups/jobs/:id',
    operationId: 'getBackupJob',
    response: BackupJob,
    summary:
      'A backup started here: {id, status (running, succeeded, failed), phase (database, files, archive), percent, startedAt, finishedAt, backup (the archive, once succeeded), error}. Kept in memory for the last 20 jobs of this daemon',
    auth: 'admin',
    params: IdParams,
    async handler({ deps, params }) {
      return deps.backupJobs.get(params.id);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/admin/backups/:name/download',
    operationId: 'downloadBackup',
    produces: { type: 'application/gzip', attachment: true },
    summary: 'Download a backup archive (streamed; it holds the secrets: the download is recorded as the security event backup.downloaded)',
    auth: 'admin',
    params: BackupNameParams,
    envelope: false,
    rateLimit: principalBudget('backup-download', 20, 15 * 60_000),
    async handler({ deps, actor, params, meta, ctx }) {
      const { file, stream } = await openBackup(deps, params.name, { adminId: actor.adminId, meta });
      ctx.attachment(file.name);
      ctx.type = 'application/gzip';
      ctx.length = file.bytes;
      ctx.body = stream;
      return undefined;
    },
  }),
];
