import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '#db/connection';
import { migrateDown, migrateToLatest } from '#db/migrator';

const migration = suite('migration 0011_events');

const tables = (db: ReturnType<typeof openDatabase>) =>
  (db.sqlite.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map((t) => t.name);

migration('goes down and up again', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-mig-'));
  const db = openDatabase(dir);
  try {
    await migrateToLatest(db);
    for (const table of ['events', 'webhooks', 'webhook_deliveries', 'idempotency_keys']) assert.ok(tables(db).includes(table), table);
    let down: string[] = [];
    while (!down.includes('0011_events')) down = await migrateDown(db);
    for (const table of ['events', 'webhooks', 'webhook_deliveries', 'idempotency_keys']) assert.not.ok(tables(db).includes(table), table);
    await migrateToLatest(db);
    assert.ok(tables(db).includes('webhook_deliveries'));
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

migration.run();
