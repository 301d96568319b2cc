import { storageFacts } from '../../../../ops/storage';
import { defineRoute, type RouteSpec } from '../../../route';

export const adminSystemRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/admin/system/storage',
    operationId: 'getSystemStorage',
    summary:
      "Space and backups for the overview: {databaseBytes (SQLite: the file and its WAL; PostgreSQL: pg_database_size), dataDisk {freeBytes, totalBytes}, backupDisk (backupDir's file system; null before the first backup), backupCount, lastBackup {name, kind, bytes, createdAt} or null}",
    auth: 'admin',
    async handler({ deps }) {
      return storageFacts(deps.config, deps.db);
    },
  }),
];
