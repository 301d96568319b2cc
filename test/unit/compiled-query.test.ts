import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { openDatabase } from '#db/connection';
import { compiledRead } from '#db/compiled-query';
import { inTenant, tenantScope } from '#db/tenant';
import { withTransaction } from '#db/transaction';

const test = suite('compiledRead: a read compiled once, run with new values');

async function setup(onQuery?: (kind: string, seconds: number) => void) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-compiled-'));
  const db = openDatabase(dir, { onQuery });
  await db.kysely.schema
    .createTable('user_roles')
    .addColumn('client_id', 'integer')
    .addColumn('user_id', 'integer')
    .addColumn('role', 'text')
    .execute();
  await db.kysely
    .insertInto('user_roles')
    .values([1, 2, 3, 4].flatMap((user) => [1, 2].map((client) => ({ client_id: client, user_id: user, role: `r${client}-${user}` }))))
    .execute();
  return { db, close: () => db.close() };
}

test('each call binds its own values (tenant scope included) and runs the SQL the builder compiles', async () => {
  const { db, close } = await setup();
  const build = (k: typeof db.kysely, clientId: number, low: number, limit: number) =>
    inTenant(k, tenantScope(clientId))
      .selectFrom('user_roles')
      .select(['user_id', 'role'])
      .where('user_id', '>=', low)
      .orderBy('user_id')
      .limit(limit);
  const read = compiledRead(build);
  for (const [clientId, low, limit] of [
    [1, 2, 10],
    [2, 1, 2],
    [1, 4, 1],
    [3, 1, 10],
  ] as const) {
    assert.equal(await read(db.kysely, clientId, low, limit), await build(db.kysely, clientId, low, limit).execute());
  }
  assert.equal(
    (await read(db.kysely, 2, 3, 5)).map((r) => r.role),
    ['r2-3', 'r2-4'],
  );
  await close();
});

test('a value computed with (not handed over as it is) is refused at the first call; so is a write', async () => {
  const { db, close } = await setup();
  const computed = compiledRead((k, clientId: number, limit: number) =>
    inTenant(k, tenantScope(clientId))
      .selectFrom('user_roles')
      .selectAll()
      .limit(limit + 1),
  );
  try {
    await computed(db.kysely, 1, 1);
    assert.unreachable('a computed value must be refused');
  } catch (error) {
    assert.match(String(error), /value 1 is not a parameter/);
  }
  const write = compiledRead((k, clientId: number) => k.deleteFrom('user_roles').where('client_id', '=', clientId) as never);
  try {
    await write(db.kysely, 1);
    assert.unreachable('a write must be refused');
  } catch (error) {
    assert.match(String(error), /for SELECT/);
  }
  assert.is((await db.kysely.selectFrom('user_roles').selectAll().execute()).length, 8);
  await close();
});

test("a read on SQLite skips the executor but not the query metrics, and never sees an open transaction's writes", async () => {
  const kinds: string[] = [];
  const { db, close } = await setup((kind) => kinds.push(kind));
  const read = compiledRead((k, clientId: number) =>
    inTenant(k, tenantScope(clientId)).selectFrom('user_roles').select('role').orderBy('user_id'),
  );
  kinds.length = 0;
  assert.is((await read(db.kysely, 1)).length, 4);
  assert.equal(kinds, ['select']);
  // a transaction holding the connection, with a write it will roll back
  let readDuring: Promise<{ role: string }[]> | undefined;
  let readSettled = false;
  await withTransaction(db, async (trx) => {
    await trx.insertInto('user_roles').values({ client_id: 1, user_id: 9, role: 'uncommitted' }).execute();
    readDuring = read(db.kysely, 1);
    void readDuring.then(() => (readSettled = true));
    // the transaction's own later read is answered first: the read asked for before it waits for the connection
    await trx.selectFrom('user_roles').select('role').execute();
    assert.not.ok(readSettled, 'a read waits for the transaction holding the connection');
    throw Object.assign(new Error('roll back'), { rollBack: true });
  }).catch((error: { rollBack?: boolean }) => {
    if (!error.rollBack) throw error;
  });
  assert.equal(
    (await readDuring!).map((r) => r.role),
    ['r1-1', 'r1-2', 'r1-3', 'r1-4'],
  );
  await close();
});

test.run();
