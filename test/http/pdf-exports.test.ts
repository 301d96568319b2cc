import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { createJob, publishedTemplate, DOMAIN_TEST_ENV } from '../helpers/domain';
import { download, unzip } from '../helpers/zip';
import { pdfImages, pdfText } from '../helpers/pdf';
import { noisyPng, solidPng } from '../helpers/images';
import { MAX_REPORT_IMAGE_BYTES } from '#services/pdf-exports';
import { upload } from '../helpers/upload';

let server: TestServer;
const pdfs = suite('GET /api/client/get-as-pdf/…, GET /api/client/download-zipped-job-report/:id');
pdfs.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
pdfs.after(async () => server.stop());

const CONTENT = {
  sections: [
    {
      id: 'prep',
      title: 'Preparation',
      steps: [
        {
          id: 'measure',
          title: 'Measure the torque',
          body: 'Use the **calibrated** wrench.',
          fields: [
            { key: 'torque', label: 'Torque', type: 'NUMBER', required: true, unit: 'Nm', min: 10, max: 20 },
            { key: 'note', label: 'Note', type: 'TEXT' },
          ],
        },
        { id: 'check', title: 'Check the seal', fields: [{ key: 'sealOk', label: 'Seal intact', type: 'PASS_FAIL', required: true }] },
      ],
    },
  ],
};
const RECORD = 'mutation($i: RecordStepInput!) { recordStep(input: $i) { revision } }';

async function jobWithHistory() {
  const client = await buildClient(server, { name: 'Acme Pumps Ltd', seats: { full: 20, connect: 20 } });
  const template = await publishedTemplate(server, client, CONTENT, 'Pump overhaul');
  const [a, b] = await Promise.all([0, 1].map(() => buildUser(server, client, { roles: ['operator'] })));
  const job = await createJob(server, client.owner.token, {
    templateId: template.templateId,
    title: 'Overhaul pump 7',
    assigneeIds: [a.id],
  });
  const rec = (values: unknown[], stepId = 'measure') =>
    gql(server, a.token, RECORD, { i: { jobId: `Job:${job.id}`, stepId, status: 'DONE', values } });
  assert.equal(
    (
      await rec([
        { key: 'torque', value: 25 },
        { key: 'note', value: '=HYPERLINK("x")' },
      ])
    ).codes,
    [],
  );
  assert.equal((await rec([{ key: 'sealOk', value: true }], 'check')).codes, []);
  const fault = await gql(server, a.token, 'mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { id } } }', {
    i: { jobId: `Job:${job.id}`, stepId: 'check', description: 'Seal weeps oil', severity: 'HIGH' },
  });
  assert.equal(fault.codes, [], JSON.stringify(fault.errors));
  const handOff = await server.request('POST', '/api/client/workingTogether', {
    token: a.token!,
    body: { action: 'HAND_OFF', jobId: job.id, toUserId: b.id, note: 'end of shift' },
  });
  assert.is(handOff.status, 200, handOff.text);
  return { client, template, job, a: a, b: b };
}

pdfs('the template PDF has the steps, field tables, signatures, client name, page numbers and generation time as text', async () => {
  const { client, template } = await jobWithHistory();
  const res = await download(`${server.url}/api/client/get-as-pdf/getTemplateAsPdf/${template.templateId}`, client.owner.token);
  assert.is(res.status, 200, res.text);
  assert.is(res.type, 'application/pdf');
  assert.ok(res.bytes.subarray(0, 5).toString() === '%PDF-');
  const { text, pages } = await pdfText(res.bytes);
  for (const expected of [
    'Acme Pumps Ltd',
    'Pump overhaul',
    'Version: 1 (PUBLISHED)',
    'Step 1: Measure the torque',
    'Use the calibrated wrench.',
    'Torque NUMBER yes Nm 10 to 20',
    'Step 2: Check the seal',
    'Seal intact PASS_FAIL yes',
    'APPROVED',
    'PUBLISHED',
    `page 1 of ${pages}`,
    'Generated ',
  ]) {
    assert.ok(text.includes(expected), `"${expected}" in ${text}`);
  }
  // a long address may wrap inside its table cell
  assert.ok(text.replace(/ /g, '').includes(template.signer.email), `signer named: ${text}`);

  const byVersion = await download(
    `${server.url}/api/client/get-as-pdf/getTemplateAsPdf/${template.templateId}?versionId=${template.versionId}`,
    client.owner.token,
  );
  assert.is(byVersion.status, 200);
  const other = await buildClient(server);
  assert.is((await download(`${server.url}/api/client/get-as-pdf/getTemplateAsPdf/${template.templateId}`, other.owner.token)).status, 404);
  const draftOnly = await gql(
    server,
    client.owner.token,
    'mutation { createTemplate(input: {title: "Draft only"}) { template { databaseId } } }',
  );
  const noPublished = await download(
    `${server.url}/api/client/get-as-pdf/getTemplateAsPdf/${draftOnly.data.createTemplate.template.databaseId}`,
    client.owner.token,
  );
  assert.is(noPublished.status, 409);
  assert.is(JSON.parse(noPublished.text).error.code, 'NO_PUBLISHED_VERSION');
});

