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

async function organization(client: BuiltClient, name: string): Promise<number> {
  return ok(await gql(server, client.owner.token, `mutation ($name: String!) { createOrganization(input: { name: $name }) { id } }`, { name })).createOrganization.id;
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
  ok(await gql(server, token, `{ templates(first: 200) { edges { node { title organizations { id name } } } } }`)).templates.edges.map((e: any) => e.node.title).sort();

visibility('where the client has organizations, a user sees templates of their organizations and those of none; admins see all', async () => {
  const client = await buildClient(server, { seats: { full: 10, connect: 5 } });
  const north = await organization(client, 'North');
  const south = await organization(client, 'South');
  const author = await memberOf(client, ['author'], [north, south]);
  const northern = await memberOf(client, ['operator'], [north]);
  const nowhere = await memberOf(client, ['viewer'], []);
  const n = await createTemplate(server, author, { title: 'N', organizationIds: [north] });
  const s = await createTemplate(server, author, { title: 'S', organizationIds: [south] });
  await createTemplate(server, author, { title: 'All' });
  assert.equal(await listTitles(northern), ['All', 'N']);
  assert.equal(await listTitles(nowhere), ['All']);
  assert.equal(await listTitles(client.owner.token), ['All', 'N', 'S']);
  const orgs = ok(await gql(server, northern, `query ($id: Int!) { template(id: $id) { organizations { id name } } }`, { id: n.id })).template.organizations;
  assert.equal(orgs, [{ id: north, name: 'North' }]);
  // a template out of sight is not found, by id and through its versions
  const hidden = await gql(server, northern, `query ($id: Int!) { template(id: $id) { id } }`, { id: s.id });
  assert.equal(hidden.codes, ['NOT_FOUND']);
  assert.equal(hidden.data, { template: null });
  const hiddenVersion = await gql(server, northern, `query ($id: Int!) { templateVersion(id: $id) { id } }`, { id: s.latestVersion.id });
  assert.equal(hiddenVersion.codes, ['NOT_FOUND']);
  // moving the template to the user's organization shows it
  ok(await gql(server, author, `mutation ($id: Int!, $orgs: [Int!]) { updateTemplate(id: $id, input: { organizationIds: $orgs }) { id } }`, { id: s.id, orgs: [north] }));
  assert.equal(await listTitles(northern), ['All', 'N', 'S']);
});

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
  const foreignClass = ok(await gql(server, theirs.owner.token, `mutation { createAssetClass(input: { name: "Pumps" }) { id } }`)).createAssetClass.id;
  const create = (input: Record<string, unknown>) =>
    gql(server, mine.owner.token, `mutation ($input: CreateTemplateInput!) { createTemplate(input: $input) { id } }`, { input: { title: 'x', ...input } });
  const org = await create({ organizationIds: [foreignOrg] });
  assert.equal(org.codes, ['VALIDATION_ERROR']);
  assert.is(org.errors![0]!.extensions!.details.fields[0].path, 'input.organizationIds');
  assert.equal((await create({ assetClassId: foreignClass })).codes, ['VALIDATION_ERROR']);
  const ownClass = ok(await gql(server, mine.owner.token, `mutation { createAssetClass(input: { name: "Valves" }) { id } }`)).createAssetClass.id;
  const made = ok(
    await gql(server, mine.owner.token, `mutation ($c: Int) { createTemplate(input: { title: "v", assetClassId: $c }) { assetClass { id name } } }`, { c: ownClass }),
  );
  assert.equal(made.createTemplate.assetClass, { id: ownClass, name: 'Valves' });
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
    [`query ($id: Int!) { template(id: $id) { id title } }`, { id: tid }],
    [`query ($id: Int!) { templateVersion(id: $id) { id content { sections { id } } } }`, { id: vid }],
  ] as const) {
    const result = await gql(server, token, query, vars);
    assert.equal(result.codes, ['NOT_FOUND'], query);
    assert.equal(Object.values(result.data), [null]);
  }
  const diff = await gql(server, token, `query ($id: Int!) { versionDiff(fromVersionId: $id, toVersionId: $id) { added { id } } }`, { id: vid });
  assert.equal(diff.codes, ['NOT_FOUND']);
  assert.equal(ok(await gql(server, token, `{ templates { edges { node { id } } } }`)).templates.edges, []);
  const mutations: [string, Record<string, unknown>][] = [
    [`mutation ($id: Int!) { updateTemplate(id: $id, input: { title: "mine" }) { id } }`, { id: tid }],
    [`mutation ($id: Int!) { createDraft(templateId: $id) { id } }`, { id: tid }],
    [`mutation ($id: Int!) { updateDraft(versionId: $id, content: { sections: [] }) { id } }`, { id: vid }],
    [`mutation ($id: Int!) { submitVersion(versionId: $id) { id } }`, { id: vid }],
    [`mutation ($id: Int!) { rejectVersion(versionId: $id, reason: "no") { id } }`, { id: vid }],
    [`mutation ($id: Int!) { approveVersion(versionId: $id, password: "${PASSWORD}") { id } }`, { id: vid }],
    [`mutation ($id: Int!) { publishVersion(versionId: $id, password: "${PASSWORD}") { id } }`, { id: vid }],
    [`mutation ($id: Int!) { retireVersion(versionId: $id) { id } }`, { id: vid }],
  ];
  for (const [mutation, vars] of mutations) {
    const result = await gql(server, token, mutation, vars);
    assert.equal(result.codes, ['NOT_FOUND'], mutation);
    assert.is(result.data, null);
  }
  // and A's template is untouched
  const still = ok(await gql(server, teamA.author.token, `query ($id: Int!) { template(id: $id) { title versions { state } } }`, { id: tid })).template;
  assert.equal(still, { title: 'Secret', versions: [{ state: 'APPROVED' }] });
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
  assert.equal(first.edges.map((e: any) => e.node.title), ['A', 'B']);
  assert.is(first.pageInfo.hasNextPage, true);
  const second = ok(await gql(server, team.author.token, PAGE, { first: 2, after: first.pageInfo.endCursor })).templates;
  assert.equal(second.edges.map((e: any) => e.node.title), ['C']);
  assert.is(second.pageInfo.hasNextPage, false);
  assert.equal((await gql(server, team.author.token, PAGE, { first: 201 })).codes, ['VALIDATION_ERROR']);
});

listing('filters by search text, tag and version state', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  await createTemplate(server, team.author.token, { title: 'Pump 100%', tags: ['pump', 'quarterly'] });
  const valve = await createTemplate(server, team.author.token, { title: 'Valve check', description: 'Inspect the PUMP valve', tags: ['valve'] });
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
