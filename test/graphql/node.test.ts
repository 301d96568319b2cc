import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient } from '../helpers/factories';
import { gid, gql } from '../helpers/graphql';
import { advance, buildTeam, CREATE_DRAFT, createTemplate, ok, UPDATE_DRAFT } from '../helpers/templates';
import { createJob, DOMAIN_TEST_ENV, publishedTemplate } from '../helpers/domain';

let server: TestServer;
const nodes = suite('GraphQL global ids: Node, node(id), nodes(ids), step and section ids per version');
nodes.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
nodes.after(async () => server.stop());

const NODE = `query ($id: ID!) { node(id: $id) { __typename id
  ... on Template { databaseId title }
  ... on TemplateVersion { databaseId number }
  ... on Job { databaseId title }
  ... on User { databaseId email }
  ... on Step { stepId title }
  ... on Section { sectionId title }
  ... on Tutorial { tutorialId } } }`;

nodes('every object id is a global id read back by node(id), with its integer as databaseId', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  const template = await createTemplate(server, team.author.token, { title: 'Global' });
  assert.is(template.id, `Template:${template.databaseId}`);
  assert.is(template.latestVersion.id, `TemplateVersion:${template.latestVersion.databaseId}`);
  const read = async (id: string) => ok(await gql(server, team.author.token, NODE, { id })).node;
  assert.equal(await read(template.id), { __typename: 'Template', id: template.id, databaseId: template.databaseId, title: 'Global' });
  assert.equal(await read(template.latestVersion.id), {
    __typename: 'TemplateVersion',
    id: template.latestVersion.id,
    databaseId: template.latestVersion.databaseId,
    number: 1,
  });
  assert.equal(await read(gid('User', team.author.id)), {
    __typename: 'User',
    id: gid('User', team.author.id),
    databaseId: team.author.id,
    email: (await me(team.author.token)).email,
  });
  assert.equal(await read('Tutorial:welcome'), { __typename: 'Tutorial', id: 'Tutorial:welcome', tutorialId: 'welcome' });
  const stepId = `Step:${template.latestVersion.databaseId}:isolate`;
  assert.equal(await read(stepId), { __typename: 'Step', id: stepId, stepId: 'isolate', title: 'Isolate the pump' });
  // nodes(ids): in the order given, each resolved as node(id) would
  const many = ok(
    await gql(server, team.author.token, 'query ($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }', { ids: [stepId, template.id] }),
  ).nodes;
  assert.equal(many, [
    { __typename: 'Step', id: stepId },
    { __typename: 'Template', id: template.id },
  ]);
});

async function me(token: string) {
  return ok(await gql(server, token, '{ me { email } }')).me as { email: string };
}

nodes("a step's and a section's id name that version's copy; stepId and sectionId are the keys every version keeps", async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  const template = await createTemplate(server, team.author.token, {
    content: { sections: [{ sectionId: 'prep', title: 'Prep', steps: [{ stepId: 'isolate', title: 'Isolate' }] }] },
  });
  await advance(server, team, template.latestVersion.id, 'IN_REVIEW');
  const v2 = ok(await gql(server, team.author.token, CREATE_DRAFT, { id: template.id })).createDraft.version;
  ok(
    await gql(server, team.author.token, UPDATE_DRAFT, {
      id: v2.id,
      content: { sections: [{ sectionId: 'prep', title: 'Prep', steps: [{ stepId: 'isolate', title: 'Isolate v2' }] }] },
    }),
  );
  const versions = ok(
    await gql(
      server,
      team.author.token,
      'query ($id: ID!) { template(id: $id) { versions { nodes { number content { sections { id sectionId steps { id stepId title } } } } } } }',
      { id: template.id },
    ),
  ).template.versions.nodes;
  const [one, two] = versions.map((v: any) => v.content.sections[0]);
  assert.equal([one.sectionId, two.sectionId], ['prep', 'prep']);
  assert.equal([one.steps[0].stepId, two.steps[0].stepId], ['isolate', 'isolate']);
  assert.is.not(one.id, two.id);
  assert.is.not(one.steps[0].id, two.steps[0].id);
  assert.equal([one.steps[0].title, two.steps[0].title], ['Isolate', 'Isolate v2']);
  const section = ok(await gql(server, team.author.token, NODE, { id: two.id })).node;
  assert.equal(section, { __typename: 'Section', id: two.id, sectionId: 'prep', title: 'Prep' });
});

