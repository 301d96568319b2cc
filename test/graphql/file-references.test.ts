import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser } from '../helpers/factories';
import { gid, gql } from '../helpers/graphql';
import { createJob, DOMAIN_TEST_ENV, publishedTemplate, SAMPLE_CONTENT } from '../helpers/domain';
import { QUIET_POLLERS, sendersSettled, statementsSoFar } from '../helpers/statements';
import { GLB, PNG, upload } from '../helpers/upload';

let server: TestServer;
const refs = suite('GraphQL File: step media, models and fault photos; file ids of another client refused');
refs.before(async () => {
  // the mail outbox poll would add statements while the batching test counts them
  server = await startTestServer({ env: { ...DOMAIN_TEST_ENV, ...QUIET_POLLERS } });
});
refs.after(async () => server.stop());

const FILE = 'id: databaseId name size contentType url';
const CREATE = `mutation($i: CreateTemplateInput!) { createTemplate(input: $i) { template { id: databaseId latestVersion { id: databaseId content { sections { steps { stepId media mediaFiles { ${FILE} } model { fileId file { ${FILE} } } } } } } } }}`;

const withMedia = (media: number[], model?: number) => ({
  sections: [
    { sectionId: 's', title: 'S', steps: [{ stepId: 'a', title: 'A', media, ...(model && { model: { fileId: model } }), fields: [] }] },
  ],
});

refs('a step lists its media and model as Files with their download URLs', async () => {
  const client = await buildClient(server);
  const [photo, model] = (
    await upload(server, client.owner.token, [
      { name: 'valve.png', data: PNG },
      { name: 'valve.glb', data: GLB },
    ])
  ).body.data.files;
  const res = await gql(server, client.owner.token, CREATE, {
    i: { title: 'Valve', description: '', tags: [], content: withMedia([photo.id], model.id) },
  });
  assert.equal(res.codes, [], JSON.stringify(res.errors));
  const step = res.data.createTemplate.template.latestVersion.content.sections[0].steps[0];
  assert.equal(step.media, [photo.id]);
  assert.equal(step.mediaFiles, [
    { id: photo.id, name: 'valve.png', size: PNG.length, contentType: 'image/png', url: `/api/client/files/${photo.id}` },
  ]);
  assert.equal(step.model.file, {
    id: model.id,
    name: 'valve.glb',
    size: GLB.length,
    contentType: 'model/gltf-binary',
    url: `/api/client/download-model/glb/${model.id}`,
  });
});

refs('another client’s file id in content, a fault or a recorded PHOTO value is VALIDATION_ERROR, and nothing is written', async () => {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const other = await buildClient(server);
  const foreign = (await upload(server, other.owner.token, [{ name: 'theirs.png', data: PNG }])).body.data.files[0].id;

  const content = await gql(server, client.owner.token, CREATE, {
    i: { title: 'X', description: '', tags: [], content: withMedia([foreign]) },
  });
  assert.equal(content.codes, ['VALIDATION_ERROR']);
  const model = await gql(server, client.owner.token, CREATE, {
    i: { title: 'X', description: '', tags: [], content: withMedia([], foreign) },
  });
  assert.equal(model.codes, ['VALIDATION_ERROR']);

  const template = await publishedTemplate(server, client, SAMPLE_CONTENT);
  const operator = await buildUser(server, client, { roles: ['operator'] });
  const job = await createJob(server, client.owner.token, { templateId: template.templateId });
  const fault = await gql(server, operator.token, 'mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { id: databaseId } }}', {
    i: { jobId: gid('Job', job.id), description: 'Leak', severity: 'LOW', photos: [foreign] },
  });
  assert.equal(fault.codes, ['VALIDATION_ERROR']);
  const record = await gql(server, operator.token, 'mutation($i: RecordStepInput!) { recordStep(input: $i) { job { id: databaseId } }}', {
    i: { jobId: gid('Job', job.id), stepId: 'photo', status: 'DONE', values: [{ key: 'picture', value: [foreign] }] },
  });
  assert.equal(record.codes, ['VALIDATION_ERROR']);
  const faults = await server.deps.db.kysely.selectFrom('faults').select('id').where('client_id', '=', client.id).execute();
  assert.is(faults.length, 0);

  // the client's own photo works, and the fault shows it as a File
  const own = (await upload(server, operator.token!, [{ name: 'leak.png', data: PNG }])).body.data.files[0];
  const raised = await gql(
    server,
    operator.token,
    `mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { photos photoFiles { ${FILE} } } }}`,
    {
      i: { jobId: gid('Job', job.id), description: 'Leak', severity: 'LOW', photos: [own.id] },
    },
  );
  assert.equal(raised.codes, [], JSON.stringify(raised.errors));
  assert.equal(raised.data.raiseFault.fault.photoFiles, [
    { id: own.id, name: 'leak.png', size: PNG.length, contentType: 'image/png', url: `/api/client/files/${own.id}` },
  ]);
  const recorded = await gql(server, operator.token, 'mutation($i: RecordStepInput!) { recordStep(input: $i) { job { id: databaseId } }}', {
    i: { jobId: gid('Job', job.id), stepId: 'photo', status: 'DONE', values: [{ key: 'picture', value: own.id }] },
  });
  assert.equal(recorded.codes, [], JSON.stringify(recorded.errors));
});

