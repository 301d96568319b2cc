import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config';
import { listBackupFiles, type BackupFile } from './backup';
import { backupDir, DB_FILE } from './paths';

export interface DiskSpace {
  freeBytes: number;
  totalBytes: number;
}

export interface StorageFacts {
  /** the database's size on disk */
  databaseBytes: number;
  /** the file system holding the data directory */
  dataDisk: DiskSpace | null;
  /** the file system holding backupDir (often the same one) */
  backupDisk: DiskSpace | null;
  backupCount: number;
  lastBackup: BackupFile | null;
}

function diskSpace(dir: string): DiskSpace | null {
  try {
    const stat = fs.statfsSync(dir);
    return { freeBytes: stat.bavail * stat.bsize, totalBytes: stat.blocks * stat.bsize };
  } catch {
    return null; // the folder does not exist yet (backups before the first one)
  }
}

/** SQLite-specific: the database file and its write-ahead log (PostgreSQL: pg_database_size). */
function databaseBytes(dataDir: string): number {
  let total = 0;
  for (const suffix of ['', '-wal']) {
    try {
      total += fs.statSync(path.join(dataDir, DB_FILE + suffix)).size;
    } catch {
      // no write-ahead log right now
    }
  }
  return total;
}

/** What the overview shows about space and backups (GET /api/admin/system/storage). */
export function storageFacts(config: Pick<Config, 'dataDir' | 'backupDir'>): StorageFacts {
  const dir = backupDir(config);
  const backups = listBackupFiles(dir);
  return {
    databaseBytes: databaseBytes(config.dataDir),
    dataDisk: diskSpace(config.dataDir),
    backupDisk: diskSpace(dir),
    backupCount: backups.length,
    lastBackup: backups[0] ?? null,
  };
}