pdfs('the job history PDF has recorded values with out-of-limit marks, hand-offs and faults', async () => {
  const { client, job, a, b } = await jobWithHistory();
  const res = await download(`${server.url}/api/client/get-as-pdf/getJobHistoryAsPdf/${job.id}`, a.token!);
  assert.is(res.status, 200, res.text);
  assert.is(res.type, 'application/pdf');
  const { text, pages } = await pdfText(res.bytes);
  for (const expected of [
    'Acme Pumps Ltd',
    `Job ${job.id}: Overhaul pump 7`,
    'Template: Pump overhaul (version 1)',
    'State: IN_PROGRESS',
    'Step 1: Measure the torque (Preparation)',
    'Torque 25 Nm 10 to 20 OUT OF LIMITS',
    'Seal intact PASS ok',
    'Hand-offs',
    'PENDING end of shift',
    'Faults',
    'HIGH OPEN Check the seal Seal weeps oil',
    `page ${pages} of ${pages}`,
  ]) {
    assert.ok(text.includes(expected), `"${expected}" in ${text}`);
  }
  assert.ok(text.replace(/ /g, '').includes(a.email) && text.replace(/ /g, '').includes(b.email), `people named: ${text}`);
  const other = await buildClient(server);
  assert.is((await download(`${server.url}/api/client/get-as-pdf/getJobHistoryAsPdf/${job.id}`, other.owner.token)).status, 404);
  assert.is((await download(`${server.url}/api/client/get-as-pdf/getJobHistoryAsPdf/999999`, client.owner.token)).status, 404);
});

pdfs('the zipped job report holds the PDF, values.csv and values.json of every recorded value', async () => {
  const { client, job, a } = await jobWithHistory();
  const res = await download(`${server.url}/api/client/download-zipped-job-report/${job.id}`, client.owner.token);
  assert.is(res.status, 200, res.text);
  assert.is(res.type, 'application/zip');
  assert.match(res.disposition ?? '', /job-\d+-report\.zip/);
  const entries = await unzip(res.bytes);
  assert.equal([...entries.keys()].sort(), ['deviations.json', `job-${job.id}.pdf`, 'signoffs.json', 'values.csv', 'values.json']);
  assert.ok((await pdfText(entries.get(`job-${job.id}.pdf`)!)).text.includes('OUT OF LIMITS'));
  const json = JSON.parse(entries.get('values.json')!.toString('utf8'));
  const brief = json.values.map((v: any) => [v.stepId, v.fieldKey, v.value, v.outOfLimits, v.recordedBy]);
  assert.equal(brief, [
    ['measure', 'torque', 25, true, a.email],
    ['measure', 'note', '=HYPERLINK("x")', false, a.email],
    ['check', 'sealOk', 'PASS', false, a.email],
  ]);
  const csv = entries.get('values.csv')!.toString('utf8').split('\r\n');
  assert.is(
    csv[0],
    'jobId,stepId,stepTitle,stepStatus,fieldKey,fieldLabel,fieldType,value,unit,min,max,outOfLimits,readingId,recordedBy,recordedAt,comment,capturedAt,receivedAt',
  );
  assert.ok(csv[1].startsWith(`${job.id},measure,Measure the torque,DONE,torque,Torque,NUMBER,25,Nm,10,20,true,,${a.email},`), csv[1]);
  assert.ok(csv[2].includes(`,"'=HYPERLINK(""x"")",`), `a formula is defused: ${csv[2]}`);
  assert.is(csv.length, 5, 'header, three rows, final newline');
  const other = await buildClient(server);
  assert.is((await download(`${server.url}/api/client/download-zipped-job-report/${job.id}`, other.owner.token)).status, 404);
});

