import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser } from '../helpers/factories';
import { GLB, PNG, upload } from '../helpers/upload';

let server: TestServer;
const downloads = suite('GET /api/client/download-model/:type/:id, GET /api/client/files/:id, POST /api/client/replaceFile');
downloads.before(async () => {
  server = await startTestServer({ env: { WIP_SIGN_IN_RATE_LIMIT_MAX: '100000' } });
});
downloads.after(async () => server.stop());

const sha = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const get = (token: string, path: string, headers: Record<string, string> = {}) =>
  fetch(server.url + path, { headers: { authorization: `Bearer ${token}`, ...headers } });
const bytes = async (res: Response) => Buffer.from(await res.arrayBuffer());

async function uploaded(token: string, name: string, data: Buffer | string) {
  const res = await upload(server, token, [{ name, data }]);
  assert.is(res.status, 201, res.text);
  return res.body.data.files[0];
}

downloads('a model streams with Content-Type, Content-Length, ETag and Accept-Ranges; If-None-Match answers 304', async () => {
  const client = await buildClient(server);
  const model = await uploaded(client.owner.token, 'pump.glb', GLB);
  assert.is(model.url, `/api/client/download-model/glb/${model.id}`);
  const viewer = await buildUser(server, client, { roles: ['viewer'] });
  const res = await get(viewer.token!, model.url);
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'model/gltf-binary');
  assert.is(res.headers.get('content-length'), String(GLB.length));
  assert.is(res.headers.get('accept-ranges'), 'bytes');
  assert.is(res.headers.get('etag'), `"${sha(GLB)}"`);
  assert.ok((await bytes(res)).equals(GLB));

  const cached = await get(viewer.token!, model.url, { 'if-none-match': `"${sha(GLB)}"` });
  assert.is(cached.status, 304);
  assert.is((await bytes(cached)).length, 0);
  const stale = await get(viewer.token!, model.url, { 'if-none-match': '"something-else"' });
  assert.is(stale.status, 200);
});

downloads('a range answers 206 with exactly those bytes; open-ended and suffix ranges; past the end is 416 with the size', async () => {
  const client = await buildClient(server);
  const model = await uploaded(client.owner.token, 'pump.glb', GLB);
  const token = client.owner.token;
  const middle = await get(token, model.url, { range: 'bytes=10-19' });
  assert.is(middle.status, 206);
  assert.is(middle.headers.get('content-range'), `bytes 10-19/${GLB.length}`);
  assert.is(middle.headers.get('content-length'), '10');
  assert.ok((await bytes(middle)).equals(GLB.subarray(10, 20)));

  const rest = await get(token, model.url, { range: `bytes=${GLB.length - 100}-` });
  assert.is(rest.status, 206);
  assert.ok((await bytes(rest)).equals(GLB.subarray(GLB.length - 100)));
  const suffix = await get(token, model.url, { range: 'bytes=-4' });
  assert.ok((await bytes(suffix)).equals(GLB.subarray(GLB.length - 4)));

  const beyond = await get(token, model.url, { range: `bytes=${GLB.length}-` });
  assert.is(beyond.status, 416);
  assert.is(beyond.headers.get('content-range'), `bytes */${GLB.length}`);
  assert.is(((await beyond.json()) as any).error.code, 'RANGE_NOT_SATISFIABLE');

  // If-Range with an outdated ETag: the whole (new) file, not a piece of it
  const whole = await get(token, model.url, { range: 'bytes=0-9', 'if-range': '"old"' });
  assert.is(whole.status, 200);
  assert.is((await bytes(whole)).length, GLB.length);
});

downloads('a type that does not match the stored file, an unknown type and another client’s id are 404', async () => {
  const client = await buildClient(server);
  const other = await buildClient(server);
  const model = await uploaded(client.owner.token, 'pump.glb', GLB);
  const photo = await uploaded(client.owner.token, 'photo.png', PNG);
  assert.is((await get(client.owner.token, `/api/client/download-model/obj/${model.id}`)).status, 404);
  assert.is((await get(client.owner.token, `/api/client/download-model/glb/${photo.id}`)).status, 404);
  assert.is((await get(client.owner.token, `/api/client/download-model/..%2F..%2Fetc/${model.id}`)).status, 404);
  assert.is((await get(client.owner.token, `/api/client/download-model/exe/${model.id}`)).status, 404);
  assert.is((await get(other.owner.token, model.url)).status, 404);
  assert.is((await get(other.owner.token, `/api/client/files/${photo.id}`)).status, 404);
  const photoRes = await get(client.owner.token, `/api/client/files/${photo.id}`);
  assert.is(photoRes.status, 200);
  assert.match(photoRes.headers.get('content-disposition')!, /^attachment; filename="photo.png"/);
});

