import { Readable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { createJob, publishedTemplate, DOMAIN_TEST_ENV } from '../helpers/domain';
import { download, unzip } from '../helpers/zip';
import { pdfImages, pdfText } from '../helpers/pdf';
import { solidPng } from '../helpers/images';
import { CORRUPT_PNG, pngWith, truncatedJpeg } from '../helpers/hostile-images';
import { upload } from '../helpers/upload';
import { insertFile } from '#repos/files';
import { tenantScope } from '#db/tenant';

// A 70-byte PNG whose image data fails its checksum, embedded in a PDF, made png-js (under
// pdfkit) throw from a zlib callback and ended the process for every client. Uploads now judge images;
// rendering never trusts stored bytes.

let server: TestServer;
const images = suite('untrusted images: uploads judged, PDFs and reports never trust stored bytes');
images.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
images.after(async () => server.stop());

const RECORD = 'mutation($i: RecordStepInput!) { recordStep(input: $i) { revision } }';

const refusals = () =>
  server.deps.db.kysely.selectFrom('logs').selectAll().where('event', '=', 'file.image_refused').orderBy('id', 'desc').execute();

async function healthy(): Promise<void> {
  const res = await server.request('GET', '/healthz');
  assert.is(res.status, 200, res.text);
}

images('an upload of the corrupt PNG is refused 422 naming the file, nothing is stored, the security log records it', async () => {
  const client = await buildClient(server);
  const res = await upload(server, client.owner.token, [{ name: 'corrupt.png', data: CORRUPT_PNG, type: 'image/png' }]);
  assert.is(res.status, 422, res.text);
  assert.is(res.body.error.code, 'VALIDATION_ERROR');
  assert.is(res.body.error.details.file, 'corrupt.png');
  assert.ok(res.body.error.details.fields[0].message.startsWith('corrupt.png: the image'), res.text);
  const files = await server.deps.db.kysely.selectFrom('files').select('id').where('client_id', '=', client.id).execute();
  assert.equal(files, []);
  const [logged] = await refusals();
  assert.is(logged.client_id, client.id);
  assert.is(logged.level, 'warn');
  assert.is(JSON.parse(logged.data).file, 'corrupt.png');
  // the same bytes under another name and claimed type: judged by their bytes
  const renamed = await upload(server, client.owner.token, [{ name: 'notes.txt', data: CORRUPT_PNG, type: 'text/plain' }]);
  assert.is(renamed.status, 422, renamed.text);
  await healthy();
});

images('a decompression bomb (a small PNG declaring 50,000 × 50,000) is refused before inflating, logged as one', async () => {
  const client = await buildClient(server);
  const bomb = pngWith({ width: 50_000, height: 50_000, colorType: 2, pixels: Buffer.alloc(1024) });
  assert.ok(bomb.length < 200, `a small file: ${bomb.length} bytes`);
  const res = await upload(server, client.owner.token, [{ name: 'bomb.png', data: bomb }]);
  assert.is(res.status, 422, res.text);
  assert.is(res.body.error.details.decompressionBomb, true, res.text);
  assert.match(res.body.error.details.fields[0].message, /bomb\.png: the image declares 50000 × 50000 pixels/);
  const [logged] = await refusals();
  assert.equal(JSON.parse(logged.data), { file: 'bomb.png', reason: res.body.error.message, decompressionBomb: true });
  // a 1 × 1 PNG whose data inflates to 64 MiB: refused at the ceiling its size sets
  const zbomb = pngWith({ width: 1, height: 1, colorType: 2, pixels: Buffer.alloc(64 * 1024 * 1024) });
  const inflating = await upload(server, client.owner.token, [{ name: 'inflating.png', data: zbomb }]);
  assert.is(inflating.status, 422, inflating.text);
  assert.is(inflating.body.error.details.decompressionBomb, true);
  // the system administrator's uploads (logos) are judged the same way
  const admin = await upload(server, await adminToken(server), [{ name: 'logo.png', data: bomb }], { path: '/api/admin/upload' });
  assert.is(admin.status, 422, admin.text);
  await healthy();
});

images('a truncated JPEG is refused; a whole one is accepted', async () => {
  const client = await buildClient(server);
  const { whole, cut } = truncatedJpeg();
  const ok = await upload(server, client.owner.token, [{ name: 'whole.jpg', data: whole }]);
  assert.is(ok.status, 201, ok.text);
  const res = await upload(server, client.owner.token, [{ name: 'cut.jpg', data: cut }]);
  assert.is(res.status, 422, res.text);
  assert.match(res.body.error.details.fields[0].message, /cut\.jpg: the image is cut short/);
});

/**
 * The corrupt PNG as it may already be in a store (uploaded before uploads were judged, or restored from a
 * backup): its row is written directly, as the upload path wrote it then.
 */
async function storedBeforeTheCheck(clientId: number, name: string, bytes: Buffer): Promise<number> {
  const stored = await server.deps.storage.put(Readable.from([bytes]));
  const row = await insertFile(server.deps.db.kysely, tenantScope(clientId), {
    name,
    description: '',
    content: { sha256: stored.key, size: stored.size, contentType: 'image/png' },
    uploadedBy: null,
    nowIso: new Date().toISOString(),
  });
  return row.id;
}

images(
  'the corrupt PNG stored as step media and as a photo value: the job PDF, the template PDF and the zipped report answer, with a placeholder; /healthz stays 200',
  async () => {
    const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
    const operator = await buildUser(server, client, { roles: ['operator'] });
    const media = await storedBeforeTheCheck(client.id, 'diagram.png', CORRUPT_PNG);
    const photo = await storedBeforeTheCheck(client.id, 'photo.png', CORRUPT_PNG);
    const good = await upload(server, operator.token!, [{ name: 'good.png', data: solidPng(64, 48, [20, 200, 20]) }]);
    assert.is(good.status, 201, good.text);
    const content = {
      sections: [
        {
          id: 'main',
          title: 'Main',
          steps: [
            { id: 'look', title: 'Look', media: [media], fields: [{ key: 'picture', label: 'Photo', type: 'PHOTO', required: true }] },
          ],
        },
      ],
    };
    const template = await publishedTemplate(server, client, content, 'Hostile media');
    const job = await createJob(server, client.owner.token, { templateId: template.templateId, assigneeIds: [operator.id] });
    const recorded = await gql(server, operator.token, RECORD, {
      i: {
        jobId: `Job:${job.id}`,
        stepId: 'look',
        status: 'DONE',
        values: [{ key: 'picture', value: [photo, good.body.data.files[0].id] }],
      },
    });
    assert.equal(recorded.codes, [], JSON.stringify(recorded.errors));

    const jobPdf = await download(`${server.url}/api/client/get-as-pdf/getJobHistoryAsPdf/${job.id}`, client.owner.token);
    assert.is(jobPdf.status, 200, jobPdf.text);
    const jobText = (await pdfText(jobPdf.bytes)).text;
    assert.ok(jobText.includes('[image could not be shown: Photo: photo.png'), jobText);
    // the good photo next to it is still embedded, with its colour
    assert.equal(
      (await pdfImages(jobPdf.bytes)).map((i) => [i.width, i.height, i.firstPixel]),
      [[64, 48, [20, 200, 20]]],
    );
    await healthy();

    const templatePdf = await download(`${server.url}/api/client/get-as-pdf/getTemplateAsPdf/${template.templateId}`, client.owner.token);
    assert.is(templatePdf.status, 200, templatePdf.text);
    const templateText = (await pdfText(templatePdf.bytes)).text;
    assert.ok(templateText.includes('[image could not be shown: diagram.png'), templateText);
    await healthy();

    const zip = await download(`${server.url}/api/client/download-zipped-job-report/${job.id}`, client.owner.token);
    assert.is(zip.status, 200, zip.text);
    const entries = await unzip(zip.bytes);
    // the record keeps the file as stored; the report's PDF shows the placeholder
    assert.ok(entries.get(`photos/${photo}-photo.png`)!.equals(CORRUPT_PNG));
    assert.ok(entries.get(`media/${media}-diagram.png`)!.equals(CORRUPT_PNG));
    assert.ok((await pdfText(entries.get(`job-${job.id}.pdf`)!)).text.includes('[image could not be shown: Photo: photo.png'));
    await healthy();

    // asked again (every later request used to end the process again)
    for (let i = 0; i < 3; i++)
      assert.is((await download(`${server.url}/api/client/get-as-pdf/getJobHistoryAsPdf/${job.id}`, client.owner.token)).status, 200);
    await healthy();
  },
);

images(
  'an exception no try/catch reaches (png-js given the stored bytes, as before the fix) fails its request alone: logged with it, the daemon goes on',
  async () => {
    const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
    const media = await storedBeforeTheCheck(client.id, 'diagram.png', CORRUPT_PNG);
    const content = { sections: [{ id: 'main', title: 'Main', steps: [{ id: 'look', title: 'Look', media: [media], fields: [] }] }] };
    const template = await publishedTemplate(server, client, content, 'Trusting renderer');
    const images = server.deps.images;
    const printable = images.printable.bind(images);
    // the renderer as it was: stored bytes straight to pdfkit, whose png-js throws from a zlib callback
    images.printable = async (load) => ({ ok: true, bytes: await load(), width: 1, height: 1 });
    try {
      // the PDF's answer has begun when png-js throws: the connection is cut, a half PDF never passes for a whole one
      const res = await fetch(`${server.url}/api/client/get-as-pdf/getTemplateAsPdf/${template.templateId}`, {
        headers: { authorization: `Bearer ${client.owner.token}` },
      });
      const requestId = res.headers.get('x-request-id');
      const body = await res.arrayBuffer().then(
        (bytes) => `${bytes.byteLength} bytes`,
        (error: Error) => error,
      );
      assert.instance(body, Error, `the answer is cut, not completed: ${String(body)}`);
      await healthy();
      const [logged] = await server.deps.db.kysely
        .selectFrom('logs')
        .selectAll()
        .where('event', '=', 'process.uncaught_exception')
        .where('request_id', '=', requestId)
        .execute();
      assert.ok(logged, `logged with request ${requestId}`);
      assert.equal(JSON.parse(logged.data), {
        error: 'incorrect data check',
        method: 'GET',
        path: `/api/client/get-as-pdf/getTemplateAsPdf/${template.templateId}`,
      });
    } finally {
      images.printable = printable;
    }
    const again = await download(`${server.url}/api/client/get-as-pdf/getTemplateAsPdf/${template.templateId}`, client.owner.token);
    assert.is(again.status, 200, again.text);
  },
);

images.run();
