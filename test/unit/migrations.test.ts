import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openDatabase } from '#db/connection';
import { createMigrator, migrateDown, migrateToLatest, migrationStatus } from '#db/migrator';
import { migrations } from '../../migrations';

const test = suite('migrations');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-migrations-'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

const tables = (db: ReturnType<typeof openDatabase>) =>
  db.sqlite
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'kysely_%' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];

test('a fresh database migrates up, all the way down, and up again to the same schema', async () => {
  const db = openDatabase(path.join(dir, 'roundtrip'));
  try {
    const applied = await migrateToLatest(db);
    assert.equal(applied, Object.keys(migrations));
    const schema = db.sqlite.prepare("SELECT sql FROM sqlite_master WHERE name NOT LIKE 'kysely_%' ORDER BY name").pluck().all();
    for (let i = 0; i < applied.length; i++) await migrateDown(db);
    assert.equal(tables(db), []);
    await migrateToLatest(db);
    assert.equal(db.sqlite.prepare("SELECT sql FROM sqlite_master WHERE name NOT LIKE 'kysely_%' ORDER BY name").pluck().all(), schema);
    assert.ok((await migrationStatus(db)).every((m) => m.applied));
  } finally {
    await db.close();
  }
});

test("migration status read from kysely_migration is what kysely's Migrator reports, pending and applied", async () => {
  const db = openDatabase(path.join(dir, 'status'));
  const migratorView = async () =>
    (await createMigrator(db).getMigrations()).map((m) => ({
      name: m.name,
      applied: m.executedAt !== undefined,
      appliedAt: m.executedAt?.toISOString() ?? null,
    }));
  try {
    assert.equal(await migrationStatus(db), await migratorView());
    await migrateToLatest(db);
    await migrateDown(db);
    const status = await migrationStatus(db);
    assert.is(status.filter((m) => !m.applied).length, 1);
    assert.equal(status, await migratorView());
    // an up-to-date database: nothing to apply, and the pending one is applied again when present
    assert.equal(await migrateToLatest(db), [status.find((m) => !m.applied)!.name]);
    assert.equal(await migrateToLatest(db), []);
    assert.equal(await migrationStatus(db), await migratorView());
  } finally {
    await db.close();
  }
});

test('the database runs with WAL, synchronous=FULL, foreign keys and a busy timeout', async () => {
  const db = openDatabase(path.join(dir, 'pragmas'));
  try {
    assert.is(db.sqlite.pragma('journal_mode', { simple: true }), 'wal');
    assert.is(db.sqlite.pragma('synchronous', { simple: true }), 2);
    assert.is(db.sqlite.pragma('foreign_keys', { simple: true }), 1);
    assert.ok(Number(db.sqlite.pragma('busy_timeout', { simple: true })) >= 1000);
  } finally {
    await db.close();
  }
});

test('a database migrated by a newer version (unknown migration applied) is refused', async () => {
  const db = openDatabase(path.join(dir, 'newer'));
  try {
    await migrateToLatest(db);
    db.sqlite.prepare("INSERT INTO kysely_migration (name, timestamp) VALUES ('9999_from_the_future', '2030-01-01T00:00:00.000Z')").run();
    let error: Error | undefined;
    try {
      await migrateToLatest(db);
    } catch (e) {
      error = e as Error;
    }
    assert.match(String(error?.message), /newer version/);
  } finally {
    await db.close();
  }
});

test.run();
