import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser, type BuiltClient } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { createAsset, createJob, DOMAIN_TEST_ENV, publishedTemplate, SAMPLE_CONTENT } from '../helpers/domain';
import { upload } from '../helpers/upload';
import { runDoctor } from '#ops/doctor';

let server: TestServer;
const deletion = suite('DELETE /api/client/files/:id: in-use files refused, quota freed, bytes removed after commit');
deletion.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
deletion.after(async () => server.stop());

let unique = 0;
/** Bytes no other test stores (content is shared by hash across the store). */
const fresh = (label: string) => Buffer.from(`${label} ${++unique} ${Date.now()} ${Math.random()}`);

async function uploadOne(token: string, data: Buffer, name = 'file.bin') {
  const res = await upload(server, token, [{ name, data }]);
  assert.is(res.status, 201, res.text);
  return res.body.data.files[0] as { id: number; sha256: string; size: number };
}

const onDisk = (sha: string) => path.join(server.dataDir, 'files', sha.slice(0, 2), sha);
/** As if the bytes were written two hours ago: past the grace an upload in progress gets. */
const age = (sha: string) => {
  const past = new Date(Date.now() - 2 * 3600_000);
  fs.utimesSync(onDisk(sha), past, past);
};
const remove = (id: number, token: string) => server.request('DELETE', `/api/client/files/${id}`, { token });
const usage = async (client: BuiltClient) =>
  (await server.request('GET', `/api/admin/client/${client.id}/storage-quota`, { token: await adminToken(server) })).body.data
    .storageUsedBytes as number;
const filesCheck = async () => (await runDoctor(server.deps.config, { timeoutMs: 200 })).checks.find((c) => c.name === 'files')!;
const garbage = () => server.deps.db.kysely.selectFrom('file_garbage').select('sha256').execute();

deletion(
  'an unused file is deleted: gone from the API, its quota freed at once, its old bytes removed from disk after commit; doctor stays OK',
  async () => {
    const client = await buildClient(server);
    const file = await uploadOne(client.owner.token, fresh('manual'));
    age(file.sha256);
    const before = await usage(client);
    const res = await remove(file.id, client.owner.token);
    assert.is(res.status, 200, res.text);
    assert.equal(res.body.data, { id: file.id, deleted: true });
    assert.is((await server.request('GET', `/api/client/files/${file.id}`, { token: client.owner.token })).status, 404);
    assert.is(await usage(client), before - file.size);
    assert.not.ok(fs.existsSync(onDisk(file.sha256)), 'bytes removed right after the commit');
    assert.equal(await garbage(), []);
    assert.is((await filesCheck()).status, 'OK', (await filesCheck()).message);
    assert.is((await remove(file.id, client.owner.token)).status, 404, 'deleting twice: 404');
  },
);

deletion(
  'bytes written within the hour wait (an upload of the same bytes may be committing), then go with the next collection',
  async () => {
    const client = await buildClient(server);
    const young = await uploadOne(client.owner.token, fresh('young'));
    assert.is((await remove(young.id, client.owner.token)).status, 200);
    assert.ok(fs.existsSync(onDisk(young.sha256)), 'young bytes stay for now');
    assert.ok(
      (await garbage()).some((g) => g.sha256 === young.sha256),
      'queued for collection',
    );
    assert.is((await filesCheck()).status, 'OK', 'young unreferenced bytes are no orphan for doctor either');
    // an hour later, any collection (here the one after another deletion) removes them
    age(young.sha256);
    const other = await uploadOne(client.owner.token, fresh('other'));
    assert.is((await remove(other.id, client.owner.token)).status, 200);
    assert.not.ok(fs.existsSync(onDisk(young.sha256)));
    assert.not.ok((await garbage()).some((g) => g.sha256 === young.sha256));
  },
);

