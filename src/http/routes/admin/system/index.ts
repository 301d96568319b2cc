import { z } from 'zod';
import { BackupFile } from '#presenters/schemas';
import { storageFacts } from '#ops/storage';
import { defineRoute, type RouteSpec } from '../../../route';

const DiskSpace = z.object({ freeBytes: z.number(), totalBytes: z.number() });

export const adminSystemRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/admin/system/storage',
    operationId: 'getSystemStorage',
    response: z.object({
      databaseBytes: z.number(),
      dataDisk: DiskSpace.nullable(),
      backupDisk: DiskSpace.nullable(),
      backupCount: z.number().int(),
      lastBackup: BackupFile.nullable(),
    }),
    summary:
      "Space and backups for the overview: {databaseBytes (SQLite: the file and its WAL; PostgreSQL: pg_database_size), dataDisk {freeBytes, totalBytes}, backupDisk (backupDir's file system; null before the first backup), backupCount, lastBackup {name, kind, bytes, createdAt} or null}",
    auth: 'admin',
    async handler({ deps }) {
      return storageFacts(deps.config, deps.db);
    },
  }),
];
