import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser, PASSWORD, signIn, uniqueEmail, type BuiltClient } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { advance, buildTeam, createTemplate, ok } from '../helpers/templates';

let server: TestServer;
const visibility = suite('GraphQL templates: organization visibility');
visibility.before(async () => {
  server = await startTestServer({ env: { WIP_SIGN_IN_RATE_LIMIT_MAX: '1000' } });
});
visibility.after(async () => server.stop());

/** An organization: its global id (GraphQL's) and database id (REST's availableToOrg). */
async function organization(client: BuiltClient, name: string): Promise<{ id: string; databaseId: number }> {
  return ok(
    await gql(
      server,
      client.owner.token,
      `mutation ($name: String!) { createOrganization(input: { name: $name }) { organization { id databaseId } } }`,
      { name },
    ),
  ).createOrganization.organization;
}

/** A user of the client available to the given organizations. */
async function memberOf(client: BuiltClient, roles: string[], availableToOrg: number[]): Promise<string> {
  const email = uniqueEmail('member');
  const res = await server.request('POST', '/api/admin/user', {
    token: client.owner.token,
    body: { email, roles, licenseType: 'full', password: PASSWORD, availableToOrg },
  });
  assert.is(res.status, 201, res.text);
  return signIn(server, email, PASSWORD, client.id);
}

const listTitles = async (token: string) =>
  ok(await gql(server, token, `{ templates(first: 200) { edges { node { title organizations { id name } } } } }`))
    .templates.edges.map((e: any) => e.node.title)
    .sort();

visibility(
  'where the client has organizations, a user sees templates of their organizations and those of none; admins see all',
  async () => {
    const client = await buildClient(server, { seats: { full: 10, connect: 5 } });
    const north = await organization(client, 'North');
    const south = await organization(client, 'South');
    const author = await memberOf(client, ['author'], [north.databaseId, south.databaseId]);
    const northern = await memberOf(client, ['operator'], [north.databaseId]);
    const nowhere = await memberOf(client, ['viewer'], []);
    const n = await createTemplate(server, author, { title: 'N', organizationIds: [north.id] });
    const s = await createTemplate(server, author, { title: 'S', organizationIds: [south.id] });
    await createTemplate(server, author, { title: 'All' });
    assert.equal(await listTitles(northern), ['All', 'N']);
    assert.equal(await listTitles(nowhere), ['All']);
    assert.equal(await listTitles(client.owner.token), ['All', 'N', 'S']);
    const orgs = ok(await gql(server, northern, `query ($id: ID!) { template(id: $id) { organizations { id name } } }`, { id: n.id }))
      .template.organizations;
    assert.equal(orgs, [{ id: north.id, name: 'North' }]);
    // a template out of sight is not found, by id and through its versions
    const hidden = await gql(server, northern, `query ($id: ID!) { template(id: $id) { id } }`, { id: s.id });
    assert.equal(hidden.codes, ['NOT_FOUND']);
    assert.equal(hidden.data, { template: null });
    const hiddenVersion = await gql(server, northern, `query ($id: ID!) { templateVersion(id: $id) { id } }`, { id: s.latestVersion.id });
    assert.equal(hiddenVersion.codes, ['NOT_FOUND']);
    // moving the template to the user's organization shows it
    ok(
      await gql(
        server,
        author,
        `mutation ($id: ID!, $orgs: [ID!]) { updateTemplate(input: { templateId: $id, organizationIds: $orgs }) { template { id } } }`,
        { id: s.id, orgs: [north.id] },
      ),
    );
    assert.equal(await listTitles(northern), ['All', 'N', 'S']);
  },
);

visibility('where the client has no organizations, everyone sees every template', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  const viewer = await buildUser(server, client, { roles: ['viewer'] });
  await createTemplate(server, team.author.token, { title: 'One' });
  await createTemplate(server, team.author.token, { title: 'Two' });
  assert.equal(await listTitles(viewer.token!), ['One', 'Two']);
});

