import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { test } from 'uvu';
import S3rver from 's3rver';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { loadConfig } from '#config';
import { createS3FileStore } from '#storage/s3';
import { GLB, PNG, upload } from '../helpers/upload';
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

  const postgres = await startTestServer({
    dataDir: sqlite.dataDir,
    env: { ...DOMAIN_TEST_ENV, WIP_DATABASE_URL: url, WIP_MASTER_KEY: TEST_MASTER_KEY },
  });
  try {
    assert.equal(await requests(postgres), before);
    // new rows continue after the copied ids
    const next = await buildUser(postgres, client);
    assert.ok(next.id > user.id);
  } finally {
    await postgres.stop();
  }
});

test('`wip migrate-to-postgres --file-store s3://…` copies every file into the object store (resuming what is there, repairing a damaged object), verifies each SHA-256 there, and the daemon on PostgreSQL and S3 serves the same downloads', async () => {
  const s3Dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-s3-'));
  const s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: s3Dir,
    configureBuckets: [{ name: 'wip-files', configs: [] }],
  });
  const { port } = await s3.run();
  const s3Env = {
    WIP_FILE_STORE_ENDPOINT: `http://127.0.0.1:${port}`,
    WIP_FILE_STORE_PATH_STYLE: 'true',
    WIP_FILE_STORE_ACCESS_KEY_ID: 'S3RVER',
    WIP_FILE_STORE_SECRET_ACCESS_KEY: 'S3RVER',
  };
  const bucket = new S3Client({
    region: 'us-east-1',
    endpoint: s3Env.WIP_FILE_STORE_ENDPOINT,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  try {
    const sqlite = await startTestServer({ backend: 'sqlite', env: DOMAIN_TEST_ENV });
    const client = await buildClient(sqlite);
    const uploaded = await upload(sqlite, client.owner.token, [
      { name: 'pump.glb', data: GLB },
      { name: 'valve.png', data: PNG },
    ]);
    assert.is(uploaded.status, 201, uploaded.text);
    const urls: string[] = uploaded.body.data.files.map((f: { url: string }) => f.url);
    const downloads = async (server: typeof sqlite) => {
      const answers = [];
      for (const url of urls) {
        for (const range of [undefined, 'bytes=4-13']) {
          const res = await fetch(server.url + url, {
            headers: { authorization: `Bearer ${client.owner.token}`, ...(range && { range }) },
          });
          answers.push({
            url,
            range,
            status: res.status,
            type: res.headers.get('content-type'),
            contentRange: res.headers.get('content-range'),
            body: Buffer.from(await res.arrayBuffer()).toString('base64'),
          });
        }
      }
      return answers;
    };
    const before = await downloads(sqlite);
    await sqlite.stop({ keepData: true });

    // an earlier, interrupted run left one file in the bucket, and another object with the right size but damaged bytes
    const filesDir = path.join(sqlite.dataDir, 'files');
    const local = new Map<string, Buffer>();
    for (const sub of fs.readdirSync(filesDir).filter((n) => /^[a-f0-9]{2}$/.test(n))) {
      for (const key of fs.readdirSync(path.join(filesDir, sub))) local.set(key, fs.readFileSync(path.join(filesDir, sub, key)));
    }
    assert.ok(local.size >= 2);
    const [resumedKey, damagedKey] = [...local.keys()];
    const store = createS3FileStore(loadConfig({ env: { WIP_DATA_DIR: s3Dir, WIP_FILE_STORE: 's3://wip-files/moved', ...s3Env } }));
    await store.put(local.get(resumedKey)!);
    await bucket.send(
      new PutObjectCommand({ Bucket: 'wip-files', Key: `moved/${damagedKey}`, Body: Buffer.alloc(local.get(damagedKey)!.length, 0x2a) }),
    );

    const url = await (await testPostgres()).freshDatabaseUrl({ empty: true });
    const env = { WIP_MASTER_KEY: TEST_MASTER_KEY, WIP_LOG_LEVEL: 'silent', ...s3Env };
    const moved = await runCli(
      ['--data-dir', sqlite.dataDir, 'migrate-to-postgres', '--database-url', url, '--file-store', 's3://wip-files/moved'],
      { env },
    );
    assert.is(moved.code, 0, moved.stderr);
    assert.match(
      moved.stdout,
      new RegExp(
        `Files: ${local.size} \\(\\d+ bytes\\) in s3://wip-files/moved: ${local.size - 2} uploaded, 2 already there, 1 uploaded again; every SHA-256 verified`,
      ),
    );
    assert.match(
      moved.stdout,
      /WIP_FILE_STORE=s3:\/\/wip-files\/moved\n\s+WIP_FILE_STORE_ENDPOINT=http:\/\/127\.0\.0\.1:\d+\n\s+WIP_FILE_STORE_REGION=us-east-1\n\s+WIP_FILE_STORE_PATH_STYLE=true\n\s+WIP_FILE_STORE_ACCESS_KEY_ID=S3RVER\n\s+WIP_FILE_STORE_SECRET_ACCESS_KEY=<the secret key you used>/,
    );

    // every file arrived with the right content, and nothing else (no temporary objects)
    const listed = await bucket.send(new ListObjectsV2Command({ Bucket: 'wip-files', Prefix: 'moved/' }));
    assert.equal((listed.Contents ?? []).map((o) => o.Key!.slice('moved/'.length)).sort(), [...local.keys()].sort());
    for (const key of local.keys()) {
      const object = await bucket.send(new GetObjectCommand({ Bucket: 'wip-files', Key: `moved/${key}` }));
      assert.is(
        createHash('sha256')
          .update(Buffer.from(await object.Body!.transformToByteArray()))
          .digest('hex'),
        key,
      );
    }

    // the nodes read the object store only: the local files are gone
    fs.rmSync(filesDir, { recursive: true });
    const postgres = await startTestServer({
      dataDir: sqlite.dataDir,
      env: { ...DOMAIN_TEST_ENV, ...s3Env, WIP_DATABASE_URL: url, WIP_MASTER_KEY: TEST_MASTER_KEY, WIP_FILE_STORE: 's3://wip-files/moved' },
    });
    try {
      const after = await downloads(postgres);
      assert.equal(after, before);
      assert.equal(
        after.filter((a) => a.range).map((a) => a.status),
        urls.map(() => 206),
      );
    } finally {
      await postgres.stop();
    }
  } finally {
    await s3.close();
    fs.rmSync(s3Dir, { recursive: true, force: true });
  }
});

test.run();
