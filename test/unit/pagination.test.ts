import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { Kysely, PostgresDialect } from 'kysely';
import { openDatabase } from '#db/connection';
import { afterId } from '#db/pagination';
import type { DB } from '#db/schema';

const test = suite('keyset pages (afterId)');

test("a page's LIMIT is an expression, not a bare bound parameter (SQLite would prepare the statement again on every run)", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-pagination-'));
  const db = openDatabase(dir);
  const postgres = new Kysely<DB>({ dialect: new PostgresDialect({ pool: {} as never }) });
  try {
    const page = (k: Kysely<DB>) => afterId(k.selectFrom('user_roles').select(['user_id', 'role']), 2, 3, 'user_id');
    const sqlite = page(db.kysely).compile();
    assert.match(sqlite.sql, /limit \? \+ 0$/);
    assert.equal(sqlite.parameters, [2, 3]);
    assert.match(page(postgres).compile().sql, /limit \$2 \+ 0$/);

    // and it pages as before
    await db.kysely.schema
      .createTable('user_roles')
      .addColumn('client_id', 'integer')
      .addColumn('user_id', 'integer')
      .addColumn('role', 'text')
      .execute();
    await db.kysely
      .insertInto('user_roles')
      .values([1, 2, 3, 4, 5, 6].map((user) => ({ client_id: 1, user_id: user, role: `r${user}` })))
      .execute();
    assert.equal(
      (await page(db.kysely).execute()).map((r) => r.user_id),
      [3, 4, 5],
    );
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