visibility('organizations and asset classes of another client are refused → VALIDATION_ERROR', async () => {
  const mine = await buildClient(server);
  const theirs = await buildClient(server);
  const foreignOrg = await organization(theirs, 'Elsewhere');
  const foreignClass = ok(
    await gql(server, theirs.owner.token, `mutation { createAssetClass(input: { name: "Pumps" }) { assetClass { id } } }`),
  ).createAssetClass.assetClass.id;
  const create = (input: Record<string, unknown>) =>
    gql(server, mine.owner.token, `mutation ($input: CreateTemplateInput!) { createTemplate(input: $input) { template { id } } }`, {
      input: { title: 'x', ...input },
    });
  const org = await create({ organizationIds: [foreignOrg.id] });
  assert.equal(org.codes, ['VALIDATION_ERROR']);
  assert.is(org.errors![0].extensions!.details.fields[0].path, 'input.organizationIds');
  assert.equal((await create({ assetClassId: foreignClass })).codes, ['VALIDATION_ERROR']);
  const ownClass = ok(await gql(server, mine.owner.token, `mutation { createAssetClass(input: { name: "Valves" }) { assetClass { id } } }`))
    .createAssetClass.assetClass.id;
  const made = ok(
    await gql(
      server,
      mine.owner.token,
      `mutation ($c: ID) { createTemplate(input: { title: "v", assetClassId: $c }) { template { assetClass { id name } } } }`,
      { c: ownClass },
    ),
  );
  assert.equal(made.createTemplate.template.assetClass, { id: ownClass, name: 'Valves' });
});

const isolation = suite('GraphQL templates: tenant isolation');
isolation.before(async () => {
  server = await startTestServer({ env: { WIP_SIGN_IN_RATE_LIMIT_MAX: '1000' } });
});
isolation.after(async () => server.stop());

isolation("another client's template and version ids: queries → null + NOT_FOUND, every mutation → NOT_FOUND", async () => {
  const a = await buildClient(server);
  const teamA = await buildTeam(server, a);
  const published = await createTemplate(server, teamA.author.token, { title: 'Secret' });
  await advance(server, teamA, published.latestVersion.id, 'APPROVED');
  const b = await buildClient(server);
  const token = b.owner.token; // an admin of client B: every role, still nothing of A
  const tid = published.id;
  const vid = published.latestVersion.id;
  for (const [query, vars] of [
    [`query ($id: ID!) { template(id: $id) { id title } }`, { id: tid }],
    [`query ($id: ID!) { templateVersion(id: $id) { id content { sections { id steps { id } } } } }`, { id: vid }],
  ] as const) {
    const result = await gql(server, token, query, vars);
    assert.equal(result.codes, ['NOT_FOUND'], query);
    assert.equal(Object.values(result.data), [null]);
  }
  const diff = await gql(server, token, `query ($id: ID!) { versionDiff(fromVersionId: $id, toVersionId: $id) { added { stepId } } }`, {
    id: vid,
  });
  assert.equal(diff.codes, ['NOT_FOUND']);
  assert.equal(ok(await gql(server, token, `{ templates { edges { node { id } } } }`)).templates.edges, []);
  const mutations: [string, Record<string, unknown>][] = [
    [`mutation ($id: ID!) { updateTemplate(input: { templateId: $id, title: "mine" }) { template { id } } }`, { id: tid }],
    [`mutation ($id: ID!) { createDraft(input: { templateId: $id }) { version { id } } }`, { id: tid }],
    [`mutation ($id: ID!) { updateDraft(input: { versionId: $id, content: { sections: [] } }) { version { id } } }`, { id: vid }],
    [`mutation ($id: ID!) { submitVersion(input: { versionId: $id }) { version { id } } }`, { id: vid }],
    [`mutation ($id: ID!) { rejectVersion(input: { versionId: $id, reason: "no" }) { version { id } } }`, { id: vid }],
    [`mutation ($id: ID!) { approveVersion(input: { versionId: $id, password: "${PASSWORD}" }) { version { id } } }`, { id: vid }],
    [`mutation ($id: ID!) { publishVersion(input: { versionId: $id, password: "${PASSWORD}" }) { version { id } } }`, { id: vid }],
    [`mutation ($id: ID!) { retireVersion(input: { versionId: $id }) { version { id } } }`, { id: vid }],
  ];
  for (const [mutation, vars] of mutations) {
    const result = await gql(server, token, mutation, vars);
    assert.equal(result.codes, ['NOT_FOUND'], mutation);
    assert.is(result.data, null);
  }
  // and A's template is untouched
  const still = ok(
    await gql(server, teamA.author.token, `query ($id: ID!) { template(id: $id) { title versions { nodes { state } } } }`, { id: tid }),
  ).template;
  assert.equal(still, { title: 'Secret', versions: { nodes: [{ state: 'APPROVED' }] } });
});

const listing = suite('GraphQL templates(first, after, filter)');
listing.before(async () => {
  server = await startTestServer({ env: { WIP_SIGN_IN_RATE_LIMIT_MAX: '1000' } });
});
listing.after(async () => server.stop());

