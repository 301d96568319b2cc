import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '#db/connection';
import { migrateDown, migrateToLatest } from '#db/migrator';

const migrations = suite('migration 0004_licensing_agreements');

migrations('goes up, down and up again; the deployment gets an installation id', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-mig-'));
  const db = openDatabase(dir);
  try {
    await migrateToLatest(db);
    const first = await db.kysely.selectFrom('deployment_state').selectAll().executeTakeFirstOrThrow();
    assert.match(first.installation_id, /^[0-9a-f-]{36}$/);
    assert.is(first.license_row_id, null);
    // later migrations come down first
    const down: string[] = [];
    while (!down.includes('0004_licensing_agreements')) {
      const step = await migrateDown(db);
      assert.ok(step.length > 0, down.join(','));
      down.push(...step);
    }
    const tables = db.sqlite.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[];
    assert.not.ok(tables.some((t) => ['installed_licenses', 'deployment_state', 'agreements', 'agreement_acceptances'].includes(t.name)));
    await migrateToLatest(db);
    const again = await db.kysely.selectFrom('deployment_state').selectAll().executeTakeFirstOrThrow();
    assert.is(again.id, 1);
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

migrations.run();
