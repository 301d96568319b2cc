import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '#config';
import { closeDeps, createDeps } from '#composition';
import { openPostgres } from '#db/connection';
import { startServer } from '#cli/serve';
import { runDoctor } from '#ops/doctor';
import { testPostgres } from '../helpers/postgres';
import { testDaemonEnv, TEST_MASTER_KEY } from '../helpers/server';

// A lost database must never pass for a new appliance, on PostgreSQL too: the secrets live in the database, so what
// tells a lost database from a first start is the node's own file store — stored files beside a database with no wip
// schema (dropped, restored from the wrong dump, a new empty database named by mistake). The daemon refuses it, doctor FAILs, and
// --new-database (startServer's newDatabase) starts anew on purpose; a node with no stored files starts as before.

const lost = suite('PostgreSQL: an empty database beside a data directory that stores files');

function dataDirWithFiles(): string {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-lost-pg-'));
  fs.mkdirSync(path.join(dataDir, 'files', 'cd'), { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(dataDir, 'files', 'cd', 'cd'.repeat(32)), 'a photo');
  return dataDir;
}

const configFor = (dataDir: string, databaseUrl: string) =>
  loadConfig({ env: { ...testDaemonEnv(dataDir), WIP_DATABASE_URL: databaseUrl, WIP_MASTER_KEY: TEST_MASTER_KEY } });

async function tables(databaseUrl: string): Promise<number> {
  const db = openPostgres(databaseUrl, { poolSize: 1 });
  try {
    const { rows } = await sql<{ n: string }>`select count(*) as n from information_schema.tables where table_schema = 'public'`.execute(
      db.kysely,
    );
    return Number(rows[0].n);
  } finally {
    await db.close();
  }
}

lost('the daemon refuses and doctor FAILs, naming the database and the stored files; nothing is created', async () => {
  const databaseUrl = await (await testPostgres()).freshDatabaseUrl({ empty: true });
  const dataDir = dataDirWithFiles();
  const config = configFor(dataDir, databaseUrl);
  const deps = createDeps(config);
  try {
    await startServer(deps).then(
      async (running) => {
        await running.stop();
        assert.unreachable('an empty database beside stored files must not start');
      },
      (error: Error) => {
        assert.match(error.message, /^the database .+ \(databaseUrl\) holds no wip schema, but this data directory has been initialised/);
        assert.match(error.message, /1 stored file\(s\) in files\//);
        assert.match(error.message, /wip restore FILE/);
        assert.not.match(error.message, /wip-test-password/, 'no credentials in the message');
      },
    );
  } finally {
    await closeDeps(deps);
  }
  assert.is(await tables(databaseUrl), 0, 'no migration ran');
  const report = await runDoctor(config, { timeoutMs: 500 });
  assert.is(report.ok, false);
  const migrations = report.checks.find((c) => c.name === 'migrations')!;
  assert.is(migrations.status, 'FAIL');
  assert.match(migrations.message, /holds no wip schema/);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

lost('a node that stores no files starts on an empty database (a first start); --new-database starts anew on purpose', async () => {
  const first = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-first-pg-'));
  const running = await startServer(createDeps(configFor(first, await (await testPostgres()).freshDatabaseUrl({ empty: true }))));
  await running.stop();
  fs.rmSync(first, { recursive: true, force: true });

  const dataDir = dataDirWithFiles();
  const databaseUrl = await (await testPostgres()).freshDatabaseUrl({ empty: true });
  const anew = await startServer(createDeps(configFor(dataDir, databaseUrl)), { newDatabase: true });
  await anew.stop();
  assert.ok((await tables(databaseUrl)) > 10, 'migrated');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

lost.run();
