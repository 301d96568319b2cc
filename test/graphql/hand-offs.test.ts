import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser } from '../helpers/factories';
import { gql, gid } from '../helpers/graphql';
import { issueTestLicense } from '../helpers/licenses';
import { createJob, publishedTemplate, DOMAIN_TEST_ENV } from '../helpers/domain';
import { FEATURES } from '#licensing/terms';

const handOffs = suite('Job.handOffs: every hand-off of a job, for whoever may read the job');
let server: TestServer;
handOffs.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
handOffs.after(async () => server.stop());

const JOB_HAND_OFFS = `query($id: ID!) { job(id: $id) { title handOffs { totalCount nodes {
  databaseId status note createdAt decidedAt from { id email } to { id email } } } } }`;
const NODE = 'query($id: ID!) { node(id: $id) { id ... on HandOff { status job { databaseId } } } }';

/** A job of `a`, handed to b (accepted), then by b to c (pending). */
async function handedTwice(target: TestServer) {
  const client = await buildClient(target, { seats: { full: 20, connect: 20 } });
  const { templateId } = await publishedTemplate(target, client);
  const [a, b, c] = await Promise.all([0, 1, 2].map(() => buildUser(target, client, { roles: ['operator'] })));
  const job = await createJob(target, client.owner.token, { templateId, assigneeIds: [a.id] });
  const work = (token: string, body: Record<string, unknown>) => target.request('POST', '/api/client/workingTogether', { token, body });
  const first = await work(a.token!, { action: 'HAND_OFF', jobId: job.id, toUserId: b.id, note: 'Schichtende' });
  assert.is(first.status, 200, first.text);
  const accepted = await work(b.token!, { action: 'ACCEPT', jobId: job.id, handOffId: first.body.data.handOff.id });
  assert.is(accepted.status, 200, accepted.text);
  const second = await work(b.token!, { action: 'HAND_OFF', jobId: job.id, toUserId: c.id });
  assert.is(second.status, 200, second.text);
  return { client, a, b, c, job, first: accepted.body.data.handOff, second: second.body.data.handOff };
}

handOffs('a job lists its hand-offs oldest first with from, to, when and status, for the owner, a viewer and the receiver', async () => {
  const { client, a, b, c, job, first, second } = await handedTwice(server);
  const outsider = await buildUser(server, client, { roles: ['viewer'] });
  for (const token of [client.owner.token, outsider.token!, c.token!]) {
    const res = await gql(server, token, JOB_HAND_OFFS, { id: gid('Job', job.id) });
    assert.equal(res.codes, [], JSON.stringify(res.errors));
    assert.is(res.data.job.handOffs.totalCount, 2);
    assert.equal(res.data.job.handOffs.nodes, [
      {
        databaseId: first.id,
        status: 'ACCEPTED',
        note: 'Schichtende',
        createdAt: first.createdAt,
        decidedAt: first.decidedAt,
        from: { id: gid('User', a.id), email: a.email },
        to: { id: gid('User', b.id), email: b.email },
      },
      {
        databaseId: second.id,
        status: 'PENDING',
        note: '',
        createdAt: second.createdAt,
        decidedAt: null,
        from: { id: gid('User', b.id), email: b.email },
        to: { id: gid('User', c.id), email: c.email },
      },
    ]);
  }
  const node = await gql(server, client.owner.token, NODE, { id: gid('HandOff', second.id) });
  assert.equal(node.data.node, { id: gid('HandOff', second.id), status: 'PENDING', job: { databaseId: job.id } });
  const newest = await gql(server, client.owner.token, 'query($id: ID!) { job(id: $id) { handOffs(last: 1) { nodes { databaseId } } } }', {
    id: gid('Job', job.id),
  });
  assert.equal(newest.data.job.handOffs.nodes, [{ databaseId: second.id }]);
});

handOffs("another client's job is not reachable, its hand-offs neither; a job without hand-offs lists none", async () => {
  const { job, first } = await handedTwice(server);
  const other = await buildClient(server);
  const res = await gql(server, other.owner.token, JOB_HAND_OFFS, { id: gid('Job', job.id) });
  assert.equal(res.codes, ['NOT_FOUND']);
  assert.is(res.data?.job ?? null, null);
  const node = await gql(server, other.owner.token, NODE, { id: gid('HandOff', first.id) });
  assert.equal(node.codes, ['NOT_FOUND']);
  assert.is(node.data.node, null);
  const { templateId } = await publishedTemplate(server, other);
  const own = await createJob(server, other.owner.token, { templateId });
  const empty = await gql(server, other.owner.token, JOB_HAND_OFFS, { id: gid('Job', own.id) });
  assert.equal(empty.codes, []);
  assert.equal(empty.data.job.handOffs.nodes, []);
});

handOffs('a page of jobs loads its hand-offs in one batch: each job gets its own', async () => {
  const one = await handedTwice(server);
  const res = await gql(server, one.client.owner.token, '{ jobs(first: 10) { nodes { databaseId handOffs { nodes { databaseId } } } } }');
  assert.equal(res.codes, [], JSON.stringify(res.errors));
  assert.equal(res.data.jobs.nodes, [
    { databaseId: one.job.id, handOffs: { nodes: [{ databaseId: one.first.id }, { databaseId: one.second.id }] } },
  ]);
});

handOffs('without the collaboration feature: FEATURE_NOT_LICENSED at the field, the rest of the job still answers', async () => {
  const limited = await startTestServer({
    env: DOMAIN_TEST_ENV,
    license: issueTestLicense({ features: FEATURES.filter((f) => f !== 'collaboration') }),
  });
  try {
    const client = await buildClient(limited);
    const { templateId } = await publishedTemplate(limited, client);
    const job = await createJob(limited, client.owner.token, { templateId });
    const res = await gql(limited, client.owner.token, JOB_HAND_OFFS, { id: gid('Job', job.id) });
    assert.equal(res.codes, ['FEATURE_NOT_LICENSED']);
    assert.equal(res.errors![0].path, ['job', 'handOffs']);
    assert.equal(res.errors![0].extensions!.details, { feature: 'collaboration' });
    assert.is(res.data.job.handOffs, null);
    assert.type(res.data.job.title, 'string');
    const node = await gql(limited, client.owner.token, NODE, { id: gid('HandOff', 1) });
    assert.equal(node.codes, ['FEATURE_NOT_LICENSED']);
  } finally {
    await limited.stop();
  }
});

handOffs.run();
