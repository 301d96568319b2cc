import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import S3rver from 's3rver';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { loadConfig } from '#config';
import { createS3FileStore } from '#storage/s3';
import type { FileStore } from '#storage';
import { startTestServer, TEST_MASTER_KEY } from '../helpers/server';
import { testPostgres } from '../helpers/postgres';
import { buildClient } from '../helpers/factories';
import { GLB, upload } from '../helpers/upload';

// The S3 file store against a real S3-protocol server on loopback (s3rver).

const PART = 5 * 1024 * 1024;
let server: S3rver;
let dir: string;
let endpoint: string;
let store: FileStore;

const s3 = suite('S3 file store');
s3.before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-s3-'));
  server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: dir,
    configureBuckets: [{ name: 'wip-files', configs: [] }],
  });
  const { port } = await server.run();
  endpoint = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    env: {
      WIP_DATA_DIR: dir,
      WIP_FILE_STORE: 's3://wip-files/plant-a',
      WIP_FILE_STORE_ENDPOINT: endpoint,
      WIP_FILE_STORE_PATH_STYLE: 'true',
      WIP_FILE_STORE_ACCESS_KEY_ID: 'S3RVER',
      WIP_FILE_STORE_SECRET_ACCESS_KEY: 'S3RVER',
      WIP_FILE_STORE_PART_SIZE: String(PART),
    },
  });
  store = createS3FileStore(config);
});
s3.after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function text(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function objects(): Promise<string[]> {
  const client = new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  const listed = await client.send(new ListObjectsV2Command({ Bucket: 'wip-files' }));
  return (listed.Contents ?? []).map((o) => o.Key!);
}

s3(
  'a stream larger than the part size is stored by a multipart upload under its SHA-256, read whole and by range, and deleted',
  async () => {
    const content = randomBytes(PART + 512 * 1024);
    const stored = await store.put(Readable.from([content.subarray(0, PART / 2), content.subarray(PART / 2)]));
    assert.is(stored.key, createHash('sha256').update(content).digest('hex'));
    assert.is(stored.size, content.length);
    assert.equal(await objects(), [`plant-a/${stored.key}`]);
    assert.is((await store.stat(stored.key))?.size, content.length);
    const whole = await store.get(stored.key);
    assert.ok((await text(whole.stream)).equals(content));
    const part = await store.get(stored.key, { start: 100, end: 199 });
    assert.is(part.size, content.length);
    assert.ok((await text(part.stream)).equals(content.subarray(100, 200)));
    await store.delete(stored.key);
    assert.is(await store.stat(stored.key), null);
    try {
      await store.get(stored.key);
      assert.unreachable('a missing file is ENOENT');
    } catch (error) {
      assert.is((error as { code?: string }).code, 'ENOENT');
    }
  },
);

s3('the same content stored twice is one object; a failing upload leaves nothing behind', async () => {
  const first = await store.put(Buffer.from('same bytes'));
  const second = await store.put(Buffer.from('same bytes'));
  assert.is(first.key, second.key);
  const failing = new Readable({
    read() {
      this.push(randomBytes(64 * 1024));
      this.destroy(new Error('upload over the limit'));
    },
  });
  try {
    await store.put(failing);
    assert.unreachable('the failed stream fails the put');
  } catch (error) {
    assert.match((error as Error).message, /over the limit/);
  }
  assert.equal(await objects(), [`plant-a/${first.key}`]);
});

s3(
  'two nodes on one database and one bucket: a file uploaded through one is downloaded, whole and by range, through the other',
  async () => {
    const env = {
      WIP_DATABASE_URL: await (await testPostgres()).freshDatabaseUrl(),
      WIP_MASTER_KEY: TEST_MASTER_KEY,
      WIP_FILE_STORE: 's3://wip-files/nodes',
      WIP_FILE_STORE_ENDPOINT: endpoint,
      WIP_FILE_STORE_PATH_STYLE: 'true',
      WIP_FILE_STORE_ACCESS_KEY_ID: 'S3RVER',
      WIP_FILE_STORE_SECRET_ACCESS_KEY: 'S3RVER',
    };
    const a = await startTestServer({ env });
    const b = await startTestServer({ env, license: 'evaluation' });
    try {
      const client = await buildClient(a);
      const res = await upload(a, client.owner.token, [{ name: 'pump.glb', data: GLB }]);
      assert.is(res.status, 201, res.text);
      const model = res.body.data.files[0];
      const get = (headers: Record<string, string> = {}) =>
        fetch(b.url + model.url, { headers: { authorization: `Bearer ${client.owner.token}`, ...headers } });
      const whole = await get();
      assert.is(whole.status, 200);
      assert.ok(Buffer.from(await whole.arrayBuffer()).equals(GLB));
      const range = await get({ range: 'bytes=10-19' });
      assert.is(range.status, 206);
      assert.is(range.headers.get('content-range'), `bytes 10-19/${GLB.length}`);
      assert.ok(Buffer.from(await range.arrayBuffer()).equals(GLB.subarray(10, 20)));
    } finally {
      await a.stop();
      await b.stop();
    }
  },
);

s3.run();
