import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser, type BuiltClient } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { publishedTemplate, DOMAIN_TEST_ENV } from '../helpers/domain';
import { canonicalJson } from '#lib/canonical-json';
import { upload, PNG, GLB } from '../helpers/upload';
import { CORRUPT_PNG } from '../helpers/hostile-images';
import { download, rawZip, unzip, uploadZip, type RawEntry } from '../helpers/zip';

let server: TestServer;
const zips = suite('GET /api/client/export-zip/:templateId, POST /api/client/import-zip');
zips.before(async () => {
  // a small expansion limit makes a zip bomb cheap to build; 10,001 entries need a larger body limit
  server = await startTestServer({ env: { ...DOMAIN_TEST_ENV, WIP_IMPORT_MAX_UNZIPPED: '4mb', WIP_BODY_LIMIT: '8mb' } });
});
zips.after(async () => server.stop());

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
          fields: [{ key: 'torque', label: 'Torque', type: 'NUMBER', required: true, unit: 'Nm', min: 10, max: 20 }],
        },
        { id: 'check', title: 'Check the seal', fields: [{ key: 'colour', label: 'Colour', type: 'CHOICE', options: ['red', 'green'] }] },
      ],
    },
  ],
};

async function exportZip(token: string, templateId: number, query = '') {
  return download(`${server.url}/api/client/export-zip/${templateId}${query}`, token);
}
async function manifestOf(bytes: Buffer) {
  const entries = await unzip(bytes);
  return JSON.parse(entries.get('manifest.json')!.toString('utf8'));
}
const importZip = (token: string, zip: Buffer) => uploadZip(`${server.url}/api/client/import-zip`, token, zip);

/** What a client holds that an import would write: templates, versions, sensors, audit entries. */
async function footprint(client: BuiltClient) {
  const db = server.deps.db.kysely;
  const count = async (table: 'templates' | 'template_versions' | 'sensors' | 'audit_entries') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('client_id', '=', client.id)
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    templates: await count('templates'),
    versions: await count('template_versions'),
    sensors: await count('sensors'),
    audit: await count('audit_entries'),
  };
}

/** A ZIP made of a manifest (edited by `edit`) and extra entries. */
function manifestZip(manifest: any, extra: RawEntry[] = []): Buffer {
  return rawZip([{ name: 'manifest.json', data: Buffer.from(JSON.stringify(manifest)) }, ...extra]);
}

/** The manifest with one file listed (and used by the first step), its true sha256 and size. */
function listing(manifest: any, path: string, bytes: Buffer) {
  const out = structuredClone(manifest);
  out.version.content.sections[0].steps[0].media = [1];
  out.version.contentSha256 = createHash('sha256').update(canonicalJson(out.version.content)).digest('hex');
  out.files = [
    {
      ref: 1,
      path,
      name: path.slice(6),
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      contentType: 'application/octet-stream',
    },
  ];
  return out;
}

async function sourceTemplate() {
  const client = await buildClient(server);
  const sensor = await gql(
    server,
    client.owner.token,
    'mutation { createSensor(input: {name: "Line pressure", unit: "bar", kind: "pressure"}) { sensor { databaseId } } }',
  );
  const content = structuredClone(CONTENT) as any;
  content.sections[0].steps.push({
    id: 'pressure',
    title: 'Read the line pressure',
    fields: [{ key: 'p', label: 'Pressure', type: 'SENSOR', sensorId: sensor.data.createSensor.sensor.databaseId, min: 1, max: 3 }],
  });
  const template = await publishedTemplate(server, client, content, 'Pump overhaul');
  return { client, ...template };
}

