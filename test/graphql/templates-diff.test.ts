import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { advance, buildTeam, CREATE_DRAFT, createTemplate, ok, UPDATE_DRAFT } from '../helpers/templates';
import type { JobState } from '#db/schema';

let server: TestServer;
const diff = suite('GraphQL versionDiff(fromVersionId, toVersionId)');
diff.before(async () => {
  server = await startTestServer({ env: { WIP_SIGN_IN_RATE_LIMIT_MAX: '1000' } });
});
diff.after(async () => server.stop());

const DIFF = `query ($from: ID!, $to: ID!) { versionDiff(fromVersionId: $from, toVersionId: $to) {
  added { id: stepId title } removed { id: stepId title } moved { id: stepId title } changed { id: stepId title changedFields }
  jobsOnOlderVersion { nodes { id: databaseId } totalCount } } }`;

const step = (stepId: string, title = stepId.toUpperCase(), extra: Record<string, unknown> = {}) => ({ stepId, title, ...extra });

const V1 = {
  sections: [
    {
      sectionId: 's1',
      title: 'One',
      steps: [
        step('a'),
        step('b'),
        step('c'),
        step('f'),
        step('g', 'G', {
          fields: [
            { key: 'x', type: 'NUMBER', max: 5 },
            { key: 'y', type: 'TEXT' },
          ],
        }),
      ],
    },
    { sectionId: 's2', title: 'Two', steps: [step('d'), step('h', 'H', { body: 'old' })] },
  ],
};
// b removed; e added; a moved to the end of s1 (c, f, g keep their order); d moved to s1;
// g: field x changed, y removed, z added; h: title and body changed
const V2 = {
  sections: [
    {
      sectionId: 's1',
      title: 'One',
      steps: [
        step('c'),
        step('e'),
        step('f'),
        step('g', 'G', {
          fields: [
            { key: 'x', type: 'NUMBER', max: 6 },
            { key: 'z', type: 'PASS_FAIL' },
          ],
        }),
        step('d'),
        step('a'),
      ],
    },
    { sectionId: 's2', title: 'Two', steps: [step('h', 'H2', { body: 'new' })] },
  ],
};

async function insertJob(clientId: number, templateId: number, versionId: number, state: JobState, createdBy: number): Promise<number> {
  // jobs are another area's: the rows are written directly, the diff only reads them
  const now = server.clock.now().toISOString();
  const row = await server.deps.db.kysely
    .insertInto('jobs')
    .values({
      client_id: clientId,
      template_id: templateId,
      version_id: versionId,
      title: `job ${state}`,
      priority: 'MEDIUM',
      state,
      created_by: createdBy,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

diff('steps added, removed, moved (order and section), changed with what changed; open jobs on the older version', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  const created = await createTemplate(server, team.author.token, { content: V1 });
  const v1 = created.latestVersion.id;
  await advance(server, team, v1, 'PUBLISHED');
  const v2 = ok(await gql(server, team.author.token, CREATE_DRAFT, { id: created.id })).createDraft.version.id;
  ok(await gql(server, team.author.token, UPDATE_DRAFT, { id: v2, content: V2 }));
  const open = [];
  for (const state of ['OPEN', 'IN_PROGRESS', 'PAUSED'] as const)
    open.push(await insertJob(client.id, created.databaseId, created.latestVersion.databaseId, state, team.publisher.id));
  for (const state of ['COMPLETED', 'CANCELLED'] as const)
    await insertJob(client.id, created.databaseId, created.latestVersion.databaseId, state, team.publisher.id);

  const result = ok(await gql(server, team.author.token, DIFF, { from: v1, to: v2 })).versionDiff;
  assert.equal(result.added, [{ id: 'e', title: 'E' }]);
  assert.equal(result.removed, [{ id: 'b', title: 'B' }]);
  assert.equal(result.moved, [
    { id: 'd', title: 'D' },
    { id: 'a', title: 'A' },
  ]);
  assert.equal(result.changed, [
    { id: 'g', title: 'G', changedFields: ['fields.x', 'fields.y', 'fields.z'] },
    { id: 'd', title: 'D', changedFields: ['section'] },
    { id: 'h', title: 'H2', changedFields: ['title', 'body'] },
  ]);
  assert.equal(
    result.jobsOnOlderVersion.nodes.map((j: any) => j.id),
    open,
  );

  // the other way round: added and removed swap; the older version is still v1
  const back = ok(await gql(server, team.author.token, DIFF, { from: v2, to: v1 })).versionDiff;
  assert.equal(back.added, [{ id: 'b', title: 'B' }]);
  assert.equal(back.removed, [{ id: 'e', title: 'E' }]);
  assert.equal(
    back.jobsOnOlderVersion.nodes.map((j: any) => j.id),
    open,
  );
});

diff('identical versions differ in nothing; versions of two templates → VALIDATION_ERROR', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  const one = await createTemplate(server, team.author.token, { content: V1 });
  await advance(server, team, one.latestVersion.id, 'IN_REVIEW');
  const copy = ok(await gql(server, team.author.token, CREATE_DRAFT, { id: one.id })).createDraft.version.id;
  const same = ok(await gql(server, team.author.token, DIFF, { from: one.latestVersion.id, to: copy })).versionDiff;
  assert.equal(same, { added: [], removed: [], moved: [], changed: [], jobsOnOlderVersion: { nodes: [], totalCount: 0 } });
  const other = await createTemplate(server, team.author.token, { content: V1 });
  const mixed = await gql(server, team.author.token, DIFF, { from: one.latestVersion.id, to: other.latestVersion.id });
  assert.equal(mixed.codes, ['VALIDATION_ERROR']);
});

diff.run();
