import { sqliteHandle } from '#db/connection';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rejects } from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Database } from '#db/connection';
import { migrateDown, migrateToLatest } from '#db/migrator';

const migration = suite('migration 0005_work_instructions');

async function withDb(fn: (db: Database) => Promise<void>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-mig-'));
  const db = openDatabase(dir);
  try {
    await migrateToLatest(db);
    await fn(db);
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const now = '2026-11-23T00:00:00.000Z';

async function seedTemplate(db: Database, clientId: number) {
  const template = await db.kysely
    .insertInto('templates')
    .values({
      client_id: clientId,
      title: 't',
      description: '',
      tags: '[]',
      asset_class_id: null,
      owner_id: null,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return template.id;
}

const version = (clientId: number, templateId: number, number: number, state: string) => ({
  client_id: clientId,
  template_id: templateId,
  number,
  state: state as never,
  content: '{}',
  content_hash: 'x',
  created_by: 1,
  updated_by: 1,
  created_at: now,
  updated_at: now,
});

migration('goes down and up again', async () => {
  await withDb(async (db) => {
    // later migrations come down first
    const down: string[] = [];
    while (!down.includes('0005_work_instructions')) {
      const step = await migrateDown(db);
      assert.ok(step.length > 0, down.join(','));
      down.push(...step);
    }
    const tables = (sqliteHandle(db).prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map(
      (t) => t.name,
    );
    assert.not.ok(tables.includes('templates'));
    await migrateToLatest(db);
  });
});

migration("the database refuses a version of another client's template, and a second DRAFT or PUBLISHED", async () => {
  await withDb(async (db) => {
    for (const name of ['a', 'b']) await db.kysely.insertInto('clients').values({ name, created_at: now, updated_at: now }).execute();
    const templateA = await seedTemplate(db, 1);
    await rejects(
      db.kysely
        .insertInto('template_versions')
        .values(version(2, templateA, 1, 'DRAFT'))
        .execute(),
      /FOREIGN KEY/,
    );
    await db.kysely
      .insertInto('template_versions')
      .values(version(1, templateA, 1, 'PUBLISHED'))
      .execute();
    await db.kysely
      .insertInto('template_versions')
      .values(version(1, templateA, 2, 'DRAFT'))
      .execute();
    await rejects(
      db.kysely
        .insertInto('template_versions')
        .values(version(1, templateA, 3, 'DRAFT'))
        .execute(),
      /UNIQUE/,
    );
    await rejects(
      db.kysely
        .insertInto('template_versions')
        .values(version(1, templateA, 4, 'PUBLISHED'))
        .execute(),
      /UNIQUE/,
    );
    await db.kysely
      .insertInto('template_versions')
      .values(version(1, templateA, 5, 'RETIRED'))
      .execute();
    await db.kysely
      .insertInto('template_versions')
      .values(version(1, templateA, 6, 'RETIRED'))
      .execute();
  });
});

migration.run();
