import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { verifyAuditChain } from '#repos/audit';

let server: TestServer;
const catalogue = suite('GraphQL catalogue: organizations, asset classes, locations, assets, sensors');
catalogue.before(async () => {
  server = await startTestServer();
});
catalogue.after(async () => server.stop());

const CREATE_ASSET = /* GraphQL */ `
  mutation ($input: CreateAssetInput!) {
    createAsset(input: $input) {
      asset {
        id
        name
        serialNumber
        anchorId
        createdAt
        location {
          id
          name
        }
        assetClass {
          id
          name
          description
        }
      }
    }
  }
`;

/** createAsset → asset: the payload's field */
const entityOf = (mutation: string) =>
  mutation.slice('create'.length, 'create'.length + 1).toLowerCase() + mutation.slice('create'.length + 1);

async function create(token: string, mutation: string, input: Record<string, unknown>) {
  const typeName = `C${mutation.slice(1)}`;
  const result = await gql(
    server,
    token,
    `mutation ($input: ${typeName}Input!) { ${mutation}(input: $input) { ${entityOf(mutation)} { id name } } }`,
    { input },
  );
  assert.equal(result.errors, undefined, JSON.stringify(result.body));
  return result.data[mutation][entityOf(mutation)] as { id: string; name: string };
}

catalogue('an admin builds asset classes, locations and an asset; the asset resolves its location and class', async () => {
  const client = await buildClient(server);
  const token = client.owner.token;
  const pumpClass = await gql(
    server,
    token,
    'mutation { createAssetClass(input: {name: "Pump", description: "Centrifugal"}) { assetClass { id name description } } }',
  );
  assert.equal(pumpClass.data.createAssetClass.assetClass.description, 'Centrifugal');
  const hall = await create(token, 'createLocation', { name: 'Hall 1' });
  const bay = await gql(
    server,
    token,
    'mutation ($p: ID) { createLocation(input: {name: "Bay 3", parentId: $p}) { location { id parent { id name } } } }',
    { p: hall.id },
  );
  assert.equal(bay.data.createLocation.location.parent, { id: hall.id, name: 'Hall 1' });
  const asset = await gql(server, token, CREATE_ASSET, {
    input: {
      name: 'P-101',
      serialNumber: 'SN-9',
      locationId: bay.data.createLocation.location.id,
      assetClassId: pumpClass.data.createAssetClass.assetClass.id,
      anchorId: 'anchor-7',
    },
  });
  assert.equal(asset.errors, undefined, JSON.stringify(asset.body));
  const created = asset.data.createAsset.asset;
  assert.is(created.serialNumber, 'SN-9');
  assert.is(created.anchorId, 'anchor-7');
  assert.is(created.location.name, 'Bay 3');
  assert.is(created.assetClass.name, 'Pump');

  const list = await gql(
    server,
    token,
    '{ assets { nodes { id name location { name } assetClass { name } } } assetClasses { nodes { name } } locations { nodes { name parent { name } } } }',
  );
  assert.equal(list.data.assets.nodes, [{ id: created.id, name: 'P-101', location: { name: 'Bay 3' }, assetClass: { name: 'Pump' } }]);
  assert.equal(list.data.assetClasses.nodes, [{ name: 'Pump' }]);
  // in id (creation) order
  assert.equal(list.data.locations.nodes, [
    { name: 'Hall 1', parent: null },
    { name: 'Bay 3', parent: { name: 'Hall 1' } },
  ]);
});

catalogue('organizations form an optional tree', async () => {
  const client = await buildClient(server);
  const plant = await create(client.owner.token, 'createOrganization', { name: 'Plant' });
  const line = await gql(
    server,
    client.owner.token,
    'mutation ($p: ID) { createOrganization(input: {name: "Line A", parentId: $p}) { organization { id parent { id name } } } }',
    {
      p: plant.id,
    },
  );
  assert.equal(line.data.createOrganization.organization.parent, { id: plant.id, name: 'Plant' });
  const list = await gql(server, client.owner.token, '{ organizations { nodes { name parent { name } } } }');
  assert.equal(list.data.organizations.nodes, [
    { name: 'Plant', parent: null },
    { name: 'Line A', parent: { name: 'Plant' } },
  ]);
});

catalogue('createSensor(input: {name, unit, kind}) defines a sensor listed by sensors', async () => {
  const client = await buildClient(server);
  const result = await gql(
    server,
    client.owner.token,
    'mutation { createSensor(input: {name: "T1", unit: "°C", kind: "temperature"}) { sensor { id databaseId name unit kind latestReading { value } } } }',
  );
  assert.equal(result.errors, undefined, JSON.stringify(result.body));
  const sensor = result.data.createSensor.sensor;
  assert.is(sensor.id, `Sensor:${sensor.databaseId}`);
  assert.equal(
    { ...sensor, id: 0, databaseId: 0 },
    { id: 0, databaseId: 0, name: 'T1', unit: '°C', kind: 'temperature', latestReading: null },
  );
  const bare = await gql(server, client.owner.token, 'mutation { createSensor(input: {name: "Counter"}) { sensor { unit kind } } }');
  assert.equal(bare.data.createSensor.sensor, { unit: '', kind: '' });
  const list = await gql(server, client.owner.token, '{ sensors { nodes { name } totalCount } }');
  assert.equal(list.data.sensors, { nodes: [{ name: 'T1' }, { name: 'Counter' }], totalCount: 2 });
});

