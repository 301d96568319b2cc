import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { version } from '../../package.json';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
const info = suite('GET /api/client/version');
info.before(async () => {
  server = await startTestServer();
});
info.after(async () => server.stop());

info('answers anyone with the product version, the API version and the build (dev from source)', async () => {
  const res = await server.request('GET', '/api/client/version');
  assert.is(res.status, 200, res.text);
  assert.equal(res.body.data, { version, apiVersion: '1', build: { commit: 'dev', date: null } });
});

info.run();
