import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { openDatabase } from '../../src/db/connection';
import { compiledRead } from '../../src/db/compiled-query';
import { inTenant, tenantScope } from '../../src/db/tenant';

const test = suite('compiledRead: a read compiled once, run with new values');

async function setup() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-compiled-'));
  const db = openDatabase(dir);
  await db.kysely.schema.createTable('user_roles').addColumn('client_id', 'integer').addColumn('user_id', 'integer').addColumn('role', 'text').execute();
  await db.kysely
    .insertInto('user_roles')
    .values([1, 2, 3, 4].flatMap((user) => [1, 2].map((client) => ({ client_id: client, user_id: user, role: `r${client}-${user}` }))))
    .execute();
  return { db, close: () => db.close() };
}

test('each call binds its own values (tenant scope included) and runs the SQL the builder compiles', async () => {
  const { db, close } = await setup();
  const build = (k: typeof db.kysely, clientId: number, low: number, limit: number) =>
    inTenant(k, tenantScope(clientId)).selectFrom('user_roles').select(['user_id', 'role']).where('user_id', '>=', low).orderBy('user_id').limit(limit);
  const read = compiledRead(build);
  for (const [clientId, low, limit] of [
    [1, 2, 10],
    [2, 1, 2],
    [1, 4, 1],
    [3, 1, 10],
  ] as const) {
    assert.equal(await read(db.kysely, clientId, low, limit), await build(db.kysely, clientId, low, limit).execute());
  }
  assert.equal((await read(db.kysely, 2, 3, 5)).map((r) => r.role), ['r2-3', 'r2-4']);
  await close();
});

test('a value computed with (not handed over as it is) is refused at the first call; so is a write', async () => {
  const { db, close } = await setup();
  const computed = compiledRead((k, clientId: number, limit: number) => inTenant(k, tenantScope(clientId)).selectFrom('user_roles').selectAll().limit(limit + 1));
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

test.run();
