import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { advance, buildTeam, createTemplate, ok, SAMPLE_CONTENT, SUBMIT } from '../helpers/templates';

// What the floor app's editor and template library need of the API —
// the draft's optimistic revision (two authors autosaving one draft see a
// conflict, never a silent overwrite) and the library's "needs my action".

const EDIT = `mutation ($id: ID!, $content: ContentInput!, $rev: Int) {
  updateDraft(input: { versionId: $id, content: $content, expectedRevision: $rev }) { version { revision updatedBy { id: databaseId } content { sections { steps { stepId title } } } } }
}`;
const READ = `query ($id: ID!) { templateVersion(id: $id) { revision state updatedBy { id: databaseId } content { sections { steps { stepId title } } } } }`;
const titled = (title: string) => ({
  sections: [
    { ...SAMPLE_CONTENT.sections[0], steps: [{ ...SAMPLE_CONTENT.sections[0].steps[0], title }, SAMPLE_CONTENT.sections[0].steps[1]] },
  ],
});
const firstTitle = (version: any) => version.content.sections[0].steps[0].title;

let server: TestServer;
const revision = suite('GraphQL updateDraft: the optimistic revision');
revision.before(async () => {
  server = await startTestServer({ env: { WIP_SIGN_IN_RATE_LIMIT_MAX: '1000' } });
});
revision.after(async () => server.stop());

revision('a draft starts at revision 1; each edit at the current revision moves it on by one', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  const created = await createTemplate(server, team.author.token);
  const v = created.latestVersion.id;
  assert.is(ok(await gql(server, team.author.token, READ, { id: v })).templateVersion.revision, 1);
  const first = ok(await gql(server, team.author.token, EDIT, { id: v, content: titled('One'), rev: 1 })).updateDraft.version;
  assert.is(first.revision, 2);
  const second = ok(await gql(server, team.author.token, EDIT, { id: v, content: titled('Two'), rev: 2 })).updateDraft.version;
  assert.is(second.revision, 3);
  assert.is(firstTitle(second), 'Two');
});

revision(
  'two authors edit from the same revision: the second is a CONFLICT naming the current revision and the first edit stays',
  async () => {
    const client = await buildClient(server);
    const team = await buildTeam(server, client);
    const other = await buildUser(server, client, { roles: ['author'] });
    const created = await createTemplate(server, team.author.token);
    const v = created.latestVersion.id;
    ok(await gql(server, team.author.token, EDIT, { id: v, content: titled('Mine'), rev: 1 }));
    const refused = await gql(server, other.token, EDIT, { id: v, content: titled('Theirs'), rev: 1 });
    assert.equal(refused.codes, ['CONFLICT']);
    assert.is(refused.data, null);
    const details = refused.errors![0].extensions!.details;
    assert.equal([details.expectedRevision, details.currentRevision, details.updatedBy], [1, 2, team.author.id]);
    const stored = ok(await gql(server, team.author.token, READ, { id: v })).templateVersion;
    assert.is(firstTitle(stored), 'Mine');
    assert.is(stored.revision, 2);
    // the second author reloads at the current revision and saves on top of it
    const merged = ok(
      await gql(server, other.token, EDIT, { id: v, content: titled('Theirs, after reading mine'), rev: details.currentRevision }),
    ).updateDraft.version;
    assert.equal([merged.revision, merged.updatedBy.id, firstTitle(merged)], [3, other.id, 'Theirs, after reading mine']);
  },
);

revision('without expectedRevision the last edit wins, as before revisions existed', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  const created = await createTemplate(server, team.author.token);
  const v = created.latestVersion.id;
  ok(await gql(server, team.author.token, EDIT, { id: v, content: titled('A'), rev: 1 }));
  const blind = ok(await gql(server, team.author.token, EDIT, { id: v, content: titled('B') })).updateDraft.version;
  assert.equal([blind.revision, firstTitle(blind)], [3, 'B']);
});

