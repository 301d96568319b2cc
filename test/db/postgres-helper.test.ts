import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { testPostgres } from '../helpers/postgres';

test('the test PostgreSQL server hands out databases of its own (empty, or migrated from a template), version 14 or newer', async () => {
  const server = await testPostgres();
  const first = await server.freshDatabaseUrl({ empty: true });
  const second = await server.freshDatabaseUrl({ empty: true });
  assert.is.not(first, second);
  const client = new pg.Client({ connectionString: first });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT current_setting('server_version_num')::int AS version, count(*)::int AS tables FROM information_schema.tables WHERE table_schema = 'public'");
    assert.ok(rows[0].version >= 140000);
    assert.is(rows[0].tables, 0);
  } finally {
    await client.end();
  }
  const migrated = new pg.Client({ connectionString: await server.freshDatabaseUrl() });
  await migrated.connect();
  try {
    const { rows } = await migrated.query('SELECT count(*)::int AS applied FROM kysely_migration');
    assert.ok(rows[0].applied > 0);
  } finally {
    await migrated.end();
  }
});

test.run();