deletion(
  'shared content stays on disk while another file or another client still holds it; re-uploaded content leaves the queue',
  async () => {
    const client = await buildClient(server);
    const other = await buildClient(server);
    const data = fresh('shared');
    const mine = await uploadOne(client.owner.token, data);
    const copy = await uploadOne(client.owner.token, data, 'copy.bin');
    const theirs = await uploadOne(other.owner.token, data);
    age(mine.sha256);
    const used = await usage(client);
    assert.is((await remove(mine.id, client.owner.token)).status, 200);
    assert.is(await usage(client), used, 'the copy still holds the content: nothing freed');
    assert.is((await remove(copy.id, client.owner.token)).status, 200);
    assert.is(await usage(client), used - data.length);
    assert.ok(fs.existsSync(onDisk(mine.sha256)), 'the other client still references the bytes');
    const download = await server.request('GET', `/api/client/files/${theirs.id}`, { token: other.owner.token });
    assert.is(download.status, 200);
    assert.is(download.text, data.toString());
    assert.not.ok(
      (await garbage()).some((g) => g.sha256 === mine.sha256),
      'dequeued: referenced elsewhere',
    );
  },
);

deletion('a replaced file is deleted with its prior revisions and both contents are freed', async () => {
  const client = await buildClient(server);
  const first = fresh('rev1');
  const file = await uploadOne(client.owner.token, first);
  const second = fresh('rev2');
  const replaced = await upload(server, client.owner.token, [{ name: 'v2.bin', data: second }], {
    path: '/api/client/replaceFile',
    fields: { fileId: String(file.id) },
  });
  assert.is(replaced.status, 200, replaced.text);
  age(file.sha256);
  age(replaced.body.data.file.sha256);
  assert.is((await remove(file.id, client.owner.token)).status, 200);
  assert.is(await usage(client), 0);
  assert.not.ok(fs.existsSync(onDisk(file.sha256)));
  assert.not.ok(fs.existsSync(onDisk(replaced.body.data.file.sha256)));
  const revisions = await server.deps.db.kysely.selectFrom('file_revisions').select('id').where('file_id', '=', file.id).execute();
  assert.equal(revisions, []);
});

deletion(
  'a file used by a template version, a recorded photo, a fault photo or alignment data → 409 FILE_IN_USE naming where; it stays downloadable',
  async () => {
    const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
    const operator = await buildUser(server, client, { roles: ['operator'] });
    const media = await uploadOne(client.owner.token, fresh('media'), 'step.png');
    const created = await gql(
      server,
      client.owner.token,
      'mutation($i: CreateTemplateInput!) { createTemplate(input: $i) { template { id: databaseId latestVersion { id: databaseId } } } }',
      {
        i: {
          title: 'Media',
          description: '',
          tags: [],
          content: { sections: [{ sectionId: 's', title: 'S', steps: [{ stepId: 'a', title: 'A', media: [media.id], fields: [] }] }] },
        },
      },
    );
    assert.equal(created.codes, [], JSON.stringify(created.errors));
    const inDraft = await remove(media.id, client.owner.token);
    assert.is(inDraft.status, 409, inDraft.text);
    assert.is(inDraft.body.error.code, 'FILE_IN_USE');
    assert.equal(inDraft.body.error.details.references, [
      {
        type: 'templateVersion',
        templateId: created.data.createTemplate.template.id,
        versionId: created.data.createTemplate.template.latestVersion.id,
        state: 'DRAFT',
      },
    ]);

    const template = await publishedTemplate(server, client, SAMPLE_CONTENT);
    const job = await createJob(server, client.owner.token, { templateId: template.templateId, assigneeIds: [operator.id] });
    const photo = await uploadOne(operator.token!, fresh('photo'), 'result.png');
    const recorded = await gql(server, operator.token, 'mutation($i: RecordStepInput!) { recordStep(input: $i) { revision } }', {
      i: { jobId: `Job:${job.id}`, stepId: 'photo', status: 'DONE', values: [{ key: 'picture', value: [photo.id] }] },
    });
    assert.equal(recorded.codes, [], JSON.stringify(recorded.errors));
    const inRecord = await remove(photo.id, client.owner.token);
    assert.is(inRecord.status, 409);
    assert.equal(inRecord.body.error.details.references, [{ type: 'stepRecord', jobId: job.id, stepId: 'photo' }]);

    const leak = await uploadOne(operator.token!, fresh('leak'), 'leak.png');
    const fault = await gql(
      server,
      operator.token,
      'mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { id: databaseId } } }',
      {
        i: { jobId: `Job:${job.id}`, description: 'Leak', severity: 'LOW', photos: [leak.id] },
      },
    );
    assert.equal(fault.codes, [], JSON.stringify(fault.errors));
    const inFault = await remove(leak.id, operator.token!);
    assert.is(inFault.status, 409);
    assert.equal(inFault.body.error.details.references, [{ type: 'fault', faultId: fault.data.raiseFault.fault.id }]);

    const assetId = await createAsset(server, client.owner.token, 'Pump 7');
    const ply = `ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nend_header\n1 2 3\n`;
    const scan = await upload(server, client.owner.token, [{ name: 'scan.ply', data: ply }], {
      path: '/api/client/alignment-data',
      fields: { assetId: String(assetId) },
    });
    assert.is(scan.status, 201, scan.text);
    const inAlignment = await remove(scan.body.data.fileId, client.owner.token);
    assert.is(inAlignment.status, 409);
    assert.equal(inAlignment.body.error.details.references, [{ type: 'alignmentData', alignmentDataId: scan.body.data.id }]);

    for (const id of [media.id, photo.id, leak.id, scan.body.data.fileId]) {
      assert.is((await server.request('GET', `/api/client/files/${id}`, { token: client.owner.token })).status, 200, `file ${id} kept`);
    }
  },
);

