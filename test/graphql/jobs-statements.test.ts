import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { QUIET_POLLERS, statementsSoFar } from '../helpers/statements';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser } from '../helpers/factories';
import { gql } from '../helpers/graphql';
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

async function statementsFor(token: string, first: number, versionFields = 'id number state', assigneeFields = 'id email firstName'): Promise<{ count: number; jobs: any[] }> {
  const query = `query($first: Int) { jobs(first: $first) { edges { node {
    id title state revision
    template { id title }
    version { ${versionFields} }
    assignees { ${assigneeFields} }
    createdBy { id }
  } } } }`;
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
        createJob(server, client.owner.token, { templateId, title: `Job ${i + k}`, assigneeIds: [operators[(i + k) % 4]!.id, operators[(i + k + 1) % 4]!.id] }),
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

  // the users' roles are read only when the query asks for them: one more statement for the page
  const withRoles = await statementsFor(client.owner.token, 100, 'id number state', 'id email firstName roles');
  assert.is(withRoles.count, hundred.count + 1, `without roles ${hundred.count} statements, with them ${withRoles.count}`);
  assert.ok(withRoles.jobs.every((job) => job.assignees.every((a: { roles: string[] }) => JSON.stringify(a.roles) === '["operator"]')));

  // the versions' documents are read only when the query asks for them: one more statement for the page
  const withContent = await statementsFor(client.owner.token, 100, 'id content { sections { id title steps { id title } } }');
  assert.is(withContent.count, hundred.count + 1, `without the documents ${hundred.count} statements, with them ${withContent.count}`);
  const published = await gql(server, client.owner.token, `query($id: Int!) { template(id: $id) { publishedVersion { content { sections { id title steps { id title } } } } } }`, { id: templateId });
  const document = published.data.template.publishedVersion.content;
  assert.ok(document.sections.length > 0);
  assert.ok(withContent.jobs.every((job) => JSON.stringify(job.version.content) === JSON.stringify(document)));
});

statements.run();