pdfs('a FAILED pass/fail is not "ok", faults name the step by its title, the ZIP values carry the step comment', async () => {
  const { client, job, a } = await jobWithHistory();
  const failed = await gql(server, a.token, RECORD, {
    i: {
      jobId: `Job:${job.id}`,
      stepId: 'check',
      status: 'FAILED',
      values: [{ key: 'sealOk', value: false }],
      comment: 'O-ring cracked, replaced',
    },
  });
  assert.equal(failed.codes, [], JSON.stringify(failed.errors));
  const { text } = await pdfText((await download(`${server.url}/api/client/get-as-pdf/getJobHistoryAsPdf/${job.id}`, a.token!)).bytes);
  assert.ok(text.includes('Seal intact FAIL FAILED'), text);
  assert.not.ok(text.includes('Seal intact FAIL ok'), text);
  assert.ok(text.includes('Comment: O-ring cracked, replaced'), text);
  // the faults table: the step's title, as the steps above are named; never its id
  assert.ok(text.includes('HIGH OPEN Check the seal Seal weeps oil'), text);
  assert.not.ok(/OPEN check\b/.test(text), text);

  const entries = await unzip((await download(`${server.url}/api/client/download-zipped-job-report/${job.id}`, client.owner.token)).bytes);
  const json = JSON.parse(entries.get('values.json')!.toString('utf8'));
  assert.equal(
    json.values.map((v: any) => [v.fieldKey, v.value, v.comment]),
    [
      ['torque', 25, null],
      ['note', '=HYPERLINK("x")', null],
      ['sealOk', 'FAIL', 'O-ring cracked, replaced'],
    ],
  );
  const csv = entries.get('values.csv')!.toString('utf8').split('\r\n');
  assert.ok(csv[0].endsWith(',recordedAt,comment,capturedAt,receivedAt'), csv[0]);
  assert.ok(csv[3].startsWith(`${job.id},check,Check the seal,FAILED,sealOk,Seal intact,PASS_FAIL,FAIL,`), csv[3]);
  assert.match(csv[3], /,"O-ring cracked, replaced",[^,]+,[^,]+$/);
});

const RED = solidPng(120, 80, [220, 20, 20]);
const GREEN = solidPng(64, 48, [20, 200, 20]);
const BLUE = solidPng(90, 30, [20, 20, 200]);
const GREY = solidPng(50, 50, [128, 128, 128]);

/** A job whose template shows a step image, with a recorded photo, a signature and a fault photo. */
async function jobWithImages() {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const operator = await buildUser(server, client, { roles: ['operator'] });
  const uploaded = async (token: string, name: string, data: Buffer | string) => {
    const res = await upload(server, token, [{ name, data }]);
    assert.is(res.status, 201, res.text);
    return res.body.data.files[0] as { id: number; name: string };
  };
  const diagram = await uploaded(client.owner.token, 'diagram.png', RED);
  const notes = await uploaded(client.owner.token, 'notes.txt', 'torque in a star pattern');
  const content = {
    sections: [
      {
        id: 'main',
        title: 'Main',
        steps: [
          {
            id: 'look',
            title: 'Look at the diagram',
            media: [diagram.id, notes.id],
            fields: [{ key: 'picture', label: 'Photo', type: 'PHOTO', required: true }],
          },
          { id: 'sign', title: 'Sign off', fields: [{ key: 'signature', label: 'Signature', type: 'SIGNATURE', required: true }] },
        ],
      },
    ],
  };
  const template = await publishedTemplate(server, client, content, 'Illustrated check');
  const job = await createJob(server, client.owner.token, { templateId: template.templateId, assigneeIds: [operator.id] });
  const photo = await uploaded(operator.token!, 'result.png', GREEN);
  const signature = await uploaded(operator.token!, 'sig.png', BLUE);
  const leak = await uploaded(operator.token!, 'leak.png', GREY);
  const rec = (stepId: string, values: unknown[]) =>
    gql(server, operator.token, RECORD, { i: { jobId: `Job:${job.id}`, stepId, status: 'DONE', values } });
  assert.equal((await rec('look', [{ key: 'picture', value: [photo.id] }])).codes, []);
  assert.equal((await rec('sign', [{ key: 'signature', value: signature.id }])).codes, []);
  const fault = await gql(server, operator.token, 'mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { id } } }', {
    i: { jobId: `Job:${job.id}`, description: 'Drip', severity: 'LOW', photos: [leak.id] },
  });
  assert.equal(fault.codes, [], JSON.stringify(fault.errors));
  return { client, template, job, files: { diagram, notes, photo, signature, leak } };
}

