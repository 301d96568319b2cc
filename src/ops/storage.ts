import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { Config } from '#config';
import type { Database } from '#db/connection';
import { listBackupFiles, type BackupFile } from './backup-archive';
import { backupDir, DB_FILE } from '#lib/paths';

export interface DiskSpace {
  freeBytes: number;
  totalBytes: number;
}

export interface StorageFacts {
  /** the database's size on disk (PostgreSQL: pg_database_size of the current database) */
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

/** The database's size: SQLite's file and its write-ahead log, or PostgreSQL's pg_database_size (tables, indexes, TOAST). */
async function databaseBytes(db: Database, dataDir: string): Promise<number> {
  if (db.dialect === 'postgres') {
    const { rows } = await sql<{ bytes: number }>`select pg_database_size(current_database()) as bytes`.execute(db.kysely);
    return Number(rows[0].bytes);
  }
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
export async function storageFacts(config: Pick<Config, 'dataDir' | 'backupDir'>, db: Database): Promise<StorageFacts> {
  const dir = backupDir(config);
  const backups = listBackupFiles(dir);
  return {
    databaseBytes: await databaseBytes(db, config.dataDir),
    dataDisk: diskSpace(config.dataDir),
    backupDisk: diskSpace(dir),
    backupCount: backups.length,
    lastBackup: backups[0] ?? null,
  };
}
