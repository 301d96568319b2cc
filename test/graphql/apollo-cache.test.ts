import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApolloClient, HttpLink, InMemoryCache, gql as apolloGql } from '@apollo/client';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { advance, buildTeam, CREATE_DRAFT, createTemplate, ok, UPDATE_DRAFT } from '../helpers/templates';

/**
 * Apollo Client (core, from npm — a normalised cache nobody here wrote) against the real server through real HTTP:
 * two versions of one template share their step keys, and each must keep its own texts in one InMemoryCache.
 */
let server: TestServer;
const apollo = suite('Apollo Client InMemoryCache: two versions of a template, each with its own texts');
apollo.before(async () => {
  server = await startTestServer({ env: { WIP_SIGN_IN_RATE_LIMIT_MAX: '1000' } });
});
apollo.after(async () => server.stop());

const VERSION = apolloGql`
  query Version($id: ID!) {
    templateVersion(id: $id) {
      id
      number
      content { sections { id sectionId title steps { id stepId title body } } }
    }
  }
`;

function apolloClient(token: string, cache = new InMemoryCache()) {
  return new ApolloClient({
    link: new HttpLink({ uri: `${server.url}/api/client/graphql`, headers: { authorization: `Bearer ${token}` }, fetch }),
    cache,
  });
}

/** A template whose version 1 says "Isolate the pump" and whose version 2 renames that step (same stepId) and its section. */
async function twoVersions() {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  const template = await createTemplate(server, team.author.token, {
    content: {
      sections: [{ sectionId: 'prep', title: 'Preparation', steps: [{ stepId: 'isolate', title: 'Isolate the pump', body: 'v1 body' }] }],
    },
  });
  await advance(server, team, template.latestVersion.id, 'PUBLISHED');
  const v2 = ok(await gql(server, team.author.token, CREATE_DRAFT, { id: template.id })).createDraft.version;
  ok(
    await gql(server, team.author.token, UPDATE_DRAFT, {
      id: v2.id,
      content: {
        sections: [
          {
            sectionId: 'prep',
            title: 'Before you start',
            steps: [{ stepId: 'isolate', title: 'Lock out and tag the pump', body: 'v2 body' }],
          },
        ],
      },
    }),
  );
  return { token: team.author.token, v1: template.latestVersion.id, v2: v2.id as string };
}

const stepOf = (data: any) => data.templateVersion.content.sections[0].steps[0];
const sectionOf = (data: any) => data.templateVersion.content.sections[0];

apollo('version 1 read after version 2 in one cache shows version 1’s step and section texts', async () => {
  const { token, v1, v2 } = await twoVersions();
  const client = apolloClient(token);
  const first = await client.query({ query: VERSION, variables: { id: v1 } });
  assert.is(stepOf(first.data).title, 'Isolate the pump');
  const second = await client.query({ query: VERSION, variables: { id: v2 } });
  assert.is(stepOf(second.data).title, 'Lock out and tag the pump');
  assert.is(sectionOf(second.data).title, 'Before you start');
  // the same stable key in both, and two objects in the cache
  assert.is(stepOf(first.data).stepId, stepOf(second.data).stepId);
  assert.is.not(stepOf(first.data).id, stepOf(second.data).id);

  // read back from the cache (no request): version 1 still shows its own texts
  const cachedV1 = client.readQuery({ query: VERSION, variables: { id: v1 } });
  assert.is(stepOf(cachedV1).title, 'Isolate the pump');
  assert.is(stepOf(cachedV1).body, 'v1 body');
  assert.is(sectionOf(cachedV1).title, 'Preparation');
  const again = await client.query({ query: VERSION, variables: { id: v1 }, fetchPolicy: 'cache-first' });
  assert.is(stepOf(again.data).title, 'Isolate the pump');
  const cachedV2 = client.readQuery({ query: VERSION, variables: { id: v2 } });
  assert.is(stepOf(cachedV2).title, 'Lock out and tag the pump');
});

apollo(
  'the old identity — a step keyed by its stable key alone — shows version 2’s title for version 1 (what this schema fixes)',
  async () => {
    const { token, v1, v2 } = await twoVersions();
    // the cache as it normalised the old schema, where Step.id was the stable key
    const client = apolloClient(
      token,
      new InMemoryCache({ typePolicies: { Step: { keyFields: ['stepId'] }, Section: { keyFields: ['sectionId'] } } }),
    );
    await client.query({ query: VERSION, variables: { id: v1 } });
    await client.query({ query: VERSION, variables: { id: v2 } });
    const cachedV1 = client.readQuery({ query: VERSION, variables: { id: v1 } });
    assert.is(stepOf(cachedV1).title, 'Lock out and tag the pump');
  },
);

apollo.run();