const sizes = (images: { width: number; height: number }[]) => images.map((i) => `${i.width}x${i.height}`).sort();

pdfs(
  'the template PDF embeds the PNG step media as images (extracted back with their size and colour); other media are named',
  async () => {
    const { client, template } = await jobWithImages();
    const res = await download(`${server.url}/api/client/get-as-pdf/getTemplateAsPdf/${template.templateId}`, client.owner.token);
    assert.is(res.status, 200, res.text);
    const images = await pdfImages(res.bytes);
    assert.equal(sizes(images), ['120x80'], JSON.stringify(images));
    assert.equal(images[0].firstPixel, [220, 20, 20]);
    const { text } = await pdfText(res.bytes);
    assert.ok(text.includes('diagram.png'), `caption: ${text}`);
    assert.ok(/\[file \d+: not an embeddable image\]/.test(text), `the text file is named, not embedded: ${text}`);
  },
);

pdfs('the job history PDF embeds the recorded photo, the signature image and the fault photo', async () => {
  const { client, job } = await jobWithImages();
  const res = await download(`${server.url}/api/client/get-as-pdf/getJobHistoryAsPdf/${job.id}`, client.owner.token);
  assert.is(res.status, 200, res.text);
  const images = await pdfImages(res.bytes);
  assert.equal(sizes(images), ['50x50', '64x48', '90x30'], JSON.stringify(images));
  const colour = (w: number) => images.find((i) => i.width === w)!.firstPixel;
  assert.equal(
    [colour(64), colour(90), colour(50)],
    [
      [20, 200, 20],
      [20, 20, 200],
      [128, 128, 128],
    ],
  );
  const { text } = await pdfText(res.bytes);
  for (const caption of ['Photo: result.png', 'Signature of', 'Fault photo: leak.png'])
    assert.ok(text.includes(caption), `"${caption}" in ${text}`);
});

pdfs("every page's header carries the client's logo once it is set through PUT /api/admin/client/:id", async () => {
  const { client, template } = await jobWithImages();
  const admin = await adminToken(server);
  const logo = await upload(server, admin, [{ name: 'logo.png', data: solidPng(40, 20, [250, 160, 0]) }], { path: '/api/admin/upload' });
  assert.is(logo.status, 201, logo.text);
  const url = `${server.url}/api/client/get-as-pdf/getTemplateAsPdf/${template.templateId}`;
  assert.not.ok(sizes(await pdfImages((await download(url, client.owner.token)).bytes)).includes('40x20'), 'no logo before it is set');
  const set = await server.request('PUT', `/api/admin/client/${client.id}`, {
    token: admin,
    body: { logoFileId: logo.body.data.files[0].id },
  });
  assert.is(set.status, 200, set.text);
  const images = await pdfImages((await download(url, client.owner.token)).bytes);
  const drawn = images.find((i) => i.width === 40 && i.height === 20);
  assert.ok(drawn, JSON.stringify(images));
  assert.equal(drawn.firstPixel, [250, 160, 0]);
});

pdfs('the zipped job report carries the photos, signature, fault photo and step media, byte for byte', async () => {
  const { client, job, files } = await jobWithImages();
  const res = await download(`${server.url}/api/client/download-zipped-job-report/${job.id}`, client.owner.token);
  assert.is(res.status, 200, res.text);
  const entries = await unzip(res.bytes);
  const expected = [
    'deviations.json',
    `job-${job.id}.pdf`,
    `media/${files.diagram.id}-diagram.png`,
    `media/${files.notes.id}-notes.txt`,
    `photos/${files.photo.id}-result.png`,
    `photos/${files.leak.id}-leak.png`,
    `signatures/${files.signature.id}-sig.png`,
    'signoffs.json',
    'values.csv',
    'values.json',
  ];
  assert.equal([...entries.keys()].sort(), expected.sort());
  assert.ok(entries.get(`photos/${files.photo.id}-result.png`)!.equals(GREEN));
  assert.ok(entries.get(`photos/${files.leak.id}-leak.png`)!.equals(GREY));
  assert.ok(entries.get(`signatures/${files.signature.id}-sig.png`)!.equals(BLUE));
  assert.ok(entries.get(`media/${files.diagram.id}-diagram.png`)!.equals(RED));
  assert.is(entries.get(`media/${files.notes.id}-notes.txt`)!.toString(), 'torque in a star pattern');
  assert.equal(sizes(await pdfImages(entries.get(`job-${job.id}.pdf`)!)), ['50x50', '64x48', '90x30']);
});

