import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser, PASSWORD, signIn } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { publishedTemplate, DOMAIN_TEST_ENV } from '../helpers/domain';
import jwt from 'jsonwebtoken';
import { listAuditEntries } from '#repos/audit';
import { tenantScope } from '#db/tenant';

let server: TestServer;
const copy = suite('POST /api/client/copy-entities');
copy.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
copy.after(async () => server.stop());

const post = (token: string, body: unknown) => server.request('POST', '/api/client/copy-entities', { token, body });
const READ = `query($id: ID!) { template(id: $id) { id: databaseId title versions { nodes { number state content { sections { sectionId title steps { stepId title fields { key type sensorId } } } } } } } }`;
const templateGid = (id: number) => `Template:${id}`;

/** Two clients owned by the same person (same email), a sensor-using published template and a draft-only one in the first. */
async function setup() {
  const source = await buildClient(server);
  const target = await buildClient(server, { ownerEmail: source.owner.email });
  const sensor = await gql(
    server,
    source.owner.token,
    'mutation { createSensor(input: {name: "Oil temperature", unit: "C", kind: "temperature"}) { sensor { databaseId } } }',
  );
  const sensorId = sensor.data.createSensor.sensor.databaseId;
  const content = {
    sections: [
      {
        id: 's1',
        title: 'Checks',
        steps: [{ id: 'oil', title: 'Read the oil temperature', fields: [{ key: 't', type: 'SENSOR', sensorId, max: 90 }] }],
      },
    ],
  };
  const published = await publishedTemplate(server, source, content, 'Gearbox check');
  const draft = await gql(
    server,
    source.owner.token,
    'mutation { createTemplate(input: {title: "Draft only", content: {sections: [{title: "A", steps: [{title: "Only step"}]}]}}) { template { databaseId } } }',
  );
  return { source, target, sensorId, published, draftId: draft.data.createTemplate.template.databaseId as number };
}

/** The target's own access token, as the proof header. */
const proof = (token: string) => ({ 'x-target-authorization': `Bearer ${token}` });
const postWithProof = (token: string, targetToken: string, body: unknown) =>
  server.request('POST', '/api/client/copy-entities', { token, body, headers: proof(targetToken) });

