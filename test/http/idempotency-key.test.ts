import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, uniqueEmail } from '../helpers/factories';
import { createJob, DOMAIN_TEST_ENV, publishedTemplate } from '../helpers/domain';
import { PNG } from '../helpers/upload';

let server: TestServer;
const keys = suite('Idempotency-Key on writes under /api/client and /api/admin');
keys.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
keys.after(async () => server.stop());

const userBody = () => ({ email: uniqueEmail(), roles: ['operator'], licenseType: 'full', password: 'correct-horse-battery' });

async function countUsers(token: string): Promise<number> {
  const res = await server.request('GET', '/api/admin/user?limit=200', { token });
  return res.body.data.items.length;
}

keys('POST /api/admin/user: a retry with the same key and body replays the first answer and creates nothing', async () => {
  const client = await buildClient(server);
  const key = randomUUID();
  const body = userBody();
  const first = await server.request('POST', '/api/admin/user', { token: client.owner.token, body, headers: { 'idempotency-key': key } });
  assert.is(first.status, 201, first.text);
  assert.is(first.headers.get('idempotency-replayed'), null);
  const users = await countUsers(client.owner.token);
  const again = await server.request('POST', '/api/admin/user', { token: client.owner.token, body, headers: { 'idempotency-key': key } });
  assert.is(again.status, 201);
  assert.is(again.headers.get('idempotency-replayed'), 'true');
  assert.equal(again.body, first.body);
  assert.is(await countUsers(client.owner.token), users);
  // without the key the same body is a new request (here: the email is taken)
  const plain = await server.request('POST', '/api/admin/user', { token: client.owner.token, body });
  assert.is(plain.status, 409);
});

keys('the same key with another body is 422 IDEMPOTENCY_KEY_REUSED; a key over 255 characters is 400', async () => {
  const client = await buildClient(server);
  const key = randomUUID();
  assert.is(
    (await server.request('POST', '/api/admin/user', { token: client.owner.token, body: userBody(), headers: { 'idempotency-key': key } }))
      .status,
    201,
  );
  const other = await server.request('POST', '/api/admin/user', {
    token: client.owner.token,
    body: userBody(),
    headers: { 'idempotency-key': key },
  });
  assert.is(other.status, 422);
  assert.is(other.body.error.code, 'IDEMPOTENCY_KEY_REUSED');
  const long = await server.request('POST', '/api/admin/user', {
    token: client.owner.token,
    body: userBody(),
    headers: { 'idempotency-key': 'k'.repeat(256) },
  });
  assert.is(long.status, 400);
  assert.is(long.body.error.code, 'IDEMPOTENCY_KEY_INVALID');
  assert.is(
    (
      await server.request('POST', '/api/admin/user', {
        token: client.owner.token,
        body: userBody(),
        headers: { 'idempotency-key': 'k'.repeat(255) },
      })
    ).status,
    201,
  );
});

keys('keys belong to a principal: another user’s same key is a new request', async () => {
  const a = await buildClient(server);
  const b = await buildClient(server);
  const key = randomUUID();
  const body = userBody();
  const ra = await server.request('POST', '/api/admin/user', { token: a.owner.token, body, headers: { 'idempotency-key': key } });
  const rb = await server.request('POST', '/api/admin/user', { token: b.owner.token, body, headers: { 'idempotency-key': key } });
  assert.is(ra.status, 201);
  assert.is(rb.status, 201);
  assert.is(rb.headers.get('idempotency-replayed'), null);
  assert.is.not(rb.body.data.id, ra.body.data.id);
});

keys('a failed request frees its key: the corrected retry runs', async () => {
  const client = await buildClient(server);
  const key = randomUUID();
  const body = { ...userBody(), roles: ['not-a-role'] };
  const bad = await server.request('POST', '/api/admin/user', { token: client.owner.token, body, headers: { 'idempotency-key': key } });
  assert.is(bad.status, 422);
  const retry = await server.request('POST', '/api/admin/user', { token: client.owner.token, body, headers: { 'idempotency-key': key } });
  assert.is(retry.status, 422, 'ran again, not replayed');
  assert.is(retry.headers.get('idempotency-replayed'), null);
});