/**
 * A download whose bytes are counted as they arrive and kept only up to
 * `keep` bytes: an answer that has grown without bound fails the test by its
 * size instead of taking the test's memory with it.
 */
async function measuredDownload(
  url: string,
  token: string,
  keep = 32 * 1024 * 1024,
): Promise<{ status: number; size: number; bytes: Buffer }> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const kept: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    if (size + chunk.length <= keep) kept.push(Buffer.from(chunk));
    size += chunk.length;
  }
  return { status: res.status, size, bytes: Buffer.concat(kept) };
}

/** A published one-step template with a PHOTO field, a job on it and its operator. */
async function photoJob() {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const operator = await buildUser(server, client, { roles: ['operator'] });
  const content = {
    sections: [
      {
        id: 'main',
        title: 'Main',
        steps: [{ id: 'shots', title: 'Photograph it', fields: [{ key: 'pictures', label: 'Photos', type: 'PHOTO', required: true }] }],
      },
    ],
  };
  const template = await publishedTemplate(server, client, content, 'Photo check');
  const job = await createJob(server, client.owner.token, { templateId: template.templateId, assigneeIds: [operator.id] });
  const uploadPhoto = async (name: string, data: Buffer): Promise<number> => {
    const res = await upload(server, operator.token!, [{ name, data }]);
    assert.is(res.status, 201, res.text);
    return res.body.data.files[0].id;
  };
  const record = async (ids: number[]) => {
    const res = await gql(server, operator.token, RECORD, {
      i: { jobId: `Job:${job.id}`, stepId: 'shots', status: 'DONE', values: [{ key: 'pictures', value: ids }] },
    });
    assert.equal(res.codes, [], JSON.stringify(res.errors));
  };
  return { client, job, operator, uploadPhoto, record };
}

const count = (text: string, part: string) => text.split(part).length - 1;

pdfs(
  'the job history PDF embeds a photo once however often it is referenced: one 3.6 MB photo in 50 slots is not a 180 MB PDF',
  async () => {
    const { job, operator, uploadPhoto, record } = await photoJob();
    const photo = noisyPng(1200, 1000);
    const id = await uploadPhoto('big.png', photo);
    await record(Array.from({ length: 50 }, () => id));
    const res = await measuredDownload(`${server.url}/api/client/get-as-pdf/getJobHistoryAsPdf/${job.id}`, operator.token!);
    assert.is(res.status, 200);
    assert.ok(res.size < 2 * photo.length, `PDF of ${res.size} bytes for one photo of ${photo.length} bytes`);
    const { text } = await pdfText(res.bytes);
    assert.is(count(text, 'Photo: big.png'), 50, 'the photo is still shown in each of its 50 places');
  },
);

pdfs(
  `the job history PDF embeds at most MAX_REPORT_IMAGE_BYTES of images; the others are named, pointing to the zipped report`,
  async () => {
    const { job, operator, uploadPhoto, record } = await photoJob();
    // just under 8 MB each (what one image may be); the same bytes under ten file ids cost the client's quota nothing
    const photo = noisyPng(1600, 1600);
    assert.ok(photo.length < 8 * 1024 * 1024 && 10 * photo.length > MAX_REPORT_IMAGE_BYTES + 8 * 1024 * 1024);
    const ids: number[] = [];
    for (let i = 0; i < 10; i++) ids.push(await uploadPhoto(`big-${i}.png`, photo));
    await record(ids);
    const res = await measuredDownload(
      `${server.url}/api/client/get-as-pdf/getJobHistoryAsPdf/${job.id}`,
      operator.token!,
      128 * 1024 * 1024,
    );
    assert.is(res.status, 200);
    assert.ok(res.size <= MAX_REPORT_IMAGE_BYTES + 1024 * 1024, `PDF of ${res.size} bytes, cap ${MAX_REPORT_IMAGE_BYTES} bytes of images`);
    const embedded = Math.floor(MAX_REPORT_IMAGE_BYTES / photo.length);
    const { text } = await pdfText(res.bytes);
    assert.is(count(text, 'Photo: big-'), 10, `every photo is named: ${text}`);
    assert.is(count(text, 'not embedded'), 10 - embedded, `the ones past the budget say so: ${text}`);
    assert.ok(text.includes('zipped job report'), text.slice(0, 2000));
  },
);

pdfs.run();