nodes("another client's ids, and a template out of sight: null with NOT_FOUND, as REST answers 404", async () => {
  const a = await buildClient(server);
  const b = await buildClient(server);
  const { templateId, versionId } = await publishedTemplate(server, a);
  const job = await createJob(server, a.owner.token, { templateId });
  for (const id of [
    gid('Template', templateId),
    gid('TemplateVersion', versionId),
    gid('Job', job.id),
    gid('User', a.owner.id),
    `Step:${versionId}:measure`,
    `Section:${versionId}:prep`,
  ]) {
    const result = await gql(server, b.owner.token, NODE, { id });
    assert.equal(result.codes, ['NOT_FOUND'], id);
    assert.equal(result.data, { node: null }, id);
    assert.is(JSON.stringify(result.body).includes('Pump inspection'), false);
  }
  const mixed = await gql(server, b.owner.token, 'query ($ids: [ID!]!) { nodes(ids: $ids) { id } }', {
    ids: [gid('User', b.owner.id), gid('Job', job.id)],
  });
  assert.equal(mixed.data, { nodes: [{ id: gid('User', b.owner.id) }, null] });
  assert.equal(mixed.codes, ['NOT_FOUND']);
  assert.equal(mixed.errors![0].path, ['nodes', 1]);
  // the REST door answers the same ids 404
  const rest = await server.request('GET', `/api/client/get-as-pdf/getTemplateAsPdf/${templateId}`, { token: b.owner.token });
  assert.is(rest.status, 404);
});

nodes('nodes(ids): one entry per id, in order, on every run of the same text (compiled too); a bad id errs at its index', async () => {
  const a = await buildClient(server);
  const b = await buildClient(server);
  const { templateId: theirs } = await publishedTemplate(server, a);
  const theirJob = await createJob(server, a.owner.token, { templateId: theirs });
  const { templateId, versionId } = await publishedTemplate(server, b);
  const job = await createJob(server, b.owner.token, { templateId });
  const ids = [
    gid('User', b.owner.id),
    gid('Template', templateId),
    gid('Job', theirJob.id),
    gid('TemplateVersion', versionId),
    gid('Job', job.id),
    gid('Job', theirJob.id),
    `Step:${versionId}:measure`,
  ];
  const expected = [
    { __typename: 'User', id: ids[0] },
    { __typename: 'Template', id: ids[1] },
    null,
    { __typename: 'TemplateVersion', id: ids[3] },
    { __typename: 'Job', id: ids[4] },
    null,
    { __typename: 'Step', id: ids[6] },
  ];
  const QUERY = 'query ($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }';
  // the first run is interpreted, the later ones run the compiled operation (src/graphql/handler.ts); each order of
  // the ids settles its reads in another order
  for (let run = 1; run <= 2 * ids.length; run++) {
    const shift = run % ids.length;
    const order = [...ids.slice(shift), ...ids.slice(0, shift)];
    const wanted = [...expected.slice(shift), ...expected.slice(0, shift)];
    const result = await gql(server, b.owner.token, QUERY, { ids: order });
    assert.equal(result.data, { nodes: wanted }, `run ${run}`);
    assert.equal(result.codes, ['NOT_FOUND', 'NOT_FOUND'], `run ${run}`);
    assert.equal(
      result.errors!.map((e) => e.path![1]).sort(),
      wanted.flatMap((node, i) => (node === null ? [i] : [])),
      `run ${run}`,
    );
  }
  // one malformed id is an error at its index: the others are still answered
  const BAD = 'query ($ids: [ID!]!) { nodes(ids: $ids) { id } }';
  for (let run = 1; run <= 3; run++) {
    const result = await gql(server, b.owner.token, BAD, { ids: [gid('User', b.owner.id), 'Banana:1', gid('Job', job.id)] });
    assert.equal(result.data, { nodes: [{ id: gid('User', b.owner.id) }, null, { id: gid('Job', job.id) }] }, `run ${run}`);
    assert.equal(result.codes, ['VALIDATION_ERROR'], `run ${run}`);
    assert.equal(result.errors![0].path, ['nodes', 1], `run ${run}`);
    assert.is(result.errors![0].extensions!.details.fields[0].path, 'ids.1', `run ${run}`);
  }
});

