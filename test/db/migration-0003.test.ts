import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openDatabase } from '#db/connection';
import { migrateDown, migrateToLatest, migrationStatus } from '#db/migrator';

const migration = suite('migration 0003_account_lifecycle');

const tables = (db: ReturnType<typeof openDatabase>) =>
  (db.sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]).sort();

migration('migrates up, down and up again', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-mig-'));
  const db = openDatabase(dir);
  try {
    await migrateToLatest(db);
    const added = ['auth_failures', 'auth_lockouts', 'client_settings', 'outbox', 'user_two_factor'];
    for (const table of added) assert.ok(tables(db).includes(table), table);
    // later migrations come off first, one step at a time, until 0003 does
    const undone: string[] = [];
    while (!undone.includes('0003_account_lifecycle')) {
      const step = await migrateDown(db);
      assert.is(step.length, 1);
      undone.push(...step);
    }
    for (const table of added) assert.not.ok(tables(db).includes(table), table);
    assert.ok(tables(db).includes('users'));
    assert.ok((await migrateToLatest(db)).includes('0003_account_lifecycle'));
    for (const table of added) assert.ok(tables(db).includes(table), table);
    assert.ok((await migrationStatus(db)).every((m) => m.applied));
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

migration.run();
