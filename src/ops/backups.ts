import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Deps } from '#deps';
import { decodeCursor, encodeCursor, type Page, type PageInput } from '#db/pagination';
import { notFound } from '#errors';
import { backupTakenAt, listBackupFiles, type BackupFile } from './backup-archive';
import { backupDir } from '#lib/paths';
import type { RequestMeta } from '#services/actor';
import { recordLogEntry } from '#services/security-log';

/**
 * The archives in backupDir, newest first, as one page. The cursor wraps the
 * time (ms) of the last archive shown; archives taken in the same millisecond
 * stay on one page, so none is skipped at a page boundary.
 */
export function listBackups(deps: Pick<Deps, 'config'>, page: PageInput): Page<BackupFile> {
  const before = decodeCursor(page.cursor);
  const files = listBackupFiles(backupDir(deps.config)).filter((f) => before === 0 || Date.parse(f.createdAt) < before);
  let end = Math.min(page.limit, files.length);
  while (end < files.length && files[end].createdAt === files[end - 1].createdAt) end++;
  const items = files.slice(0, end);
  return { items, nextCursor: end < files.length ? encodeCursor(Date.parse(items[items.length - 1].createdAt)) : null };
}

/**
 * Opens a backup archive for download and records who took it (it holds the
 * installation's secrets: a security event).
 * @throws AppError NOT_FOUND
 */
export async function openBackup(
  deps: Deps,
  name: string,
  by: { adminId: number; meta: RequestMeta },
): Promise<{ file: BackupFile; stream: Readable }> {
  const file = backupTakenAt(name) === null ? undefined : listBackupFiles(backupDir(deps.config)).find((f) => f.name === name);
  if (!file) throw notFound('Backup');
  const stream = fs.createReadStream(path.join(backupDir(deps.config), file.name));
  await recordLogEntry(deps, {
    level: 'warn',
    event: 'backup.downloaded',
    message: `Backup ${file.name} downloaded`,
    adminId: by.adminId,
    meta: by.meta,
    data: { name: file.name, bytes: file.bytes },
  });
  return { file, stream };
}