nodes('a malformed id, or an id of the wrong type, is VALIDATION_ERROR naming the argument — never a 500', async () => {
  const client = await buildClient(server);
  const token = client.owner.token;
  for (const id of [
    '',
    'nope',
    'Template:',
    'Template:0',
    'Template:1.5',
    'Template:-1',
    'Template:99999999999999999',
    'Banana:1',
    'Step:1',
    'Step:x:y',
    'Tutorial:a b',
    'x'.repeat(300),
  ]) {
    const result = await gql(server, token, NODE, { id });
    assert.is(result.status, 200, id);
    assert.equal(result.codes, ['VALIDATION_ERROR'], id);
    assert.is(result.errors![0].extensions!.details.fields[0].path, 'id', id);
  }
  const wrongType = await gql(server, token, 'query ($id: ID!) { template(id: $id) { id } }', { id: gid('Job', 1) });
  assert.equal(wrongType.codes, ['VALIDATION_ERROR']);
  assert.is(wrongType.errors![0].extensions!.details.fields[0].path, 'id');
  const inInput = await gql(
    server,
    token,
    'mutation { createJob(input: { templateId: "Template:1", title: "x", assigneeIds: ["User:1", "Asset:2"] }) { job { id } } }',
  );
  assert.equal(inInput.codes, ['VALIDATION_ERROR']);
  assert.is(inInput.errors![0].extensions!.details.fields[0].path, 'input.assigneeIds.1');
  const tooMany = await gql(server, token, 'query ($ids: [ID!]!) { nodes(ids: $ids) { id } }', {
    ids: Array.from({ length: 101 }, (_, i) => gid('User', i + 1)),
  });
  assert.equal(tooMany.codes, ['VALIDATION_ERROR']);
});

nodes('lists that grow are connections: faults page both ways, last: n is the newest n, and totalCount counts them all', async () => {
  const client = await buildClient(server);
  const { templateId } = await publishedTemplate(server, client);
  const job = await createJob(server, client.owner.token, { templateId });
  for (let i = 1; i <= 5; i++) {
    ok(
      await gql(server, client.owner.token, 'mutation ($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { id } } }', {
        i: { jobId: gid('Job', job.id), description: `F${i}`, severity: 'LOW' },
      }),
    );
  }
  const FAULTS = `query ($j: ID!, $first: Int, $after: String, $last: Int, $before: String) {
    faults(jobId: $j, first: $first, after: $after, last: $last, before: $before) { nodes { description } totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }
    job(id: $j) { faults(last: 2) { nodes { description } totalCount pageInfo { hasNextPage hasPreviousPage } } } }`;
  const read = async (vars: Record<string, unknown>) =>
    ok(await gql(server, client.owner.token, FAULTS, { j: gid('Job', job.id), ...vars }));
  const newest = await read({ last: 2 });
  assert.equal(
    newest.faults.nodes.map((f: any) => f.description),
    ['F4', 'F5'],
  );
  assert.equal([newest.faults.totalCount, newest.faults.pageInfo.hasPreviousPage, newest.faults.pageInfo.hasNextPage], [5, true, false]);
  // Job.faults is paged in memory the same way
  assert.equal(newest.job.faults, {
    nodes: [{ description: 'F4' }, { description: 'F5' }],
    totalCount: 5,
    pageInfo: { hasNextPage: false, hasPreviousPage: true },
  });
  const older = await read({ last: 2, before: newest.faults.pageInfo.startCursor });
  assert.equal(
    older.faults.nodes.map((f: any) => f.description),
    ['F2', 'F3'],
  );
  const first = await read({ first: 3 });
  assert.equal(
    first.faults.nodes.map((f: any) => f.description),
    ['F1', 'F2', 'F3'],
  );
  assert.equal([first.faults.pageInfo.hasPreviousPage, first.faults.pageInfo.hasNextPage], [false, true]);
  // more than 500: nothing is silently cut any more — the count says how many, the pages reach them all
  assert.is((await gql(server, client.owner.token, '{ faults(first: 1) { totalCount } }')).data.faults.totalCount, 5);
});