catalogue('authors manage the catalogue; operators, approvers and viewers are FORBIDDEN but read it', async () => {
  const client = await buildClient(server);
  const author = await buildUser(server, client, { roles: ['author'] });
  await create(author.token!, 'createAssetClass', { name: 'Valve' });
  for (const roles of [['operator'], ['approver'], ['publisher'], ['viewer'], ['user_admin']]) {
    const user = await buildUser(server, client, {
      roles,
      licenseType: roles[0] === 'operator' || roles[0] === 'viewer' ? 'connect' : 'full',
    });
    for (const mutation of ['createOrganization', 'createAsset', 'createAssetClass', 'createLocation', 'createSensor']) {
      const typeName = `C${mutation.slice(1)}`;
      const result = await gql(
        server,
        user.token,
        `mutation ($input: ${typeName}Input!) { ${mutation}(input: $input) { ${entityOf(mutation)} { id } } }`,
        { input: { name: 'x' } },
      );
      assert.equal(result.codes, ['FORBIDDEN'], `${roles} ${mutation}`);
    }
    const read = await gql(
      server,
      user.token,
      '{ assetClasses { nodes { name } } assets { nodes { id } } sensors { nodes { id } } organizations { nodes { id } } locations { nodes { id } } }',
    );
    assert.equal(read.data.assetClasses.nodes, [{ name: 'Valve' }]);
  }
});

catalogue('an empty or oversize name is a VALIDATION_ERROR naming the field', async () => {
  const client = await buildClient(server);
  const empty = await gql(server, client.owner.token, 'mutation { createAsset(input: {name: "  "}) { asset { id } } }');
  assert.equal(empty.codes, ['VALIDATION_ERROR']);
  assert.is(empty.errors![0].extensions!.details.fields[0].path, 'input.name');
  const long = await gql(server, client.owner.token, 'mutation ($n: String!) { createSensor(input: {name: $n}) { sensor { id } } }', {
    n: 'x'.repeat(201),
  });
  assert.equal(long.codes, ['VALIDATION_ERROR']);
});

catalogue("tenant isolation: another client's ids are NOT_FOUND and its rows are never listed", async () => {
  const a = await buildClient(server);
  const b = await buildClient(server);
  const bLocation = await create(b.owner.token, 'createLocation', { name: 'B hall' });
  const bClass = await create(b.owner.token, 'createAssetClass', { name: 'B class' });
  const bOrg = await create(b.owner.token, 'createOrganization', { name: 'B org' });
  await create(b.owner.token, 'createAsset', { name: 'B asset' });
  await create(b.owner.token, 'createSensor', { name: 'B sensor' });

  for (const [mutation, input] of [
    ['createAsset', { name: 'A', locationId: bLocation.id }],
    ['createAsset', { name: 'A', assetClassId: bClass.id }],
    ['createLocation', { name: 'A', parentId: bLocation.id }],
    ['createOrganization', { name: 'A', parentId: bOrg.id }],
  ] as const) {
    const typeName = `C${mutation.slice(1)}`;
    const result = await gql(
      server,
      a.owner.token,
      `mutation ($input: ${typeName}Input!) { ${mutation}(input: $input) { ${entityOf(mutation)} { id } } }`,
      { input },
    );
    assert.equal(result.codes, ['NOT_FOUND'], `${mutation} ${JSON.stringify(input)}`);
    assert.is(result.data, null);
  }
  const list = await gql(
    server,
    a.owner.token,
    '{ assets { nodes { id } } sensors { nodes { id } } organizations { nodes { id } } locations { nodes { id } } assetClasses { nodes { id } } }',
  );
  const none = { nodes: [] };
  assert.equal(list.data, { assets: none, sensors: none, organizations: none, locations: none, assetClasses: none });
  // and node(id) on B's rows: null with NOT_FOUND, as REST's 404
  for (const id of [bLocation.id, bClass.id, bOrg.id]) {
    const read = await gql(server, a.owner.token, 'query ($id: ID!) { node(id: $id) { id } }', { id });
    assert.equal([read.codes, read.data], [['NOT_FOUND'], { node: null }], id);
  }
});

catalogue('every creation appends an entry to the client’s audit chain', async () => {
  const client = await buildClient(server);
  await create(client.owner.token, 'createAssetClass', { name: 'C' });
  await create(client.owner.token, 'createSensor', { name: 'S' });
  const rows = await server.deps.db.kysely
    .selectFrom('audit_entries')
    .selectAll()
    .where('client_id', '=', client.id)
    .orderBy('seq')
    .execute();
  assert.equal(
    rows.map((r) => [r.action, r.actor_user_id]),
    [
      ['asset_class.created', client.owner.id],
      ['sensor.created', client.owner.id],
    ],
  );
  assert.is(JSON.parse(rows[1].after!).name, 'S');
  assert.is((await verifyAuditChain(server.deps.db.kysely, client.id)).broken, null);
});

catalogue.run();