keys('concurrent retries of POST /api/admin/user create one user: others are replays or 409 IDEMPOTENCY_IN_PROGRESS', async () => {
  const client = await buildClient(server);
  const before = await countUsers(client.owner.token);
  const key = randomUUID();
  const body = userBody();
  const answers = await Promise.all(
    Array.from({ length: 6 }, () =>
      server.request('POST', '/api/admin/user', { token: client.owner.token, body, headers: { 'idempotency-key': key } }),
    ),
  );
  const fresh = answers.filter((r) => r.status === 201 && r.headers.get('idempotency-replayed') === null);
  assert.is(fresh.length, 1, answers.map((r) => `${r.status} ${r.text}`).join('\n'));
  for (const r of answers) {
    if (r.status === 409) assert.is(r.body.error.code, 'IDEMPOTENCY_IN_PROGRESS');
    else {
      assert.is(r.status, 201);
      assert.is(r.body.data.id, fresh[0].body.data.id);
    }
  }
  assert.is(await countUsers(client.owner.token), before + 1);
});

keys('GraphQL createTemplate over POST: replay returns the same template; concurrent retries create one', async () => {
  const client = await buildClient(server);
  const query = 'mutation($i: CreateTemplateInput!) { createTemplate(input: $i) { template { id title } } }';
  const post = (key: string, title: string) =>
    server.request('POST', '/api/client/graphql', {
      token: client.owner.token,
      body: { query, variables: { i: { title } } },
      headers: { 'idempotency-key': key },
    });
  const key = randomUUID();
  const first = await post(key, 'Valve check');
  assert.is(first.status, 200, first.text);
  const again = await post(key, 'Valve check');
  assert.is(again.headers.get('idempotency-replayed'), 'true');
  assert.is(again.body.data.createTemplate.template.id, first.body.data.createTemplate.template.id);
  assert.is((await post(key, 'Another title')).body.error.code, 'IDEMPOTENCY_KEY_REUSED');
  const key2 = randomUUID();
  const answers = await Promise.all(Array.from({ length: 6 }, () => post(key2, 'Pump check')));
  const ids = new Set(answers.filter((r) => r.status === 200).map((r) => r.body.data.createTemplate.template.id));
  assert.is(ids.size, 1, answers.map((r) => `${r.status} ${r.text}`).join('\n'));
  for (const r of answers) if (r.status !== 200) assert.is(r.body.error.code, 'IDEMPOTENCY_IN_PROGRESS');
  const list = await server.request('POST', '/api/client/graphql', {
    token: client.owner.token,
    body: { query: '{ templates(first: 100) { edges { node { title } } } }' },
  });
  const titles = (list.body.data?.templates?.edges ?? []).map((e: { node: { title: string } }) => e.node.title);
  assert.is(titles.filter((t: string) => t === 'Pump check').length, 1, JSON.stringify(list.body));
});

// The floor app's offline queue (src/app/offline/sync.ts) resends a change whose answer was lost with the same key:
// the two writes it queues besides transitions — a photo upload and a step recording — must be recognised.
keys('POST /api/client/upload resent with the same key (a new multipart boundary): the first file again, one file stored', async () => {
  const client = await buildClient(server);
  const key = randomUUID();
  const send = async () => {
    const form = new FormData();
    form.append('file', new Blob([PNG], { type: 'image/png' }), 'photo.png');
    const res = await fetch(`${server.url}/api/client/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.owner.token}`, 'idempotency-key': key },
      body: form,
    });
    return { status: res.status, replayed: res.headers.get('idempotency-replayed'), body: (await res.json()) as any };
  };
  const first = await send();
  assert.is(first.status, 201, JSON.stringify(first.body));
  const again = await send();
  assert.is(again.status, 201);
  assert.is(again.replayed, 'true');
  assert.is(again.body.data.files[0].id, first.body.data.files[0].id);
  const stored = await server.deps.db.kysely.selectFrom('files').select('id').where('client_id', '=', client.id).execute();
  assert.is(stored.length, 1);
});

