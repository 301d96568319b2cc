import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '#db/connection';
import { migrateDown, migrateToLatest } from '#db/migrator';

const migration = suite('migration 0015_integrations');

const tables = (db: ReturnType<typeof openDatabase>) =>
  (db.sqlite.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map((t) => t.name);
const columns = (db: ReturnType<typeof openDatabase>, table: string) =>
  (db.sqlite.prepare(`select name from pragma_table_info('${table}')`).all() as { name: string }[]).map((c) => c.name);
const NEW_TABLES = ['container_notifications', 'erp_sync_runs', 'erp_work_orders'];

migration('goes down and up again, keeping the clients and organizations it adds a logo column to', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-mig-'));
  const db = openDatabase(dir);
  try {
    await migrateToLatest(db);
    for (const table of NEW_TABLES) assert.ok(tables(db).includes(table), table);
    assert.ok(columns(db, 'clients').includes('logo_file_id'));
    assert.ok(columns(db, 'organizations').includes('logo_file_id'));
    db.sqlite.prepare("insert into clients (name, created_at, updated_at, logo_file_id) values ('Kept', 'x', 'x', 7)").run();
    let down: string[] = [];
    while (!down.includes('0015_integrations')) down = await migrateDown(db);
    for (const table of NEW_TABLES) assert.not.ok(tables(db).includes(table), table);
    assert.not.ok(columns(db, 'clients').includes('logo_file_id'));
    assert.not.ok(columns(db, 'organizations').includes('logo_file_id'));
    assert.is((db.sqlite.prepare("select count(*) as n from clients where name = 'Kept'").get() as { n: number }).n, 1);
    await migrateToLatest(db);
    assert.ok(tables(db).includes('erp_work_orders'));
    assert.ok(columns(db, 'clients').includes('logo_file_id'));
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

migration.run();