refs(
  "a SENSOR field's sensorId is validated like a file id: another client's or none → VALIDATION_ERROR naming it, nothing written",
  async () => {
    const client = await buildClient(server);
    const other = await buildClient(server);
    const SENSOR = 'mutation { createSensor(input: { name: "Line pressure", unit: "bar" }) { sensor { id: databaseId } } }';
    const own = (await gql(server, client.owner.token, SENSOR)).data.createSensor.sensor.id as number;
    const foreign = (await gql(server, other.owner.token, SENSOR)).data.createSensor.sensor.id as number;
    const withSensor = (sensorId: number) => ({
      sections: [
        {
          sectionId: 's',
          title: 'S',
          steps: [
            {
              stepId: 'a',
              title: 'A',
              fields: [
                { key: 'ok', type: 'PASS_FAIL' },
                { key: 'p', type: 'SENSOR', sensorId },
              ],
            },
          ],
        },
      ],
    });
    const templates = () => server.deps.db.kysely.selectFrom('templates').select('id').where('client_id', '=', client.id).execute();
    for (const sensorId of [foreign, 999_999]) {
      const res = await gql(server, client.owner.token, CREATE, {
        i: { title: 'X', description: '', tags: [], content: withSensor(sensorId) },
      });
      assert.equal(res.codes, ['VALIDATION_ERROR'], String(sensorId));
      assert.equal(res.errors![0].extensions!.details.fields, [
        { path: 'input.content.sections.0.steps.0.fields.1.sensorId', message: `sensor ${sensorId} does not exist` },
      ]);
    }
    assert.is((await templates()).length, 0);
    // the client's own sensor is taken; a draft edited to another client's is refused and stays as it was
    const created = await gql(server, client.owner.token, CREATE, {
      i: { title: 'X', description: '', tags: [], content: withSensor(own) },
    });
    assert.equal(created.codes, [], JSON.stringify(created.errors));
    const versionId = gid('TemplateVersion', created.data.createTemplate.template.latestVersion.id);
    const EDIT = 'mutation ($i: UpdateDraftInput!) { updateDraft(input: $i) { version { revision } } }';
    const edit = await gql(server, client.owner.token, EDIT, { i: { versionId, content: withSensor(foreign) } });
    assert.equal(edit.codes, ['VALIDATION_ERROR']);
    assert.is(edit.errors![0].extensions!.details.fields[0].path, 'content.sections.0.steps.0.fields.1.sensorId');
    const stored = await server.deps.db.kysely
      .selectFrom('template_versions')
      .select(['content', 'revision'])
      .where('client_id', '=', client.id)
      .executeTakeFirstOrThrow();
    assert.is(stored.revision, 1);
    assert.ok(stored.content.includes(`"sensorId":${own}`), stored.content);
  },
);

const EVIDENCE = {
  sections: [
    {
      id: 's',
      title: 'S',
      steps: [
        {
          id: 'evidence',
          title: 'Evidence',
          fields: [
            { key: 'pictures', label: 'Photos', type: 'PHOTO' },
            { key: 'signature', label: 'Signature', type: 'SIGNATURE' },
            { key: 'count', label: 'Count', type: 'NUMBER' },
          ],
        },
      ],
    },
  ],
};
const RECORDS = `records { stepId values { key value files { ${FILE} } } }`;

refs(
  'recorded PHOTO and SIGNATURE values resolve their Files (batched through the loader); a NUMBER equal to a file id resolves none',
  async () => {
    const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
    const operator = await buildUser(server, client, { roles: ['operator'] });
    const template = await publishedTemplate(server, client, EVIDENCE, 'Evidence');
    const [first, second, signature] = (
      await upload(server, operator.token!, [
        { name: 'front.png', data: PNG },
        { name: 'back.png', data: PNG },
        { name: 'sig.png', data: PNG },
      ])
    ).body.data.files;
    const file = (f: { id: number; name: string }) => ({
      id: f.id,
      name: f.name,
      size: PNG.length,
      contentType: 'image/png',
      url: `/api/client/files/${f.id}`,
    });
    const recordJob = async () => {
      const job = await createJob(server, client.owner.token, { templateId: template.templateId, assigneeIds: [operator.id] });
      const values = [
        { key: 'pictures', value: [second.id, first.id] },
        { key: 'signature', value: signature.id },
        { key: 'count', value: first.id },
      ];
      const recorded = await gql(
        server,
        operator.token,
        'mutation($i: RecordStepInput!) { recordStep(input: $i) { job { id: databaseId } }}',
        { i: { jobId: gid('Job', job.id), stepId: 'evidence', status: 'DONE', values } },
      );
      assert.equal(recorded.codes, [], JSON.stringify(recorded.errors));
      return job;
    };
    const job = await recordJob();
    const res = await gql(server, operator.token, `query($id: ID!) { job(id: $id) { ${RECORDS} } }`, { id: gid('Job', job.id) });
    assert.equal(res.codes, [], JSON.stringify(res.errors));
    assert.equal(res.data.job.records[0].values, [
      { key: 'pictures', value: [second.id, first.id], files: [file(second), file(first)] },
      { key: 'signature', value: signature.id, files: [file(signature)] },
      { key: 'count', value: first.id, files: [] },
    ]);

    // a page of jobs costs as many statements with 2 recorded jobs as with 6
    const page = async () => {
      await sendersSettled(server);
      const before = await statementsSoFar(server);
      const result = await gql(server, client.owner.token, `{ jobs(first: 50) { edges { node { id: databaseId ${RECORDS} } } } }`);
      assert.equal(result.codes, [], JSON.stringify(result.errors));
      const files = result.data.jobs.edges.flatMap((e: any) => e.node.records.flatMap((r: any) => r.values.flatMap((v: any) => v.files)));
      return { statements: (await statementsSoFar(server)) - before, files: files.length };
    };
    await recordJob();
    const two = await page();
    for (let i = 0; i < 4; i++) await recordJob();
    const six = await page();
    assert.equal([two.files, six.files], [6, 18]);
    assert.is(six.statements, two.statements, `statements: ${two.statements} for 2 jobs, ${six.statements} for 6`);
  },
);

refs.run();