zips(
  'export → import into another client → export gives the same manifest, ids aside; the import is a new template with one DRAFT',
  async () => {
    const { client, templateId, versionId } = await sourceTemplate();
    const first = await exportZip(client.owner.token, templateId);
    assert.is(first.status, 200, first.text);
    assert.is(first.type, 'application/zip');
    assert.match(first.disposition ?? '', /attachment; filename="Pump-overhaul-v1\.zip"/);
    const manifest = await manifestOf(first.bytes);
    assert.is(manifest.format, 'wip-template');
    assert.is(manifest.formatVersion, 2);
    assert.equal(manifest.source, { templateId, versionId, versionNumber: 1, versionState: 'PUBLISHED' });
    assert.equal(manifest.template, { title: 'Pump overhaul', description: 'test template', tags: [] });
    assert.equal(manifest.sensors, [{ ref: 1, name: 'Line pressure', unit: 'bar', kind: 'pressure' }]);
    assert.is(manifest.version.content.sections[0].steps[2].fields[0].sensorId, 1, 'sensor ids become refs into the manifest');
    assert.is(manifest.version.contentSha256, createHash('sha256').update(canonicalJson(manifest.version.content)).digest('hex'));

    const target = await buildClient(server);
    const before = await footprint(target);
    const imported = await importZip(target.owner.token, first.bytes);
    assert.is(imported.status, 201, JSON.stringify(imported.body));
    const { templateId: newId, versionId: newVersionId } = imported.body.data;
    const after = await footprint(target);
    assert.equal(
      {
        templates: after.templates - before.templates,
        versions: after.versions - before.versions,
        sensors: after.sensors - before.sensors,
      },
      { templates: 1, versions: 1, sensors: 1 },
    );

    const read = await gql(
      server,
      target.owner.token,
      'query($id: ID!) { template(id: $id) { title versions { nodes { id: databaseId number state } } } }',
      { id: `Template:${newId}` },
    );
    assert.equal(read.data.template.versions.nodes, [{ id: newVersionId, number: 1, state: 'DRAFT' }]);

    const again = await exportZip(target.owner.token, newId);
    assert.is(again.status, 200);
    const second = await manifestOf(again.bytes);
    assert.equal(second.source, { templateId: newId, versionId: newVersionId, versionNumber: 1, versionState: 'DRAFT' });
    const strip = ({ exportedAt: _e, source: _s, ...rest }: any) => rest;
    assert.equal(strip(second), strip(manifest));
    assert.is(second.version.contentSha256, manifest.version.contentSha256);

    // importing twice matches the sensor by name and unit instead of creating another
    assert.is((await importZip(target.owner.token, first.bytes)).status, 201);
    assert.is((await footprint(target)).sensors, after.sensors);
  },
);

zips("export takes ?versionId=, another client's template or version is 404, and only authors import", async () => {
  const { client, templateId, versionId } = await sourceTemplate();
  const other = await buildClient(server);
  assert.is((await exportZip(client.owner.token, templateId, `?versionId=${versionId}`)).status, 200);
  assert.is((await exportZip(other.owner.token, templateId)).status, 404);
  const otherTemplate = await publishedTemplate(server, other, CONTENT);
  assert.is((await exportZip(client.owner.token, templateId, `?versionId=${otherTemplate.versionId}`)).status, 404);
  assert.is((await exportZip(client.owner.token, 999_999)).status, 404);

  const zip = (await exportZip(client.owner.token, templateId)).bytes;
  const operator = await buildUser(server, client, { roles: ['operator'] });
  const refused = await importZip(operator.token!, zip);
  assert.is(refused.status, 403);
  const empty = await importZip(client.owner.token, zip.subarray(0, 0));
  assert.ok(empty.status === 400 || empty.status === 422, JSON.stringify(empty.body));
});

