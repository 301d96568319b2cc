import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser, PASSWORD, signIn } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { publishedTemplate, DOMAIN_TEST_ENV } from '../helpers/domain';

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

copy(
  'an admin of both clients copies templates: new ids, one DRAFT each, sensors matched in the target, the source untouched',
  async () => {
    const { source, target, sensorId, published, draftId } = await setup();
    const res = await post(source.owner.token, { templateIds: [published.templateId, draftId], targetClientId: target.id });
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
  },
);

copy(
  "refused without admin in the target (403), for another client's template (404), for the same client (422), for a non-admin (403)",
  async () => {
    const { source, target, published } = await setup();
    const stranger = await buildClient(server);
    // same email in the target, but not an admin there
    const author = await buildUser(server, source, { roles: ['admin'] });
    await buildUser(server, target, { roles: ['author'], email: author.email });
    const authorToken = await signIn(server, author.email, PASSWORD, source.id);
    const before = await gql(server, target.owner.token, '{ templates { totalCount nodes { id } } }');
    for (const [token, body, status] of [
      [authorToken, { templateIds: [published.templateId], targetClientId: target.id }, 403],
      [source.owner.token, { templateIds: [published.templateId], targetClientId: stranger.id }, 403],
      [source.owner.token, { templateIds: [published.templateId], targetClientId: 999_999 }, 403],
      [stranger.owner.token, { templateIds: [published.templateId], targetClientId: target.id }, 403],
      [source.owner.token, { templateIds: [published.templateId], targetClientId: source.id }, 422],
      [source.owner.token, { templateIds: [], targetClientId: target.id }, 422],
      [
        (await buildUser(server, source, { roles: ['author'] })).token!,
        { templateIds: [published.templateId], targetClientId: target.id },
        403,
      ],
    ] as const) {
      const res = await post(token, body);
      assert.is(res.status, status, `${JSON.stringify(body)}: ${res.text}`);
    }
    const strangerOwnerInTarget = await buildClient(server, { ownerEmail: source.owner.email });
    const foreign = await publishedTemplate(server, stranger, { sections: [] }, 'Foreign');
    assert.is(
      (await post(source.owner.token, { templateIds: [foreign.templateId], targetClientId: strangerOwnerInTarget.id })).status,
      404,
    );
    const after = await gql(server, target.owner.token, '{ templates { totalCount nodes { id } } }');
    assert.equal(after.data, before.data, 'nothing copied');
  },
);

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
    assert.is(
      (await post(token, { templateIds: [published.templateId], targetClientId: target.id, sourceClientId: target.id })).status,
      422,
    );
    assert.is((await post(token, { templateIds: [published.templateId], targetClientId: 999_999, sourceClientId: source.id })).status, 404);
  },
);

copy.run();
