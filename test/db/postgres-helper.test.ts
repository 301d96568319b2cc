import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { testPostgres } from '../helpers/postgres';

test('the test PostgreSQL server hands out empty databases of its own, version 14 or newer', async () => {
  const server = await testPostgres();
  const first = await server.freshDatabaseUrl();
  const second = await server.freshDatabaseUrl();
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
});

test.run();