zips('malicious and inconsistent archives are refused with 422 ARCHIVE_INVALID and nothing is written', async () => {
  const { client, templateId } = await sourceTemplate();
  const good = await manifestOf((await exportZip(client.owner.token, templateId)).bytes);
  const target = await buildClient(server);
  const before = await footprint(target);

  const tampered = structuredClone(good);
  tampered.version.content.sections[0].steps[0].title = 'Skip the torque check';
  const withFile = structuredClone(good);
  withFile.version.content.sections[0].steps[0].media = [1];
  withFile.version.content = JSON.parse(JSON.stringify(withFile.version.content));
  withFile.version.contentSha256 = createHash('sha256').update(canonicalJson(withFile.version.content)).digest('hex');
  const png = Buffer.from('89504e470d0a1a0a', 'hex');
  withFile.files = [
    {
      ref: 1,
      path: 'media/1-photo.png',
      name: 'photo.png',
      size: png.length,
      sha256: createHash('sha256').update('something else').digest('hex'),
      contentType: 'image/png',
    },
  ];
  const zeros = Buffer.alloc(6 * 1024 * 1024);

  const cases: [string, Buffer, string][] = [
    ['zip-slip', manifestZip(good, [{ name: 'media/../../evil.sh', data: Buffer.from('#!/bin/sh') }]), 'ZIP_SLIP'],
    ['absolute path', manifestZip(good, [{ name: '/etc/cron.d/evil', data: Buffer.from('x') }]), 'ABSOLUTE_PATH'],
    ['windows absolute path', manifestZip(good, [{ name: 'C:/evil', data: Buffer.from('x') }]), 'ABSOLUTE_PATH'],
    ['symlink', manifestZip(good, [{ name: 'media/link', data: Buffer.from('/etc/passwd'), unixMode: 0o120777 }]), 'SYMLINK'],
    ['bomb with honest sizes', manifestZip(good, [{ name: 'media/zeros', data: zeros, deflate: true }]), 'TOO_LARGE'],
    [
      'bomb with a lying header',
      manifestZip(listing(good, 'media/1-zeros.bin', zeros), [{ name: 'media/1-zeros.bin', data: zeros, deflate: true, declaredSize: 10 }]),
      'TOO_LARGE',
    ],
    [
      'too many entries',
      manifestZip(
        good,
        Array.from({ length: 10_000 }, (_, i) => ({ name: `m/${i}` })),
      ),
      'TOO_MANY_ENTRIES',
    ],
    ['content checksum', manifestZip(tampered), 'CHECKSUM_MISMATCH'],
    ['media checksum', manifestZip(withFile, [{ name: 'media/1-photo.png', data: png }]), 'CHECKSUM_MISMATCH'],
    ['entry not in the manifest', manifestZip(good, [{ name: 'media/extra.bin', data: Buffer.from('x') }]), 'UNEXPECTED_ENTRY'],
    ['listed file missing', manifestZip(withFile), 'MISSING_ENTRY'],
    ['manifest schema', manifestZip({ ...good, formatVersion: 3 }), 'MANIFEST_INVALID'],
    ['manifest not JSON', rawZip([{ name: 'manifest.json', data: Buffer.from('{nope') }]), 'MANIFEST_INVALID'],
    ['no manifest', rawZip([{ name: 'readme.txt', data: Buffer.from('hi') }]), 'MISSING_ENTRY'],
    ['not a zip', Buffer.from('PK but not really a zip archive at all'), 'NOT_A_ZIP'],
  ];
  for (const [what, zip, reason] of cases) {
    const res = await importZip(target.owner.token, zip);
    assert.is(res.status, 422, `${what}: ${JSON.stringify(res.body)}`);
    assert.is(res.body.error.code, 'ARCHIVE_INVALID', what);
    assert.is(res.body.error.details.reason, reason, `${what}: ${JSON.stringify(res.body.error)}`);
  }
  assert.equal(await footprint(target), before, 'nothing written');
});

zips('a package carrying an image that cannot be decoded is refused 422 naming the file; nothing is written', async () => {
  const { client, templateId } = await sourceTemplate();
  const good = await manifestOf((await exportZip(client.owner.token, templateId)).bytes);
  const target = await buildClient(server);
  const before = await footprint(target);
  const zip = manifestZip(listing(good, 'media/1-corrupt.png', CORRUPT_PNG), [{ name: 'media/1-corrupt.png', data: CORRUPT_PNG }]);
  const res = await importZip(target.owner.token, zip);
  assert.is(res.status, 422, JSON.stringify(res.body));
  assert.is(res.body.error.code, 'VALIDATION_ERROR');
  assert.is(res.body.error.details.file, '1-corrupt.png', JSON.stringify(res.body.error));
  assert.equal(await footprint(target), before, 'nothing written');
});

/** Execution rules (docs/execution-rules.md): a branch, a calculated field and a sign-off. */
const RULES = {
  sections: [
    {
      id: 'checks',
      title: 'Checks',
      steps: [
        { id: 'seal', title: 'Check the seal', fields: [{ key: 'ok', type: 'PASS_FAIL', required: true }] },
        { id: 'replace', title: 'Replace the seal', when: { step: 'seal', field: 'ok', op: 'eq', value: 'FAIL' }, fields: [] },
        {
          id: 'pressure',
          title: 'Pressure test',
          signoff: { performer: true, verifier: { roles: ['approver'] } },
          fields: [
            { key: 'p_in', type: 'NUMBER' },
            { key: 'p_out', type: 'NUMBER' },
            { key: 'drop', type: 'CALCULATED', expression: 'round(p_out - p_in, 1)', min: -0.5, max: 0.5 },
          ],
        },
      ],
    },
  ],
};

