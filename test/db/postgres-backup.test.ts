import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, TEST_MASTER_KEY, type TestServer } from '../helpers/server';
import { testPostgres } from '../helpers/postgres';
import { adminToken, buildClient, buildUser, PASSWORD, signIn } from '../helpers/factories';
import { createJob, DOMAIN_TEST_ENV, publishedTemplate } from '../helpers/domain';
import { gql } from '../helpers/graphql';
import { runCli } from '../helpers/cli';
import { upload } from '../helpers/upload';

// PostgreSQL 15: the client tools of this machine and CI (Debian's postgresql-client) are 15, and pg_dump refuses a newer server
const nodeEnv = (url: string) => ({ ...DOMAIN_TEST_ENV, WIP_DATABASE_URL: url, WIP_MASTER_KEY: TEST_MASTER_KEY });
const cliEnv = (url: string, extra: Record<string, string> = {}) => ({
  WIP_DATABASE_URL: url,
  WIP_MASTER_KEY: TEST_MASTER_KEY,
  WIP_LOG_LEVEL: 'silent',
  ...extra,
});

test('`wip backup` on PostgreSQL (pg_dump -Fc and the local files) restored with `wip restore` into a new database: the same answers, the same file, tokens issued before still work; a non-empty target needs --replace', async () => {
  const pg = await testPostgres({ release: 15 });
  const url = await pg.freshDatabaseUrl();
  const server = await startTestServer({ env: nodeEnv(url) });
  let stopped: Promise<void> | undefined;
  const stop = () => (stopped ??= server.stop({ keepData: true }));
  try {
    await backupAndRestore(pg, url, server, stop);
  } finally {
    // also when an assertion failed: no server left listening
    await stop();
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  }
});