downloads('each 3D format is recognised from its bytes (text formats need their extension too)', async () => {
  const client = await buildClient(server);
  const cases: [string, Buffer | string, string][] = [
    ['a.gltf', '{"asset": {"version": "2.0"}}', 'gltf'],
    ['a.obj', '# cube\nv 0 0 0\nv 1 0 0\nf 1 2 3\n', 'obj'],
    ['a.fbx', Buffer.concat([Buffer.from('Kaydara FBX Binary  \0'), Buffer.alloc(50)]), 'fbx'],
    ['a.ply', 'ply\nformat ascii 1.0\nelement vertex 0\nend_header\n', 'ply'],
    [
      'a.usdz',
      Buffer.concat([
        Buffer.from('PK\x03\x04', 'latin1'),
        Buffer.alloc(22),
        Buffer.from([9, 0, 0, 0]),
        Buffer.from('scene.usd', 'latin1'),
        Buffer.alloc(20),
      ]),
      'usdz',
    ],
  ];
  for (const [name, data, type] of cases) {
    const file = await uploaded(client.owner.token, name, data);
    assert.is(file.url, `/api/client/download-model/${type}/${file.id}`, name);
    assert.is((await get(client.owner.token, file.url)).status, 200, name);
  }
  // the same OBJ text under another name is just text, not a model
  const renamed = await uploaded(client.owner.token, 'notes.txt', 'v 0 0 0\n');
  assert.is(renamed.contentType, 'text/plain');
});

downloads(
  'replaceFile keeps the id and references, serves the new bytes with a new ETag, and keeps the old content as a revision',
  async () => {
    const client = await buildClient(server);
    const file = await uploaded(client.owner.token, 'manual-v1.pdf', '%PDF-1.4 version one');
    const res = await upload(server, client.owner.token, [{ name: 'manual-v2.pdf', data: '%PDF-1.4 version two' }], {
      path: '/api/client/replaceFile',
      fields: { fileId: String(file.id) },
    });
    assert.is(res.status, 200, res.text);
    assert.is(res.body.data.file.id, file.id);
    assert.is(res.body.data.file.revision, 2);
    assert.is(res.body.data.file.name, 'manual-v2.pdf');
    const download = await get(client.owner.token, `/api/client/files/${file.id}`);
    assert.is(await download.text(), '%PDF-1.4 version two');
    assert.is(download.headers.get('etag'), `"${sha('%PDF-1.4 version two')}"`);
    const revisions = await server.deps.db.kysely.selectFrom('file_revisions').selectAll().where('file_id', '=', file.id).execute();
    assert.equal(
      revisions.map((r) => [r.revision, r.sha256]),
      [[1, sha('%PDF-1.4 version one')]],
    );
    assert.ok(await server.deps.storage.stat(sha('%PDF-1.4 version one')), 'the old content is still stored');
  },
);

downloads('replaceFile: another client’s id is 404 and changes nothing; a missing fileId is 422', async () => {
  const client = await buildClient(server);
  const other = await buildClient(server);
  const file = await uploaded(client.owner.token, 'a.txt', 'original');
  const foreign = await upload(server, other.owner.token, [{ name: 'b.txt', data: 'hijack' }], {
    path: '/api/client/replaceFile',
    fields: { fileId: String(file.id) },
  });
  assert.is(foreign.status, 404, foreign.text);
  assert.is(await (await get(client.owner.token, `/api/client/files/${file.id}`)).text(), 'original');
  const missing = await upload(server, client.owner.token, [{ name: 'b.txt', data: 'x' }], { path: '/api/client/replaceFile' });
  assert.is(missing.status, 422, missing.text);
});

downloads.run();