zips(
  'a version-2 package carries the execution rules and round-trips; a version-1 package still imports, and one holding rules is refused',
  async () => {
    const client = await buildClient(server);
    const { templateId } = await publishedTemplate(server, client, RULES, 'Seal');
    const manifest = await manifestOf((await exportZip(client.owner.token, templateId)).bytes);
    assert.is(manifest.formatVersion, 2);
    const [, replace, pressure] = manifest.version.content.sections[0].steps;
    assert.equal(replace.when, { step: 'seal', field: 'ok', op: 'eq', value: 'FAIL' });
    assert.equal(pressure.signoff, { performer: true, verifier: { roles: ['approver'] } });
    assert.is(pressure.fields[2].expression, 'round(p_out - p_in, 1)');

    const target = await buildClient(server);
    const imported = await importZip(target.owner.token, manifestZip(manifest));
    assert.is(imported.status, 201, JSON.stringify(imported.body));
    const again = await manifestOf((await exportZip(target.owner.token, imported.body.data.templateId)).bytes);
    assert.is(again.version.contentSha256, manifest.version.contentSha256, 'the rules survive the round trip unchanged');

    // a package written before version 2: same shape, formatVersion 1, no rules
    const old = await manifestOf(
      (await exportZip(client.owner.token, (await publishedTemplate(server, client, CONTENT, 'Old')).templateId)).bytes,
    );
    const v1 = await importZip(target.owner.token, manifestZip({ ...old, formatVersion: 1 }));
    assert.is(v1.status, 201, JSON.stringify(v1.body));
    const v1WithRules = await importZip(target.owner.token, manifestZip({ ...manifest, formatVersion: 1 }));
    assert.is(v1WithRules.status, 422);
    assert.is(v1WithRules.body.error.details.reason, 'MANIFEST_INVALID');
  },
);

zips("media travel with the template: export packs the files, import stores them as the target client's own files", async () => {
  const client = await buildClient(server);
  const uploaded = await upload(server, client.owner.token, [
    { name: 'valve.png', data: PNG },
    { name: 'pump.glb', data: GLB },
  ]);
  assert.is(uploaded.status, 201, uploaded.text);
  const [image, model] = uploaded.body.data.files;
  const content = structuredClone(CONTENT) as any;
  content.sections[0].steps[0].media = [image.id];
  content.sections[0].steps[0].model = { fileId: model.id };
  const { templateId } = await publishedTemplate(server, client, content);

  const exported = await exportZip(client.owner.token, templateId);
  assert.is(exported.status, 200);
  const entries = await unzip(exported.bytes);
  const manifest = JSON.parse(entries.get('manifest.json')!.toString('utf8'));
  assert.equal(
    manifest.files.map((f: any) => [f.name, f.sha256]).sort(),
    [
      ['pump.glb', model.sha256],
      ['valve.png', image.sha256],
    ].sort(),
  );
  for (const file of manifest.files) assert.equal(entries.get(file.path), file.name === 'valve.png' ? PNG : GLB);

  const target = await buildClient(server);
  const imported = await importZip(target.owner.token, exported.bytes);
  assert.is(imported.status, 201, JSON.stringify(imported.body));
  const read = await gql(
    server,
    target.owner.token,
    'query($id: ID!) { template(id: $id) { latestVersion { content { sections { steps { media model { fileId } } } } } } }',
    { id: `Template:${imported.body.data.templateId}` },
  );
  const step = read.data.template.latestVersion.content.sections[0].steps[0];
  assert.not.equal(step.media, [image.id], 'new ids in the target client');
  const mine = await server.request('GET', `/api/client/files/${step.media[0]}`, { token: target.owner.token });
  assert.is(mine.status, 200);
  assert.is(mine.text, PNG.toString());
  // the source client's ids stay the source's: the target cannot read them
  assert.is((await server.request('GET', `/api/client/files/${image.id}`, { token: target.owner.token })).status, 404);
  const again = await manifestOf((await exportZip(target.owner.token, imported.body.data.templateId)).bytes);
  assert.equal(again.files.map((f: any) => f.sha256).sort(), manifest.files.map((f: any) => f.sha256).sort());
});

zips.run();