const PAGE = `query ($first: Int, $after: String, $filter: TemplateFilter) {
  templates(first: $first, after: $after, filter: $filter) { edges { cursor node { title } } pageInfo { hasNextPage endCursor } } }`;

listing('pages through the one keyset pagination; first is at most 200', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  for (const title of ['A', 'B', 'C']) await createTemplate(server, team.author.token, { title });
  const first = ok(await gql(server, team.author.token, PAGE, { first: 2 })).templates;
  assert.equal(
    first.edges.map((e: any) => e.node.title),
    ['A', 'B'],
  );
  assert.is(first.pageInfo.hasNextPage, true);
  const second = ok(await gql(server, team.author.token, PAGE, { first: 2, after: first.pageInfo.endCursor })).templates;
  assert.equal(
    second.edges.map((e: any) => e.node.title),
    ['C'],
  );
  assert.is(second.pageInfo.hasNextPage, false);
  assert.equal((await gql(server, team.author.token, PAGE, { first: 201 })).codes, ['VALIDATION_ERROR']);
});

const BOTH_WAYS = `query ($first: Int, $after: String, $last: Int, $before: String, $filter: TemplateFilter) {
  templates(first: $first, after: $after, last: $last, before: $before, filter: $filter) {
    nodes { title } totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;

listing('pages backward (last, before) as well as forward; pageInfo says both ways; totalCount counts every page', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  for (const title of ['A', 'B', 'C', 'D', 'E']) await createTemplate(server, team.author.token, { title });
  const page = async (vars: Record<string, unknown>) => ok(await gql(server, team.author.token, BOTH_WAYS, vars)).templates;
  const titles = (p: any) => p.nodes.map((n: any) => n.title);

  const newest = await page({ last: 2 });
  assert.equal(titles(newest), ['D', 'E']);
  assert.equal([newest.pageInfo.hasPreviousPage, newest.pageInfo.hasNextPage, newest.totalCount], [true, false, 5]);
  const before = await page({ last: 2, before: newest.pageInfo.startCursor });
  assert.equal(titles(before), ['B', 'C']);
  assert.equal([before.pageInfo.hasPreviousPage, before.pageInfo.hasNextPage], [true, true]);
  const oldest = await page({ last: 2, before: before.pageInfo.startCursor });
  assert.equal(titles(oldest), ['A']);
  assert.equal([oldest.pageInfo.hasPreviousPage, oldest.pageInfo.hasNextPage], [false, true]);
  // forward from the middle: the cursors are the same in both directions
  const forward = await page({ first: 2, after: oldest.pageInfo.endCursor });
  assert.equal(titles(forward), ['B', 'C']);
  assert.equal([forward.pageInfo.hasPreviousPage, forward.pageInfo.hasNextPage], [true, true]);
  assert.is(forward.pageInfo.startCursor, before.pageInfo.startCursor);
  // the count follows the filter; both directions at once, or a bad size, are refused
  assert.is((await page({ first: 1, filter: { search: 'C' } })).totalCount, 1);
  assert.equal((await gql(server, team.author.token, BOTH_WAYS, { first: 1, last: 1 })).codes, ['VALIDATION_ERROR']);
  assert.equal((await gql(server, team.author.token, BOTH_WAYS, { last: 201 })).codes, ['VALIDATION_ERROR']);
  assert.equal((await gql(server, team.author.token, BOTH_WAYS, { last: 1, before: 'not a cursor' })).codes, ['BAD_REQUEST']);
});

listing('filters by search text, tag and version state', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  await createTemplate(server, team.author.token, { title: 'Pump 100%', tags: ['pump', 'quarterly'] });
  const valve = await createTemplate(server, team.author.token, {
    title: 'Valve check',
    description: 'Inspect the PUMP valve',
    tags: ['valve'],
  });
  await createTemplate(server, team.author.token, { title: 'Belt', tags: ['pumps'] });
  await advance(server, team, valve.latestVersion.id, 'PUBLISHED');
  const titles = async (filter: Record<string, unknown>) =>
    ok(await gql(server, team.author.token, PAGE, { filter })).templates.edges.map((e: any) => e.node.title);
  assert.equal(await titles({ search: 'pump' }), ['Pump 100%', 'Valve check']);
  assert.equal(await titles({ search: '100%' }), ['Pump 100%']);
  assert.equal(await titles({ search: '_' }), []);
  assert.equal(await titles({ tag: 'pump' }), ['Pump 100%']);
  assert.equal(await titles({ state: 'PUBLISHED' }), ['Valve check']);
  assert.equal(await titles({ state: 'DRAFT' }), ['Pump 100%', 'Belt']);
});

visibility.run();
isolation.run();
listing.run();
