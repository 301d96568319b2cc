import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { openPostgres } from '#db/connection';
import { migrateToLatest, migrationStatus, unknownAppliedMigrations } from '#db/migrator';
import type { DB } from '#db/schema';
import { auditedClientIds, verifyAuditChain } from '#repos/audit';
import { loadOrCreateSecrets, secretsPath, storeSharedSecrets } from '#secrets';
import { DB_FILE } from '#lib/paths';
import { runningDaemonPid } from './pidfile';
import { openReadonly } from './sqlite';
import fs from 'node:fs';
import type { FileStore } from '#storage';
import { moveFiles, type FileMoveProgress, type FileMoveReport } from './move-files';

const BATCH = 500;

export interface MoveProgress {
  table: string;
  done: number;
  total: number;
}

export interface MoveReport {
  tables: { name: string; rows: number }[];
  auditChains: number;
  /** with a target file store: the files copied into it and verified there */
  files?: FileMoveReport;
}

/** The move was refused or failed; nothing was written to the target (one transaction). */
export class MoveRefused extends Error {}

/**
 * Copies a stopped SQLite appliance's whole state into an empty PostgreSQL
 * database: the schema (the same migrations), every table's rows with their
 * ids (sessions and refresh tokens included, so users stay signed in), and
 * the secrets (sealed with the master key, so tokens issued before the move
 * keep working). One transaction: the target ends up complete or empty. Then
 * verifies the row count of every table and every client's audit chain.
 * With a target file store (an object store), every file of <data-dir>/files
 * is copied there and verified first, before any row is written, so an
 * interrupted file copy is resumed by running the command again; without
 * one, files stay in <data-dir>/files (which the nodes share as one mount).
 */
export async function moveToPostgres(options: {
  dataDir: string;
  databaseUrl: string;
  masterKey: string;
  now: Date;
  onProgress?: (progress: MoveProgress) => void;
  fileStore?: FileStore;
  onFileProgress?: (progress: FileMoveProgress) => void;
}): Promise<MoveReport> {
  const { dataDir } = options;
  const file = path.join(dataDir, DB_FILE);
  if (!fs.existsSync(file)) throw new MoveRefused(`no database in ${dataDir}`);
  if (!fs.existsSync(secretsPath(dataDir))) throw new MoveRefused(`no secrets.json in ${dataDir}`);
  const pid = runningDaemonPid(dataDir);
  if (pid !== null)
    throw new MoveRefused(`wip is running on ${dataDir} (pid ${pid}); stop it first, so nothing changes while it is copied`);
  const source = openReadonly(file, dataDir);
  const target = openPostgres(options.databaseUrl, { poolSize: 2 });
  try {
    if ((await unknownAppliedMigrations(source)).length > 0 || (await migrationStatus(source)).some((m) => !m.applied)) {
      throw new MoveRefused('the SQLite database is not at this version\'s schema: run "wip migrate" with this version first');
    }
    const { rows: existing } = await sql<{
      name: string;
    }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(target.kysely);
    if (existing.length > 0)
      throw new MoveRefused(
        `the target database is not empty (${existing.length} tables, e.g. ${existing[0].name}); use a new, empty database`,
      );

    const files = options.fileStore && (await moveFiles(dataDir, options.fileStore, options.onFileProgress));

    const tables = copyOrder(source.sqlite);
    const counts = new Map(
      tables.map((name) => [name, (source.sqlite.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n]),
    );
    await migrateToLatest(target);
    await target.kysely.transaction().execute(async (trx) => {
      // rows the migrations seed (deployment state…) are in the source too, as they are now
      for (const table of [...tables].reverse()) await trx.deleteFrom(table as keyof DB).execute();
      for (const table of tables) {
        // keyset on rowid: constant memory, and in insertion order (parents before their children)
        const select = source.sqlite.prepare(`SELECT rowid AS wip_rowid, * FROM "${table}" WHERE rowid > ? ORDER BY rowid LIMIT ${BATCH}`);
        let done = 0;
        for (let after = 0; ;) {
          const rows = select.all(after) as Record<string, unknown>[];
          if (rows.length === 0) break;
          after = rows[rows.length - 1].wip_rowid as number;
          const values = rows.map(({ wip_rowid: _rowid, ...row }) => row);
          await trx
            .insertInto(table as keyof DB)
            .values(values)
            .execute();
          done += rows.length;
          options.onProgress?.({ table, done, total: counts.get(table)! });
        }
      }
      await restartIdentities(trx);
      await storeSharedSecrets(trx, options.masterKey, loadOrCreateSecrets(dataDir).secrets, options.now);
    });

    const report: MoveReport = { tables: [], auditChains: 0, ...(files && { files }) };
    for (const table of tables) {
      const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(target.kysely);
      const rowsThere = Number(rows[0].n);
      if (rowsThere !== counts.get(table))
        throw new Error(`verification failed: ${table} has ${counts.get(table)} rows in SQLite and ${rowsThere} in PostgreSQL`);
      report.tables.push({ name: table, rows: rowsThere });
    }
    for (const clientId of await auditedClientIds(target.kysely)) {
      const chain = await verifyAuditChain(target.kysely, clientId);
      if (chain.broken)
        throw new Error(
          `verification failed: the audit chain of client ${clientId} is broken at seq ${chain.broken.seq} (${chain.broken.reason})`,
        );
      report.auditChains++;
    }
    return report;
  } finally {
    await source.close();
    await target.close();
  }
}

/**
 * The application's tables (not the migration bookkeeping, which the target's
 * own migration run wrote), each after the tables its foreign keys reference.
 */
function copyOrder(sqlite: import('better-sqlite3').Database): string[] {
  // shared_secrets: unused on SQLite (secrets.json), written from that file instead
  const names = (
    sqlite
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_migration%' AND name <> 'shared_secrets' ORDER BY name",
      )
      .all() as { name: string }[]
  ).map((r) => r.name);
  const parents = new Map(
    names.map((name) => [
      name,
      (sqlite.prepare('SELECT DISTINCT "table" AS parent FROM pragma_foreign_key_list(?)').all(name) as { parent: string }[])
        .map((r) => r.parent)
        .filter((p) => p !== name),
    ]),
  );
  const ordered: string[] = [];
  const visit = (name: string, path: Set<string>) => {
    if (ordered.includes(name) || path.has(name)) return;
    path.add(name);
    for (const parent of parents.get(name) ?? []) visit(parent, path);
    ordered.push(name);
  };
  for (const name of names) visit(name, new Set());
  return ordered;
}

/** Identity columns continue after the copied ids. */
async function restartIdentities(db: Kysely<DB>): Promise<void> {
  const { rows } = await sql<{
    table_name: string;
    column_name: string;
  }>`select table_name, column_name from information_schema.columns where table_schema = current_schema() and is_identity = 'YES'`.execute(
    db,
  );
  for (const { table_name: table, column_name: column } of rows) {
    await sql`select setval(pg_get_serial_sequence(${table}, ${column}), coalesce(max(${sql.ref(column)}), 0) + 1, false) from ${sql.table(table)}`.execute(
      db,
    );
  }
}
