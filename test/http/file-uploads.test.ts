import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser } from '../helpers/factories';
import { GLB, PNG, upload } from '../helpers/upload';

let server: TestServer;
const uploads = suite('POST /api/client/upload and GET /api/client/files/:id');
uploads.before(async () => {
  server = await startTestServer({ env: { WIP_SIGN_IN_RATE_LIMIT_MAX: '100000' } });
});
uploads.after(async () => server.stop());

const sha = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

uploads('201 with each file described; the content type comes from the bytes, not the client', async () => {
  const client = await buildClient(server);
  const res = await upload(
    server,
    client.owner.token,
    [
      { name: 'photo.jpg', data: PNG, type: 'image/jpeg' },
      { name: 'pump.glb', data: GLB, type: 'text/html' },
      { name: '../../etc/notes.txt', data: 'torque to 40 Nm', type: 'text/html' },
    ],
    { metadata: JSON.stringify({ description: 'pump media' }) },
  );
  assert.is(res.status, 201, res.text);
  const files = res.body.data.files;
  assert.equal(
    files.map((f: any) => [f.name, f.size, f.sha256, f.contentType, f.description]),
    [
      ['photo.jpg', PNG.length, sha(PNG), 'image/png', 'pump media'],
      ['pump.glb', GLB.length, sha(GLB), 'model/gltf-binary', 'pump media'],
      ['notes.txt', 15, sha('torque to 40 Nm'), 'text/plain', 'pump media'],
    ],
  );
  assert.ok(files.every((f: any) => Number.isInteger(f.id) && typeof f.createdAt === 'string'));

  const download = await fetch(`${server.url}/api/client/files/${files[0].id}`, {
    headers: { authorization: `Bearer ${client.owner.token}` },
  });
  assert.is(download.status, 200);
  assert.is(download.headers.get('content-type'), 'image/png');
  assert.is(download.headers.get('etag'), `"${sha(PNG)}"`);
  assert.ok(Buffer.from(await download.arrayBuffer()).equals(PNG));
});

uploads('malformed metadata JSON is 422 naming metadata, and no file row is created', async () => {
  const client = await buildClient(server);
  const res = await upload(server, client.owner.token, [{ name: 'a.txt', data: 'hello' }], { metadata: '{"description": ' });
  assert.is(res.status, 422, res.text);
  assert.is(res.body.error.code, 'VALIDATION_ERROR');
  assert.is(res.body.error.details.fields[0].path, 'body.metadata');
  const count = await server.deps.db.kysely
    .selectFrom('files')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('client_id', '=', client.id)
    .executeTakeFirstOrThrow();
  assert.is(Number(count.n), 0);
});

uploads('no file part is 422; a JSON body is 415; a viewer is 403; a system admin uses /api/admin/upload', async () => {
  const client = await buildClient(server);
  const none = await upload(server, client.owner.token, [], { metadata: '{}' });
  assert.is(none.status, 422, none.text);
  const json = await server.request('POST', '/api/client/upload', { token: client.owner.token, body: { file: 'x' } });
  assert.is(json.status, 415, json.text);
  const viewer = await buildUser(server, client, { roles: ['viewer'] });
  assert.is((await upload(server, viewer.token!, [{ name: 'a.txt', data: 'x' }])).status, 403);
  const admin = await adminToken(server);
  const system = await upload(server, admin, [{ name: 'msa.pdf', data: '%PDF-1.4 test' }], {
    path: '/api/admin/upload',
    metadata: '{"description":"MSA 2"}',
  });
  assert.is(system.status, 201, system.text);
  assert.is(system.body.data.files[0].contentType, 'application/pdf');
});

uploads.run();
