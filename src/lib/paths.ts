import path from 'node:path';
import type { Config } from '#config';

/** The layout of a data directory, in one place. */
export const DB_FILE = 'wip.db';
export const SECRETS_FILE = 'secrets.json';
/** PostgreSQL mode's backups: the database in pg_dump's custom format */
export const PG_DUMP_FILE = 'wip.pgdump';
export const CONFIG_FILE = 'config.json';
export const FILES_DIR = 'files';
/** the self-signed CA and server certificate with their private keys (--tls-self-signed) */
export const TLS_DIR = 'tls';
export const BACKUPS_DIR = 'backups';
/** where IT drops the update manifest on air-gapped sites (GET /api/client/check-updates) */
export const UPDATES_DIR = 'updates';
export const UPDATE_MANIFEST_FILE = 'manifest.json';
export const PID_FILE = 'wip.pid';
/** beside the pid file: where the running daemon actually listens (see ServedAddress) */
export const SERVED_FILE = 'wip.served.json';

export function backupDir(config: Pick<Config, 'dataDir' | 'backupDir'>): string {
  return config.backupDir ? path.resolve(config.backupDir) : path.join(config.dataDir, BACKUPS_DIR);
}

/** A file-name-safe, sortable UTC timestamp: 2026-11-21T10-47-36-123Z. */
export function fileStamp(date: Date): string {
  return date.toISOString().replace(/[:.]/g, '-');
}
