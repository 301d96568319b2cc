import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import shipped from '../../config/tutorials.json';

let server: TestServer;
const tutorials = suite('GET /api/client/get-tutorials-info and completeTutorial');
tutorials.before(async () => {
  server = await startTestServer();
});
tutorials.after(async () => server.stop());

const info = async (token: string) => {
  const res = await server.request('GET', '/api/client/get-tutorials-info', { token });
  assert.is(res.status, 200, res.text);
  return res.body.data.tutorials as { id: string; completed: boolean; completedAt: string | null; forYou: boolean }[];
};
const COMPLETE =
  'mutation ($id: ID!) { completeTutorial(input: { tutorialId: $id }) { tutorial { id tutorialId title completed completedAt } } }';

tutorials('the shipped catalogue, each tutorial with the caller’s completion state and whether it is meant for them', async () => {
  const client = await buildClient(server);
  const operator = await buildUser(server, client, { roles: ['operator'], licenseType: 'connect' });
  const list = await info(operator.token!);
  assert.equal(
    list.map((t) => t.id),
    shipped.tutorials.map((t) => t.id),
  );
  assert.ok(list.every((t) => t.completed === false && t.completedAt === null));
  assert.is(list.find((t) => t.id === 'operator-run-job')!.forYou, true);
  assert.is(list.find((t) => t.id === 'author-first-template')!.forYou, false);
});

tutorials('completeTutorial marks it completed for the caller only, and is idempotent (first time kept)', async () => {
  const client = await buildClient(server);
  const other = await buildUser(server, client, { roles: ['author'] });
  const first = await gql(server, client.owner.token, COMPLETE, { id: 'Tutorial:welcome' });
  assert.equal(first.errors, undefined, JSON.stringify(first.body));
  assert.is(first.data.completeTutorial.tutorial.completed, true);
  assert.is(first.data.completeTutorial.tutorial.tutorialId, 'welcome');
  const completedAt = first.data.completeTutorial.tutorial.completedAt;
  server.clock.advance(60_000);
  const again = await gql(server, client.owner.token, COMPLETE, { id: 'Tutorial:welcome' });
  assert.equal(again.data.completeTutorial, first.data.completeTutorial);
  const mine = (await info(client.owner.token)).find((t) => t.id === 'welcome')!;
  assert.equal([mine.completed, mine.completedAt], [true, completedAt]);
  assert.is((await info(other.token!)).find((t) => t.id === 'welcome')!.completed, false);
  const viaGraphql = await gql(server, other.token, '{ tutorials { tutorialId completed } }');
  assert.is(viaGraphql.data.tutorials.find((t: { tutorialId: string }) => t.tutorialId === 'welcome').completed, false);
});

tutorials('an unknown tutorial id is NOT_FOUND; what is no tutorial id at all is VALIDATION_ERROR', async () => {
  const client = await buildClient(server);
  const unknown = await gql(server, client.owner.token, COMPLETE, { id: 'Tutorial:no-such-tutorial' });
  assert.equal(unknown.codes, ['NOT_FOUND']);
  assert.is(unknown.data, null);
  for (const id of ['welcome', '', 'Tutorial:', 'Job:1', `Tutorial:${'x'.repeat(5000)}`]) {
    const result = await gql(server, client.owner.token, COMPLETE, { id });
    assert.equal(result.codes, ['VALIDATION_ERROR'], id);
    assert.is(result.data, null);
  }
});

tutorials('401 without a token', async () => {
  assert.is((await server.request('GET', '/api/client/get-tutorials-info')).status, 401);
});

tutorials.run();
