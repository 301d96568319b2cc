import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { version } from '../../package.json';
import { NODE_END_OF_LIFE } from '#lib/node-runtime';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
const info = suite('GET /api/client/version');
info.before(async () => {
  server = await startTestServer();
});
info.after(async () => server.stop());

info('answers anyone with the product version, the API version, the build (dev from source) and the runtime', async () => {
  const res = await server.request('GET', '/api/client/version');
  assert.is(res.status, 200, res.text);
  const runtime = {
    name: 'node',
    version: process.versions.node,
    supportedUntil: NODE_END_OF_LIFE[Number(process.versions.node.split('.')[0])] ?? null,
  };
  const { dataEpoch, ...info } = res.body.data;
  assert.equal(info, { version, apiVersion: '1', build: { commit: 'dev', date: null }, runtime });
  // the data epoch (test/http/data-epoch.test.ts): the same as the header
  assert.match(dataEpoch, /^[0-9a-f]{32}$/);
  assert.is(res.headers.get('wip-data-epoch'), dataEpoch);
  assert.match(runtime.supportedUntil ?? '', /^\d{4}-\d{2}-\d{2}$/, 'the line the suite runs on is in the table');
});

info('the OpenAPI document describes the answer, runtime included', async () => {
  const res = await server.request('GET', '/api/openapi.json');
  assert.is(res.status, 200, res.text);
  const data = res.body.paths['/api/client/version'].get.responses['200'].content['application/json'].schema.properties.data;
  assert.equal(data.required.sort(), ['apiVersion', 'build', 'dataEpoch', 'runtime', 'version']);
  assert.equal(data.properties.runtime.required.sort(), ['name', 'supportedUntil', 'version']);
  assert.equal(data.properties.runtime.properties.name, { type: 'string', const: 'node' });
});

info.run();