/** What a copy writes in a client: templates, files and audit entries (a refused copy changes none of them). */
async function footprint(clientId: number) {
  const db = server.deps.db.kysely;
  const count = async (table: 'templates' | 'files' | 'audit_entries') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('client_id', '=', clientId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { templates: await count('templates'), files: await count('files'), audit: await count('audit_entries') };
}

const auditOf = async (clientId: number, entityId: number) =>
  (
    await listAuditEntries(
      server.deps.db.kysely,
      tenantScope(clientId),
      { entityType: 'template', entityId: String(entityId) },
      { limit: 50 },
    )
  ).items;

copy(
  'an admin of both clients copies templates with the target token: new ids, one DRAFT each, sensors matched, both chains record it',
  async () => {
    const { source, target, sensorId, published, draftId } = await setup();
    const res = await postWithProof(source.owner.token, target.owner.token, {
      templateIds: [published.templateId, draftId],
      targetClientId: target.id,
    });
    assert.is(res.status, 201, res.text);
    const copies = res.body.data.templates;
    assert.equal(
      copies.map((c: any) => [c.sourceTemplateId, c.sourceVersionId]),
      [
        [published.templateId, published.versionId],
        [draftId, copies[1].sourceVersionId],
      ],
    );
    const original = (await gql(server, source.owner.token, READ, { id: templateGid(published.templateId) })).data.template;
    const copied = (await gql(server, target.owner.token, READ, { id: templateGid(copies[0].templateId) })).data.template;
    assert.ok(copied.id !== published.templateId);
    assert.is(copied.title, 'Gearbox check');
    assert.equal(
      copied.versions.nodes.map((v: any) => [v.number, v.state]),
      [[1, 'DRAFT']],
    );
    const targetSensor = copied.versions.nodes[0].content.sections[0].steps[0].fields[0].sensorId;
    assert.ok(targetSensor !== sensorId, "the sensor is the target client's own");
    const sensors = await gql(server, target.owner.token, '{ sensors { nodes { id: databaseId name unit } } }');
    assert.equal(sensors.data.sensors.nodes, [{ id: targetSensor, name: 'Oil temperature', unit: 'C' }]);
    const strip = (c: any) => JSON.parse(JSON.stringify(c).replace(/"sensorId":\d+/g, '"sensorId":0'));
    assert.equal(strip(copied.versions.nodes[0].content), strip(original.versions.nodes[0].content));
    assert.equal(
      original.versions.nodes.map((v: any) => v.state),
      ['PUBLISHED'],
      'the source keeps its version',
    );
    const draftCopy = (await gql(server, target.owner.token, READ, { id: templateGid(copies[1].templateId) })).data.template;
    assert.is(draftCopy.versions.nodes[0].content.sections[0].steps[0].title, 'Only step');
    // the target's copies are not visible from the source client
    assert.is((await gql(server, source.owner.token, READ, { id: templateGid(copies[0].templateId) })).data.template, null);

    // the source chain: copied out, by whom, to where; the target chain: copied in, from where, by whom
    const out = (await auditOf(source.id, published.templateId)).filter((e) => e.action === 'template.copied_out');
    assert.is(out.length, 1);
    assert.is(out[0].actor, `user:${source.owner.id} ${source.owner.email}`);
    assert.equal(JSON.parse(out[0].after!), {
      copiedTo: { clientId: target.id, templateId: copies[0].templateId },
      versionId: published.versionId,
    });
    const created = (await auditOf(target.id, copies[0].templateId)).find((e) => e.action === 'template.created')!;
    assert.is(created.actor, `user:${target.owner.id} ${target.owner.email}`, "the copy is the target admin's");
    const after = JSON.parse(created.after!);
    assert.equal(after.copiedFrom, { clientId: source.id, templateId: published.templateId, versionId: published.versionId });
    assert.is(after.copiedBy, `user:${source.owner.id} ${source.owner.email} of client ${source.id}`);
  },
);

copy(
  "an email that matches is no proof: a user named like the target's admin copies nothing (404), and the security log says so",
  async () => {
    // the attack: A's Security Administrator creates, in A, a user under B's owner's email and signs in as it
    const source = await buildClient(server);
    const target = await buildClient(server);
    const published = await publishedTemplate(server, source, { sections: [] }, 'Smuggled');
    const lookalike = await buildUser(server, source, { roles: ['admin'], email: target.owner.email });
    const before = await footprint(target.id);
    const res = await post(lookalike.token!, { templateIds: [published.templateId], targetClientId: target.id });
    assert.is(res.status, 404, res.text);
    assert.is(res.body.error.code, 'NOT_FOUND');
    assert.equal(await footprint(target.id), before, 'nothing written in the target');
    const logs = await server.request('GET', `/api/admin/logs?category=security&event=security.copy_target_refused&clientId=${source.id}`, {
      token: await adminToken(server),
    });
    assert.is(logs.status, 200, logs.text);
    assert.equal(
      logs.body.data.items.map((item: any) => [item.level, item.userId, item.data]),
      [['warn', lookalike.id, { targetClientId: target.id, reason: 'no target token' }]],
    );
  },
);

copy('refused (404, nothing written) with any target token that does not prove a live Security Administrator of the target', async () => {
  const { source, target, published } = await setup();
  const stranger = await buildClient(server);
  const targetAuthor = await buildUser(server, target, { roles: ['author'] });
  const signedOut = await buildUser(server, target, { roles: ['admin'] });
  assert.is((await server.request('POST', '/api/client/auth/sign-out', { token: signedOut.token })).status, 200);
  const disabled = await buildUser(server, target, { roles: ['admin'] });
  const off = await server.request('PUT', '/api/admin/user', { token: target.owner.token, body: { id: disabled.id, disabled: true } });
  assert.is(off.status, 200, off.text);
  const forged = jwt.sign({ sub: String(target.owner.id), cid: target.id, sid: 1 }, 'not-the-key', {
    algorithm: 'HS256',
    issuer: 'wip',
    audience: 'wip-client',
    expiresIn: 600,
  });
  const body = { templateIds: [published.templateId], targetClientId: target.id };
  const before = await footprint(target.id);
  const strangerBefore = await footprint(stranger.id);
  for (const [label, targetToken, targetClientId] of [
    ["the caller's own token (of the source)", source.owner.token, target.id],
    ["a third client's admin", stranger.owner.token, target.id],
    ["the target's token for another client's id", target.owner.token, stranger.id],
    ["the target's token for an unknown client's id", target.owner.token, 999_999],
    ['an author of the target', targetAuthor.token!, target.id],
    ['a signed-out admin of the target', signedOut.token!, target.id],
    ['a disabled admin of the target', disabled.token!, target.id],
    ['a token signed with another key', forged, target.id],
    ['not a token', 'nonsense', target.id],
    ['a system administrator token', await adminToken(server), target.id],
  ] as const) {
    const res = await postWithProof(source.owner.token, targetToken, { ...body, targetClientId });
    assert.is(res.status, 404, `${label}: ${res.text}`);
    assert.is(res.body.error.code, 'NOT_FOUND', label);
  }
  // a target token that has expired (the caller signs in again after the access token lifetime)
  server.clock.advance(server.deps.config.accessTokenTtl + 1000);
  const fresh = await signIn(server, source.owner.email, PASSWORD, source.id);
  const expired = await postWithProof(fresh, target.owner.token, body);
  assert.is(expired.status, 404, expired.text);
  const scheme = await server.request('POST', '/api/client/copy-entities', {
    token: fresh,
    body,
    headers: { 'x-target-authorization': `Basic ${target.owner.token}` },
  });
  assert.is(scheme.status, 422, scheme.text);
  assert.is(scheme.body.error.details.fields[0].path, 'header.X-Target-Authorization');
  assert.equal(await footprint(target.id), before, 'nothing written in the target');
  assert.equal(await footprint(stranger.id), strangerBefore, 'nor in the client named instead');
});

copy("other refusals: another client's template (404), the same client (422), no templates (422), a non-admin caller (403)", async () => {
  const { source, target, published } = await setup();
  const stranger = await buildClient(server);
  const foreign = await publishedTemplate(server, stranger, { sections: [] }, 'Foreign');
  const before = await footprint(target.id);
  for (const [token, body, status] of [
    [source.owner.token, { templateIds: [foreign.templateId], targetClientId: target.id }, 404],
    [source.owner.token, { templateIds: [published.templateId], targetClientId: source.id }, 422],
    [source.owner.token, { templateIds: [], targetClientId: target.id }, 422],
    [
      (await buildUser(server, source, { roles: ['author'] })).token!,
      { templateIds: [published.templateId], targetClientId: target.id },
      403,
    ],
  ] as const) {
    const res = await postWithProof(token, target.owner.token, body);
    assert.is(res.status, status, `${JSON.stringify(body)}: ${res.text}`);
  }
  assert.equal(await footprint(target.id), before, 'nothing copied');
});

copy(
  "a system administrator copies between any two clients naming the source; the copies belong to the target's Security Administrator",
  async () => {
    const { source, published } = await setup();
    const target = await buildClient(server);
    const token = await adminToken(server);
    const missing = await post(token, { templateIds: [published.templateId], targetClientId: target.id });
    assert.is(missing.status, 422, missing.text);
    const res = await post(token, { templateIds: [published.templateId], targetClientId: target.id, sourceClientId: source.id });
    assert.is(res.status, 201, res.text);
    const copied = await gql(server, target.owner.token, 'query($id: ID!) { template(id: $id) { title owner { id: databaseId } } }', {
      id: templateGid(res.body.data.templates[0].templateId),
    });
    assert.equal(copied.data.template, { title: 'Gearbox check', owner: { id: target.owner.id } });
    const out = (await auditOf(source.id, published.templateId)).find((e) => e.action === 'template.copied_out')!;
    assert.match(out.actor, /^admin:\d+ admin$/);
    const created = (await auditOf(target.id, res.body.data.templates[0].templateId)).find((e) => e.action === 'template.created')!;
    assert.match(JSON.parse(created.after!).copiedBy, /^admin:\d+ admin$/);
    assert.is(
      (await post(token, { templateIds: [published.templateId], targetClientId: target.id, sourceClientId: target.id })).status,
      422,
    );
    assert.is((await post(token, { templateIds: [published.templateId], targetClientId: 999_999, sourceClientId: source.id })).status, 404);
  },
);

copy.run();