revision(
  'a transition moves the revision too: an edit from before a submit and reject is a CONFLICT, not an edit of the returned draft',
  async () => {
    const client = await buildClient(server);
    const team = await buildTeam(server, client);
    const created = await createTemplate(server, team.author.token);
    const v = created.latestVersion.id;
    ok(await gql(server, team.author.token, SUBMIT, { id: v }));
    ok(
      await gql(
        server,
        team.approver.token,
        `mutation ($id: ID!) { rejectVersion(input: { versionId: $id, reason: "Say which breakers" }) { version { id } } }`,
        { id: v },
      ),
    );
    const read = ok(await gql(server, team.author.token, READ, { id: v })).templateVersion;
    assert.equal([read.state, read.revision], ['DRAFT', 3]);
    assert.equal((await gql(server, team.author.token, EDIT, { id: v, content: titled('Stale'), rev: 1 })).codes, ['CONFLICT']);
    assert.is(ok(await gql(server, team.author.token, EDIT, { id: v, content: titled('Fresh'), rev: 3 })).updateDraft.version.revision, 4);
  },
);

revision('an expectedRevision no draft can have (0) is a VALIDATION_ERROR at expectedRevision', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  const created = await createTemplate(server, team.author.token);
  const bad = await gql(server, team.author.token, EDIT, { id: created.latestVersion.id, content: titled('x'), rev: 0 });
  assert.equal(bad.codes, ['VALIDATION_ERROR']);
  assert.equal(
    bad.errors![0].extensions!.details.fields.map((f: { path: string }) => f.path),
    ['expectedRevision'],
  );
});

revision.run();

const awaiting = suite('GraphQL templates(filter: {needsMyAction: true})');
awaiting.before(async () => {
  server = await startTestServer({ env: { WIP_SIGN_IN_RATE_LIMIT_MAX: '1000' } });
});
awaiting.after(async () => server.stop());

const MINE = `query { templates(first: 50, filter: { needsMyAction: true }) { totalCount nodes { title } } }`;
const titles = async (token: string) =>
  ok(await gql(server, token, MINE))
    .templates.nodes.map((t: { title: string }) => t.title)
    .sort();

awaiting("each role sees what waits for it: its drafts, others' versions in review, approved versions; an operator nothing", async () => {
  const client = await buildClient(server, { seats: { full: 8, connect: 2 } });
  const team = await buildTeam(server, client);
  const otherAuthor = await buildUser(server, client, { roles: ['author'] });
  // an approver who also writes: their own submitted work is not theirs to approve (separation of duties)
  const writerApprover = await buildUser(server, client, { roles: ['author', 'approver'] });
  const operator = await buildUser(server, client, { roles: ['operator'], licenseType: 'connect' });
  await createTemplate(server, team.author.token, { title: 'Draft of author' });
  await createTemplate(server, otherAuthor.token!, { title: 'Draft of other' });
  const inReview = await createTemplate(server, team.author.token, { title: 'In review' });
  await advance(server, team, inReview.latestVersion.id, 'IN_REVIEW');
  const own = await createTemplate(server, writerApprover.token!, { title: 'Own in review' });
  ok(await gql(server, writerApprover.token, SUBMIT, { id: own.latestVersion.id }));
  const approved = await createTemplate(server, team.author.token, { title: 'Approved' });
  await advance(server, team, approved.latestVersion.id, 'APPROVED');
  const published = await createTemplate(server, team.author.token, { title: 'Published' });
  await advance(server, team, published.latestVersion.id, 'PUBLISHED');

  assert.equal(await titles(team.author.token), ['Draft of author']);
  assert.equal(await titles(otherAuthor.token!), ['Draft of other']);
  assert.equal(await titles(team.approver.token), ['In review', 'Own in review']);
  assert.equal(await titles(writerApprover.token!), ['In review']);
  assert.equal(await titles(team.publisher.token), ['Approved']);
  assert.equal(await titles(operator.token!), []);
  // without the filter (or with false) everything visible is listed
  const all = ok(await gql(server, team.author.token, `query { templates(first: 50, filter: { needsMyAction: false }) { totalCount } }`))
    .templates.totalCount;
  assert.is(all, 6);
});

awaiting('it combines with the other filters', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  await createTemplate(server, team.author.token, { title: 'Pump draft', tags: ['pump'] });
  await createTemplate(server, team.author.token, { title: 'Valve draft', tags: ['valve'] });
  const found = ok(
    await gql(
      server,
      team.author.token,
      `query { templates(first: 50, filter: { needsMyAction: true, tag: "valve", search: "draft" }) { nodes { title } } }`,
    ),
  ).templates.nodes;
  assert.equal(found, [{ title: 'Valve draft' }]);
});

awaiting.run();
