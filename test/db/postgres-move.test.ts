import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, TEST_MASTER_KEY } from '../helpers/server';
import { testPostgres } from '../helpers/postgres';
import { adminToken, buildClient, buildUser, PASSWORD, signIn } from '../helpers/factories';
import { createJob, DOMAIN_TEST_ENV, publishedTemplate } from '../helpers/domain';
import { gql } from '../helpers/graphql';
import { runCli } from '../helpers/cli';

test('`wip migrate-to-postgres` moves a SQLite appliance: every row arrives, users stay signed in, the same requests get the same answers; a non-empty target is refused', async () => {
  const sqlite = await startTestServer({ backend: 'sqlite', env: DOMAIN_TEST_ENV });
  const client = await buildClient(sqlite);
  const user = await buildUser(sqlite, client, { roles: ['operator'] });
  const { templateId } = await publishedTemplate(sqlite, client);
  await createJob(sqlite, client.owner.token, { templateId, title: 'Moved job', assigneeIds: [user.id] });
  const userToken = await signIn(sqlite, user.email, PASSWORD);
  const admin = await adminToken(sqlite);
  const requests = async (server: typeof sqlite) => ({
    me: (await server.request('GET', '/api/client/auth/me', { token: userToken })).body,
    clients: (await server.request('GET', '/api/admin/client', { token: admin })).body,
    jobs: await gql(server, client.owner.token, '{ jobs(first: 10) { edges { node { id title state assignees { id } } } } }'),
  });
  const before = await requests(sqlite);
  await sqlite.stop({ keepData: true });

  const url = await (await testPostgres()).freshDatabaseUrl({ empty: true });
  const env = { WIP_MASTER_KEY: TEST_MASTER_KEY, WIP_LOG_LEVEL: 'silent' };
  const moved = await runCli(['--data-dir', sqlite.dataDir, '--json', 'migrate-to-postgres', '--database-url', url], { env });
  assert.is(moved.code, 0, moved.stderr);
  const report = JSON.parse(moved.stdout);
  assert.ok(report.tables.find((t: { name: string; rows: number }) => t.name === 'sessions').rows >= 2);
  assert.ok(report.auditChains >= 1);

  const again = await runCli(['--data-dir', sqlite.dataDir, 'migrate-to-postgres', '--database-url', url], { env });
  assert.is(again.code, 1);
  assert.match(again.stderr, /target database is not empty/);

  const postgres = await startTestServer({ dataDir: sqlite.dataDir, env: { ...DOMAIN_TEST_ENV, WIP_DATABASE_URL: url, WIP_MASTER_KEY: TEST_MASTER_KEY } });
  try {
    assert.equal(await requests(postgres), before);
    // new rows continue after the copied ids
    const next = await buildUser(postgres, client);
    assert.ok(next.id > user.id);
  } finally {
    await postgres.stop();
  }
});

test.run();
