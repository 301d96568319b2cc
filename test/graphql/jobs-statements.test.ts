import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { QUIET_POLLERS, sendersSettled, statementsSoFar } from '../helpers/statements';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser } from '../helpers/factories';
import { gid, gql } from '../helpers/graphql';
import { createJob, DOMAIN_TEST_ENV, publishedTemplate } from '../helpers/domain';

// No N+1: a page of jobs with their template, version and assignees costs a
// fixed number of SQL statements, whatever the page size. Statements are
// counted where the server itself observes every query it sends through the
// query builder (deps.metrics: wip_db_query_duration_seconds).

let server: TestServer;
const statements = suite('GraphQL jobs page: statement count');
statements.before(async () => {
  server = await startTestServer({ env: { ...DOMAIN_TEST_ENV, ...QUIET_POLLERS } });
});
statements.after(async () => server.stop());

async function statementsFor(
  token: string,
  first: number,
  versionFields = 'id number state',
  assigneeFields = 'id email firstName',
): Promise<{ count: number; jobs: any[] }> {
  const query = `query($first: Int) { jobs(first: $first) { edges { node {
    id title state revision
    template { id: databaseId title }
    version { ${versionFields} }
    assignees { ${assigneeFields} }
    createdBy { id: databaseId }
  } } } }`;
  await sendersSettled(server);
  const before = await statementsSoFar(server);
  const result = await gql(server, token, query, { first });
  const count = (await statementsSoFar(server)) - before;
  assert.equal(result.codes, [], JSON.stringify(result.errors));
  return { count, jobs: result.data.jobs.edges.map((e: { node: unknown }) => e.node) };
}

statements('100 jobs with template, version and assignees take as many statements as 10', async () => {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const { templateId } = await publishedTemplate(server, client);
  const operators: { id: number }[] = [];
  for (let i = 0; i < 4; i++) operators.push(await buildUser(server, client, { roles: ['operator'] }));
  for (let i = 0; i < 100; i += 10) {
    await Promise.all(
      Array.from({ length: 10 }, (_, k) =>
        createJob(server, client.owner.token, {
          templateId,
          title: `Job ${i + k}`,
          assigneeIds: [operators[(i + k) % 4].id, operators[(i + k + 1) % 4].id],
        }),
      ),
    );
  }
  const ten = await statementsFor(client.owner.token, 10);
  const hundred = await statementsFor(client.owner.token, 100);
  assert.is(ten.jobs.length, 10);
  assert.is(hundred.jobs.length, 100);
  assert.ok(hundred.jobs.every((job) => job.assignees.length === 2 && job.template.id === templateId && job.version.number === 1));
  assert.ok(ten.count > 0, 'statements are observed');
  assert.is(hundred.count, ten.count, `10 jobs: ${ten.count} statements, 100 jobs: ${hundred.count}`);
  // the page, templates, versions, members, two batches of users (+ their roles), and what every request reads: a dozen at most
  assert.ok(hundred.count <= 12, `${hundred.count} statements`);

  // the users' roles are read only when the query asks for them, in one statement per batch of users: one more for the
  // page, two when the users' rows come back in two batches (on PostgreSQL each batch answers in its own I/O callback, so
  // their roles may be asked in two ticks); per user it would be 200 more
  const withRoles = await statementsFor(client.owner.token, 100, 'id number state', 'id email firstName roles');
  const forRoles = withRoles.count - hundred.count;
  assert.ok(forRoles === 1 || forRoles === 2, `without roles ${hundred.count} statements, with them ${withRoles.count}`);
  assert.ok(withRoles.jobs.every((job) => job.assignees.every((a: { roles: string[] }) => JSON.stringify(a.roles) === '["operator"]')));

  // the versions' documents are read only when the query asks for them: one more statement for the page
  const withContent = await statementsFor(client.owner.token, 100, 'id content { sections { id title steps { id title } } }');
  assert.is(withContent.count, hundred.count + 1, `without the documents ${hundred.count} statements, with them ${withContent.count}`);
  const published = await gql(
    server,
    client.owner.token,
    `query($id: ID!) { template(id: $id) { publishedVersion { content { sections { id title steps { id title } } } } } }`,
    { id: gid('Template', templateId) },
  );
  const document = published.data.template.publishedVersion.content;
  assert.ok(document.sections.length > 0);
  assert.ok(withContent.jobs.every((job) => JSON.stringify(job.version.content) === JSON.stringify(document)));
});