nodes('the jobs connection pages backward in its compiled page read too, and counts through its filter', async () => {
  const client = await buildClient(server);
  const { templateId } = await publishedTemplate(server, client);
  for (const priority of ['HIGH', 'LOW', 'HIGH', 'LOW', 'HIGH'])
    await createJob(server, client.owner.token, { templateId, title: `${priority} job`, priority });
  const JOBS = `query ($last: Int, $before: String, $filter: JobFilter) {
    jobs(last: $last, before: $before, filter: $filter) { nodes { id: databaseId priority template { title } } totalCount pageInfo { hasPreviousPage hasNextPage startCursor } } }`;
  const read = async (vars: Record<string, unknown>) => ok(await gql(server, client.owner.token, JOBS, vars)).jobs;
  const all = (await read({ last: 5 })).nodes.map((j: any) => j.id);
  const newest = await read({ last: 2 });
  assert.equal(
    newest.nodes.map((j: any) => j.id),
    all.slice(3),
  );
  assert.equal([newest.totalCount, newest.pageInfo.hasPreviousPage, newest.pageInfo.hasNextPage], [5, true, false]);
  const older = await read({ last: 2, before: newest.pageInfo.startCursor });
  assert.equal(
    older.nodes.map((j: any) => j.id),
    all.slice(1, 3),
  );
  const high = await read({ last: 2, filter: { priority: 'HIGH' } });
  assert.equal([high.nodes.map((j: any) => j.priority), high.totalCount, high.pageInfo.hasPreviousPage], [['HIGH', 'HIGH'], 3, true]);
  assert.is(high.nodes[0].template.title, 'Pump inspection');
});

nodes('the cost limit counts a connection by first or last, and nodes(ids) by its ids', async () => {
  const client = await buildClient(server);
  const nested = await gql(
    server,
    client.owner.token,
    '{ templates(last: 200) { nodes { versions(last: 200) { nodes { content { sections { steps { title } } } } } } } }',
  );
  assert.equal(nested.codes, ['QUERY_TOO_COMPLEX']);
  const defaults = await gql(
    server,
    client.owner.token,
    '{ templates { nodes { versions { nodes { template { versions { nodes { number } } } } } } } }',
  );
  assert.equal(defaults.codes, ['QUERY_TOO_COMPLEX'], 'a connection without first or last costs the default page');
  const ids = Array.from({ length: 100 }, (_, i) => `"Template:${i + 1}"`).join(', ');
  const many = await gql(
    server,
    client.owner.token,
    `{ nodes(ids: [${ids}]) { ... on Template { versions(first: 200) { nodes { content { sections { steps { title } } } } } } } }`,
  );
  assert.equal(many.codes, ['QUERY_TOO_COMPLEX']);
});

nodes('TOKEN_EXPIRED: an expired access token gets the 401 envelope before GraphQL runs, its code readable', async () => {
  const client = await buildClient(server);
  server.clock.advance(24 * 60 * 60 * 1000);
  const res = await server.request('POST', '/api/client/graphql', { token: client.owner.token, body: { query: '{ me { id } }' } });
  assert.is(res.status, 401);
  assert.is(res.body.success, false);
  assert.is(res.body.error.code, 'TOKEN_EXPIRED');
});

nodes.run();