async function backupAndRestore(
  pg: Awaited<ReturnType<typeof testPostgres>>,
  url: string,
  server: TestServer,
  stop: () => Promise<void>,
): Promise<void> {
  const client = await buildClient(server);
  const user = await buildUser(server, client, { roles: ['operator'] });
  const { templateId } = await publishedTemplate(server, client);
  await createJob(server, client.owner.token, { templateId, title: 'Backed-up job', assigneeIds: [user.id] });
  const uploaded = await upload(server, client.owner.token, [{ name: 'manual.bin', data: Buffer.from(`restored bytes ${Math.random()}`) }]);
  assert.is(uploaded.status, 201, uploaded.text);
  const fileId = uploaded.body.data.files[0].id as number;
  const userToken = await signIn(server, user.email, PASSWORD);
  const admin = await adminToken(server);
  const ok = <T extends { status: number; text: string }>(res: T): T => {
    assert.is(res.status, 200, res.text);
    return res;
  };
  const requests = async (s: TestServer) => ({
    me: ok(await s.request('GET', '/api/client/auth/me', { token: userToken })).body,
    users: ok(await s.request('GET', `/api/admin/user?clientId=${client.id}`, { token: admin })).body,
    clients: ok(await s.request('GET', '/api/admin/client', { token: admin })).body,
    jobs: await gql(s, client.owner.token, '{ jobs(first: 10) { edges { node { id title state assignees { id } } } } }'),
    file: ok(await s.request('GET', `/api/client/files/${fileId}`, { token: client.owner.token })).text,
  });
  const before = await requests(server);
  assert.match(before.file, /restored bytes/);
  assert.ok(before.users.data.items.some((u: { id: number }) => u.id === user.id));
  assert.is(before.jobs.data.jobs.edges[0].node.title, 'Backed-up job');
  const storage = await server.request('GET', '/api/admin/system/storage', { token: admin });
  assert.is(storage.status, 200, storage.text);
  // pg_database_size: an empty PostgreSQL database alone is several MB (no wip.db in PostgreSQL mode)
  assert.ok(storage.body.data.databaseBytes > 1_000_000, String(storage.body.data.databaseBytes));
  await stop();

  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-pg-backup-'));
  try {
    const archive = path.join(out, 'site.tar.gz');
    const backup = await runCli(['--data-dir', server.dataDir, '--json', 'backup', '--output', archive], { env: cliEnv(url) });
    assert.is(backup.code, 0, backup.stderr);
    const written = JSON.parse(backup.stdout);
    assert.is(written.database, 'postgresql');
    assert.is(written.postgres.dumpVersion.split('.')[0], '15');
    assert.is(written.fileStore, 'local');
    // with an object store the archive holds the database only, and says so
    const objectStore = await runCli(['--data-dir', server.dataDir, '--json', 'backup', '--output', path.join(out, 's3-site.tar.gz')], {
      env: cliEnv(url, { WIP_FILE_STORE: 's3://wip-files/site' }),
    });
    assert.is(objectStore.code, 0, objectStore.stderr);
    assert.is(JSON.parse(objectStore.stdout).fileStore, 's3://wip-files/site');
    assert.match(JSON.parse(objectStore.stdout).note, /not in the archive: the object store keeps its own backups/);
    assert.is(JSON.parse(objectStore.stdout).entries, 1, 'wip.pgdump only');

    // a new, empty database and no files: a lost site
    fs.rmSync(path.join(server.dataDir, 'files'), { recursive: true, force: true });
    const target = await pg.freshDatabaseUrl({ empty: true });
    const restored = await runCli(['--data-dir', server.dataDir, '--json', 'restore', archive], { env: cliEnv(target) });
    assert.is(restored.code, 0, restored.stderr);
    const report = JSON.parse(restored.stdout);
    assert.ok(report.auditChains >= 1);
    assert.ok(report.files >= 1);
    assert.equal(report.pendingMigrations, []);

    const again = await runCli(['--data-dir', server.dataDir, 'restore', archive], { env: cliEnv(target) });
    assert.is(again.code, 1);
    assert.match(again.stderr, /target database is not empty.*--replace/);
    // a newer schema's table (rolling back an upgrade) goes too; a connected session (a node still running) is refused first
    const session = new Client({ connectionString: target });
    await session.connect();
    try {
      await session.query('create table newer_schema_table (id int references users (id))');
      const busy = await runCli(['--data-dir', server.dataDir, 'restore', '--replace', archive], { env: cliEnv(target) });
      assert.is(busy.code, 1);
      assert.match(busy.stderr, /1 other session\(s\) are connected to the target database: stop every wip node/);
    } finally {
      await session.end();
    }
    const replaced = await runCli(['--data-dir', server.dataDir, '--json', 'restore', '--replace', archive], { env: cliEnv(target) });
    assert.is(replaced.code, 0, replaced.stderr);
    assert.ok(JSON.parse(replaced.stdout).replacedTables > 10);
    const check = new Client({ connectionString: target });
    await check.connect();
    try {
      assert.is((await check.query("select to_regclass('newer_schema_table') as t")).rows[0].t, null);
    } finally {
      await check.end();
    }

    const after = await startTestServer({ dataDir: server.dataDir, env: nodeEnv(target) });
    try {
      assert.equal(await requests(after), before);
    } finally {
      await after.stop({ keepData: true });
    }
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

test('`wip backup` on PostgreSQL without a usable pg_dump says what to install, exits 1 and writes nothing', async () => {
  const url = await (await testPostgres()).freshDatabaseUrl();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-pg-nodump-'));
  const archive = path.join(dataDir, 'out', 'site.tar.gz');
  try {
    // none at all where it is told to look
    const empty = path.join(dataDir, 'no-tools');
    fs.mkdirSync(empty);
    const missing = await runCli(['--data-dir', dataDir, 'backup', '--output', archive], { env: cliEnv(url, { WIP_PG_TOOLS_DIR: empty }) });
    assert.is(missing.code, 1);
    assert.match(missing.stderr, /pg_dump was not found in pgToolsDir .*install the PostgreSQL 18 \(or newer\) client tools/);

    // only older ones: the PATH has none, and Debian's postgresql-client (15, as on this machine and CI) is older than the test server
    const old = await runCli(['--data-dir', dataDir, 'backup', '--output', archive], {
      env: cliEnv(url, { PATH: path.dirname(process.execPath) }),
    });
    assert.is(old.code, 1);
    assert.match(old.stderr, /pg_dump 1[4-7]\.\d+ \(.*\) is too old: version 18 or newer is needed/);
    assert.not.ok(fs.existsSync(archive));
    assert.equal(fs.existsSync(path.dirname(archive)) ? fs.readdirSync(path.dirname(archive)) : [], []);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('`wip backup` on PostgreSQL with a pg_dump that cannot be started (EACCES, ENOENT) says which file, why and what to check, exits 1 and writes nothing', async () => {
  const url = await (await testPostgres()).freshDatabaseUrl();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-pg-nostart-'));
  const archive = path.join(dataDir, 'out', 'site.tar.gz');
  // each fake answers the version check, then cannot be started for the dump itself (or, the last, not even for the check)
  const cases = [
    {
      name: 'eacces',
      script: '#!/bin/sh\necho "pg_dump (PostgreSQL) 18.1"; chmod a-x "$0"\n',
      expect: /pg_dump 18\.1 \(.*\/eacces\/pg_dump\) could not be started \(EACCES\): the user wip runs as may not execute it/,
    },
    {
      name: 'enoent',
      script: '#!/bin/sh\necho "pg_dump (PostgreSQL) 18.1"; rm -f "$0"\n',
      expect:
        /pg_dump 18\.1 \(.*\/enoent\/pg_dump\) could not be started \(ENOENT\): it \(or the interpreter it names\) is no longer there/,
    },
    {
      name: 'no-interpreter',
      script: '#!/nonexistent/sh\n',
      expect:
        /no usable pg_dump in pgToolsDir \(.*\): .*\/no-interpreter\/pg_dump could not be started \(ENOENT\).*; or install the PostgreSQL 18/,
    },
  ];
  try {
    for (const { name, script, expect } of cases) {
      const tools = path.join(dataDir, name);
      fs.mkdirSync(tools);
      fs.writeFileSync(path.join(tools, 'pg_dump'), script, { mode: 0o755 });
      const result = await runCli(['--data-dir', dataDir, 'backup', '--output', archive], {
        env: cliEnv(url, { WIP_PG_TOOLS_DIR: tools }),
      });
      assert.is(result.code, 1, name);
      assert.match(result.stderr, /backup failed, nothing written: /, name);
      assert.match(result.stderr, expect, name);
      assert.not.match(result.stderr, /Unhandled|at .*\.js:\d+/, name);
      assert.not.ok(fs.existsSync(archive), name);
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
