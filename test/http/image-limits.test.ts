import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient } from '../helpers/factories';
import { DOMAIN_TEST_ENV } from '../helpers/domain';
import { pngWith } from '../helpers/hostile-images';
import { upload } from '../helpers/upload';

// Bounded work: an image check runs at most `imageJobTimeout` (src/lib/image-pool.ts). A server whose
// limit is 200 ms makes any large PNG run over, deterministically: the upload is refused 422 naming the file, the
// image worker is replaced, and the next upload is checked as usual.

let server: TestServer;
const limits = suite('image limits: a check past imageJobTimeout refuses the upload, the worker goes on');
limits.before(async () => {
  server = await startTestServer({ env: { ...DOMAIN_TEST_ENV, WIP_IMAGE_JOB_TIMEOUT: '200ms' } });
});
limits.after(async () => server.stop());

limits(
  'a 4,000 × 4,000 PNG past a 200 ms limit: 422 "too costly to check" naming the file, logged; a small one after it: 201',
  async () => {
    const client = await buildClient(server);
    const large = pngWith({ width: 4000, height: 4000, colorType: 2, pixels: Buffer.alloc(4000 * (4000 * 3 + 1)) });
    const res = await upload(server, client.owner.token, [{ name: 'large.png', data: large }]);
    assert.is(res.status, 422, res.text);
    assert.is(res.body.error.code, 'VALIDATION_ERROR');
    assert.is(res.body.error.details.file, 'large.png');
    assert.is(
      res.body.error.details.fields[0].message,
      'large.png: the image is too costly to check (it took longer than the 0.2 s an image may take)',
    );
    const files = await server.deps.db.kysely.selectFrom('files').select('id').where('client_id', '=', client.id).execute();
    assert.equal(files, []);
    const [logged] = await server.deps.db.kysely
      .selectFrom('logs')
      .selectAll()
      .where('event', '=', 'file.image_refused')
      .where('client_id', '=', client.id)
      .execute();
    assert.is(JSON.parse(logged.data).file, 'large.png');
    const small = pngWith({ width: 2, height: 1, colorType: 2, pixels: Buffer.from([0, 1, 2, 3, 4, 5, 6]) });
    const next = await upload(server, client.owner.token, [{ name: 'small.png', data: small }]);
    assert.is(next.status, 201, next.text);
  },
);

limits.run();
