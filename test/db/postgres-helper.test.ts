import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
    const { rows } = await client.query(
      "SELECT current_setting('server_version_num')::int AS version, count(*)::int AS tables FROM information_schema.tables WHERE table_schema = 'public'",
    );
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

test('a test PostgreSQL that cannot start is one failure of the test run, with the reason and the fix, and the files that need it do not run', () => {
  // a TMPDIR the server's user cannot enter: as root (the server runs as postgres) a private one, as .ci/run's mktemp -d clone; else one without write access
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-private-tmp-'));
  fs.chmodSync(tmp, process.getuid?.() === 0 ? 0o700 : 0o100);
  try {
    const run = spawnSync(
      process.execPath,
      [path.resolve(__dirname, '..', '..', 'scripts', 'run-tests.js'), 'db/postgres-move', 'db/postgres-outage'],
      {
        env: { ...process.env, TMPDIR: tmp },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    assert.is(run.status, 1, run.stdout + run.stderr);
    assert.match(
      run.stdout,
      /^FAIL PostgreSQL for the tests cannot start, so 2 runs that need it were skipped \(db\/postgres-move\.test\.js, db\/postgres-outage\.test\.js\)/m,
    );
    assert.match(run.stdout, /could not start: .*Fix: set TMPDIR to a writable folder every user can enter/);
    assert.match(run.stdout, /^0 passed, 1 failed$/m);
    assert.not.match(run.stdout + run.stderr, /Unhandled 'error' event/);
  } finally {
    fs.chmodSync(tmp, 0o700);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test.run();
