import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient } from '../helpers/factories';
import { createAsset, DOMAIN_TEST_ENV, publishedTemplate } from '../helpers/domain';
import { upload } from '../helpers/upload';

let server: TestServer;
const alignment = suite('GET/POST /api/client/alignment-data');
alignment.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
alignment.after(async () => server.stop());

const POINTS: [number, number, number][] = [
  [1.5, -2, 3],
  [-4, 5.25, 0],
  [0, 0, -7.5],
];

function binaryPly(little: boolean, points = POINTS, declared = points.length): Buffer {
  // an element before the vertex (fixed size) and an extra property, as scanners write
  const header = `ply\nformat binary_${little ? 'little' : 'big'}_endian 1.0\ncomment scanner\nelement camera 1\nproperty float fov\nelement vertex ${declared}\nproperty float x\nproperty float y\nproperty float z\nproperty uchar intensity\nend_header\n`;
  const body = Buffer.alloc(4 + points.length * 13);
  little ? body.writeFloatLE(60, 0) : body.writeFloatBE(60, 0);
  points.forEach(([x, y, z], i) => {
    const o = 4 + i * 13;
    for (const [k, v] of [x, y, z].entries()) little ? body.writeFloatLE(v, o + k * 4) : body.writeFloatBE(v, o + k * 4);
    body.writeUInt8(200, o + 12);
  });
  return Buffer.concat([Buffer.from(header, 'latin1'), body]);
}

const asciiPly = `ply\nformat ascii 1.0\nelement vertex 3\nproperty double x\nproperty double y\nproperty double z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n${POINTS.map((p) => p.join(' ')).join('\n')}\n3 0 1 2\n`;
const BOUNDS = { min: [-4, -2, -7.5], max: [1.5, 5.25, 3] };

alignment(
  'ASCII and binary (little and big endian) PLY: point count, bounds and format from the file; GET returns the metadata or the bytes',
  async () => {
    const client = await buildClient(server);
    const template = await publishedTemplate(server, client);
    const assetId = await createAsset(server, client.owner.token);
    const cases: [Buffer | string, string, Record<string, string>][] = [
      [asciiPly, 'ascii', { templateId: String(template.templateId), stepId: 'measure' }],
      [binaryPly(true), 'binary_little_endian', { assetId: String(assetId) }],
      [binaryPly(false), 'binary_big_endian', { assetId: String(assetId) }],
    ];
    for (const [data, format, fields] of cases) {
      const res = await upload(server, client.owner.token, [{ name: 'scan.ply', data }], { path: '/api/client/alignment-data', fields });
      assert.is(res.status, 201, res.text);
      assert.equal(
        { pointCount: res.body.data.pointCount, bounds: res.body.data.bounds, format: res.body.data.format },
        { pointCount: 3, bounds: BOUNDS, format },
      );
      assert.ok(Number.isInteger(res.body.data.fileId));
    }
    const byAsset = await server.request('GET', `/api/client/alignment-data?assetId=${assetId}`, { token: client.owner.token });
    assert.is(byAsset.status, 200, byAsset.text);
    assert.is(byAsset.body.data.format, 'binary_big_endian', 'the newest');
    const byStep = await server.request('GET', `/api/client/alignment-data?templateId=${template.templateId}&stepId=measure`, {
      token: client.owner.token,
    });
    assert.is(byStep.body.data.format, 'ascii');
    const raw = await fetch(`${server.url}/api/client/alignment-data?assetId=${assetId}`, {
      headers: { authorization: `Bearer ${client.owner.token}`, accept: 'application/octet-stream' },
    });
    assert.is(raw.status, 200);
    assert.ok(Buffer.from(await raw.arrayBuffer()).equals(binaryPly(false)));
  },
);

alignment('malformed files are 422 naming file: fewer vertices than declared, a non-finite coordinate, no z, not a PLY', async () => {
  const client = await buildClient(server);
  const assetId = await createAsset(server, client.owner.token);
  const bad: (Buffer | string)[] = [
    binaryPly(true, POINTS, 5),
    binaryPly(false, [[NaN, 0, 0]]),
    'ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nend_header\n1 2\n',
    'ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\nend_header\n1 2 3\n',
    'x y z\n1 2 3\n',
  ];
  for (const data of bad) {
    const res = await upload(server, client.owner.token, [{ name: 'scan.ply', data }], {
      path: '/api/client/alignment-data',
      fields: { assetId: String(assetId) },
    });
    assert.is(res.status, 422, res.text);
    assert.is(res.body.error.details.fields[0].path, 'body.file');
  }
  const rows = await server.deps.db.kysely.selectFrom('alignment_data').select('id').where('client_id', '=', client.id).execute();
  assert.is(rows.length, 0);
});

alignment('another client’s asset or template is 404 on upload and read; no target or both is 422', async () => {
  const client = await buildClient(server);
  const other = await buildClient(server);
  const theirAsset = await createAsset(server, other.owner.token);
  const theirTemplate = await publishedTemplate(server, other);
  const post = (fields: Record<string, string>) =>
    upload(server, client.owner.token, [{ name: 'scan.ply', data: asciiPly }], { path: '/api/client/alignment-data', fields });
  assert.is((await post({ assetId: String(theirAsset) })).status, 404);
  assert.is((await post({ templateId: String(theirTemplate.templateId), stepId: 'measure' })).status, 404);
  assert.is((await post({})).status, 422);
  assert.is((await post({ assetId: String(theirAsset), templateId: '1', stepId: 'x' })).status, 422);
  assert.is((await server.request('GET', `/api/client/alignment-data?assetId=${theirAsset}`, { token: client.owner.token })).status, 404);
  assert.is(
    (
      await server.request('GET', `/api/client/alignment-data?templateId=${theirTemplate.templateId}&stepId=measure`, {
        token: client.owner.token,
      })
    ).status,
    404,
  );
});

alignment.run();