statements(
  'each place of a query reads the columns it selects: fragments, aliases and one type selected differently agree with a full read',
  async () => {
    const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
    const { templateId } = await publishedTemplate(server, client);
    const operator = await buildUser(server, client, { roles: ['operator'] });
    await createJob(server, client.owner.token, {
      templateId,
      title: 'Mixed selections',
      assigneeIds: [operator.id],
      stepOwners: [{ stepId: 'measure', userId: operator.id }],
    });
    const narrowQuery = `{ jobs(first: 5) { edges { node { ...J assignees { email } createdBy { id } stepOwners { user { lastName } } t: template { title ...T } version { __typename state } } } } }
     fragment J on Job { id name: title }
     fragment T on Template { tags owner { id } }`;
    // the first run is interpreted by graphql-js, the second runs compiled by graphql-jit: both narrow the same way
    const interpreted = await gql(server, client.owner.token, narrowQuery);
    const narrow = await gql(server, client.owner.token, narrowQuery);
    assert.equal(narrow.body, interpreted.body);
    const full = await gql(
      server,
      client.owner.token,
      `{ jobs(first: 5) { edges { node { id title priority createdAt
      assignees { id email firstName lastName title licenseType } createdBy { id email firstName }
      stepOwners { stepId user { id email lastName } }
      template { id title description tags createdAt owner { id email } }
      version { id number state contentHash createdAt } } } } }`,
    );
    assert.equal(narrow.codes, [], JSON.stringify(narrow.errors));
    assert.equal(full.codes, [], JSON.stringify(full.errors));
    const fullJob = full.data.jobs.edges.find((e: any) => e.node.title === 'Mixed selections').node;
    const narrowJob = narrow.data.jobs.edges.find((e: any) => e.node.name === 'Mixed selections').node;
    assert.equal(narrowJob, {
      id: fullJob.id,
      name: fullJob.title,
      assignees: fullJob.assignees.map((a: any) => ({ email: a.email })),
      createdBy: { id: fullJob.createdBy.id },
      stepOwners: fullJob.stepOwners.map((o: any) => ({ user: { lastName: o.user.lastName } })),
      t: { title: fullJob.template.title, tags: fullJob.template.tags, owner: fullJob.template.owner && { id: fullJob.template.owner.id } },
      version: { __typename: 'TemplateVersion', state: fullJob.version.state },
    });
    assert.is(fullJob.assignees[0].email, operator.email);
    assert.is(fullJob.stepOwners.length, 1);
  },
);

statements("a page reads its jobs' templates and versions in its own statement: selecting them costs no statement more", async () => {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const { templateId } = await publishedTemplate(server, client);
  for (let i = 0; i < 3; i++) await createJob(server, client.owner.token, { templateId, title: `Joined ${i}` });
  const count = async (fields: string) => {
    const before = await statementsSoFar(server);
    const result = await gql(server, client.owner.token, `{ jobs(first: 10) { edges { node { ${fields} } } } }`);
    assert.equal(result.codes, [], JSON.stringify(result.errors));
    return { count: (await statementsSoFar(server)) - before, jobs: result.data.jobs.edges.map((e: { node: any }) => e.node) };
  };
  const bare = await count('id title');
  const joined = await count('id title template { id: databaseId title description } version { id number state }');
  assert.is(joined.count, bare.count, `without template and version ${bare.count} statements, with them ${joined.count}`);
  assert.is(joined.jobs.length, 3);
  assert.ok(
    joined.jobs.every(
      (job: any) =>
        job.template.id === templateId &&
        job.template.title === 'Pump inspection' &&
        job.version.number === 1 &&
        job.version.state === 'PUBLISHED',
    ),
  );
  // the connection's nodes (no edges) are read ahead the same way: the same statements, the same answers
  const before = await statementsSoFar(server);
  const viaNodes = await gql(
    server,
    client.owner.token,
    '{ jobs(first: 10) { nodes { id title template { id: databaseId title description } version { id number state } } } }',
  );
  assert.equal(viaNodes.codes, [], JSON.stringify(viaNodes.errors));
  assert.is((await statementsSoFar(server)) - before, joined.count);
  assert.equal(viaNodes.data.jobs.nodes, joined.jobs);
});

statements(
  'a compiled query answers with the same bytes as its first, interpreted run (joined relations, members, strings to escape)',
  async () => {
    const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
    const { templateId } = await publishedTemplate(server, client, undefined, 'Quotes " and \\ back\tslash, ünïcödé ✓ 😀');
    const operator = await buildUser(server, client, { roles: ['operator'] });
    await createJob(server, client.owner.token, { templateId, title: 'Line\nbreak </script> \u2028 "quoted"', assigneeIds: [operator.id] });
    const query = `query($t: ID) { jobs(first: 5, filter: { templateId: $t }) { edges { node { id title state priority
    template { id title tags } version { id number state } assignees { id email firstName lastName } } } pageInfo { hasNextPage endCursor } } }`;
    // the first run is interpreted by graphql-js, the later ones run compiled by graphql-jit (COMPILE_FROM_RUN)
    const answers: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await server.request('POST', '/api/client/graphql', {
        token: client.owner.token,
        body: { query, variables: { t: gid('Template', templateId) } },
      });
      assert.is(res.status, 200, res.text);
      answers.push(res.text);
    }
    assert.ok(answers[0].includes('Line\\nbreak'), answers[0]);
    assert.ok(answers[0].includes(operator.email), answers[0]);
    assert.is(answers[1], answers[0]);
    assert.is(answers[2], answers[0]);
  },
);

statements.run();