deletion('a number that merely equals the file id (a NUMBER value) is no reference', async () => {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const operator = await buildUser(server, client, { roles: ['operator'] });
  const file = await uploadOne(client.owner.token, fresh('number'));
  const template = await publishedTemplate(server, client, SAMPLE_CONTENT);
  const job = await createJob(server, client.owner.token, { templateId: template.templateId, assigneeIds: [operator.id] });
  const recorded = await gql(server, operator.token, 'mutation($i: RecordStepInput!) { recordStep(input: $i) { revision } }', {
    i: {
      jobId: `Job:${job.id}`,
      stepId: 'measure',
      status: 'DONE',
      values: [
        { key: 'torque', value: file.id },
        { key: 'note', value: `see file ${file.id}` },
      ],
    },
  });
  assert.equal(recorded.codes, [], JSON.stringify(recorded.errors));
  assert.is((await remove(file.id, client.owner.token)).status, 200);
});

deletion('tenant and role scoping: another client’s id → 404 (kept); operators delete only their own uploads; no token → 401', async () => {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const other = await buildClient(server);
  const theirs = await uploadOne(other.owner.token, fresh('theirs'));
  const foreign = await remove(theirs.id, client.owner.token);
  assert.is(foreign.status, 404);
  assert.is(foreign.body.error.code, 'NOT_FOUND');
  assert.is((await server.request('GET', `/api/client/files/${theirs.id}`, { token: other.owner.token })).status, 200);

  const operator = await buildUser(server, client, { roles: ['operator'] });
  const owners = await uploadOne(client.owner.token, fresh('owners'));
  const own = await uploadOne(operator.token!, fresh('own'));
  const forbidden = await remove(owners.id, operator.token!);
  assert.is(forbidden.status, 403);
  assert.is(forbidden.body.error.code, 'FORBIDDEN');
  assert.is((await remove(own.id, operator.token!)).status, 200);
  const author = await buildUser(server, client, { roles: ['author'] });
  assert.is((await remove(owners.id, author.token!)).status, 200, 'authors delete any file of the client');
  assert.is((await server.request('DELETE', `/api/client/files/${theirs.id}`)).status, 401);
});

deletion.run();