keys('POST /api/client/upload: the same key with another file of the same size is 422 IDEMPOTENCY_KEY_REUSED', async () => {
  const client = await buildClient(server);
  const key = randomUUID();
  const send = async (bytes: Uint8Array) => {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'image/png' }), 'photo.png');
    const res = await fetch(`${server.url}/api/client/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.owner.token}`, 'idempotency-key': key },
      body: form,
    });
    return { status: res.status, replayed: res.headers.get('idempotency-replayed'), body: (await res.json()) as any };
  };
  const first = await send(PNG);
  assert.is(first.status, 201, JSON.stringify(first.body));
  const other = Buffer.from(PNG);
  other[other.length - 1] ^= 0xff; // same size, another last byte
  const second = await send(other);
  assert.is(second.status, 422, JSON.stringify(second.body));
  assert.is(second.body.error.code, 'IDEMPOTENCY_KEY_REUSED');
  // the first file is still the key's answer
  const again = await send(PNG);
  assert.is(again.replayed, 'true');
  assert.is(again.body.data.files[0].id, first.body.data.files[0].id);
  const stored = await server.deps.db.kysely.selectFrom('files').select(['id', 'sha256']).where('client_id', '=', client.id).execute();
  assert.is(stored.length, 1);
});

keys('GraphQL recordStep resent with the same key and body: the first answer again, one record, one revision', async () => {
  const client = await buildClient(server);
  const { templateId } = await publishedTemplate(server, client);
  const job = await createJob(server, client.owner.token, { templateId });
  const query = 'mutation($i: RecordStepInput!) { recordStep(input: $i) { revision record { stepId } } }';
  const body = {
    query,
    variables: {
      i: { jobId: `Job:${job.id}`, stepId: 'measure', status: 'DONE', values: [{ key: 'torque', value: 15 }], expectedRevision: 1 },
    },
  };
  const key = randomUUID();
  const first = await server.request('POST', '/api/client/graphql', {
    token: client.owner.token,
    body,
    headers: { 'idempotency-key': key },
  });
  assert.is(first.body.data?.recordStep?.revision, 2, first.text);
  const again = await server.request('POST', '/api/client/graphql', {
    token: client.owner.token,
    body,
    headers: { 'idempotency-key': key },
  });
  assert.is(again.headers.get('idempotency-replayed'), 'true');
  assert.equal(again.body, first.body);
  const read = await server.request('POST', '/api/client/graphql', {
    token: client.owner.token,
    body: { query: 'query($id: ID!) { job(id: $id) { revision records { stepId } } }', variables: { id: `Job:${job.id}` } },
  });
  assert.equal(read.body.data.job, { revision: 2, records: [{ stepId: 'measure' }] });
});

keys('system administrators’ writes under /api/admin honour the key too', async () => {
  const token = await adminToken(server);
  const key = randomUUID();
  const body = {
    name: `Client ${randomUUID().slice(0, 6)}`,
    owner: { email: uniqueEmail(), password: 'correct-horse-battery' },
    seats: { full: 1 },
  };
  const first = await server.request('POST', '/api/admin/client', { token, body, headers: { 'idempotency-key': key } });
  assert.is(first.status, 201, first.text);
  const again = await server.request('POST', '/api/admin/client', { token, body, headers: { 'idempotency-key': key } });
  assert.is(again.headers.get('idempotency-replayed'), 'true');
  assert.is(again.body.data.id, first.body.data.id);
});

keys.run();
