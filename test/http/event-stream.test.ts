import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EventSource } from 'eventsource';
import { CLIENT_EVENT_TYPES } from '#events/catalogue';
import { startTestServer, type TestServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';
import { buildClient, buildUser, uniqueEmail, type BuiltClient } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { DOMAIN_TEST_ENV, SAMPLE_CONTENT, contentInput, createJob, publishedTemplate } from '../helpers/domain';

let server: TestServer;
const stream = suite('GET /api/client/events (Server-Sent Events)');
stream.before(async () => {
  server = await startTestServer({ env: { ...DOMAIN_TEST_ENV, WIP_EVENT_STREAM_HEARTBEAT: '200ms', WIP_EVENT_STREAM_MAX_PER_USER: '2' } });
});
stream.after(async () => server.stop());

interface Received {
  id: string;
  type: string;
  payload: any;
}

/** A real EventSource client (the `eventsource` package) with a bearer token, collecting events. */
function open(token: string, lastEventId?: string) {
  const received: Received[] = [];
  const errors: unknown[] = [];
  const source = new EventSource(`${server.url}/api/client/events`, {
    fetch: (input, init) =>
      fetch(input, {
        ...init,
        headers: {
          ...(init?.headers as Record<string, string>),
          authorization: `Bearer ${token}`,
          ...(lastEventId && { 'last-event-id': lastEventId }),
        },
      }),
  });
  const onMessage = (e: MessageEvent) => received.push({ id: e.lastEventId, type: e.type, payload: JSON.parse(e.data) });
  for (const type of CLIENT_EVENT_TYPES) {
    source.addEventListener(type, onMessage);
  }
  source.onerror = (e) => errors.push(e);
  const opened = new Promise<void>((resolve, reject) => {
    source.onopen = () => resolve();
    setTimeout(() => reject(new Error('stream did not open')), 15_000).unref();
  });
  return { source, received, errors, opened };
}

const createUser = (client: BuiltClient, email = uniqueEmail()) =>
  server.request('POST', '/api/admin/user', {
    token: client.owner.token,
    body: { email, roles: ['operator'], licenseType: 'full', password: 'correct-horse-battery' },
  });

stream('events of the caller’s client arrive live, and a reconnect with Last-Event-ID replays what was missed', async () => {
  const client = await buildClient(server);
  const first = open(client.owner.token);
  await first.opened;
  const email = uniqueEmail();
  await createUser(client, email);
  const live = await waitFor('user.created', () => first.received.find((e) => e.type === 'user.created'));
  assert.is(live.payload.data.email, email);
  assert.is(live.payload.type, 'user.created');
  assert.match(live.id, /^\d+$/);
  first.source.close();
  // missed while disconnected
  const missed = [uniqueEmail(), uniqueEmail()];
  for (const m of missed) await createUser(client, m);
  const resumed = open(client.owner.token, live.id);
  await resumed.opened;
  await waitFor('the two missed events', () => resumed.received.length >= 2);
  assert.equal(
    resumed.received.map((e) => e.payload.data.email),
    missed,
  );
  assert.not.ok(
    resumed.received.some((e) => e.payload.data.email === email),
    'nothing before Last-Event-ID',
  );
  resumed.source.close();
});

stream('another client’s events never reach the stream', async () => {
  const a = await buildClient(server);
  const b = await buildClient(server);
  const sb = open(b.owner.token);
  await sb.opened;
  await createUser(a);
  const mine = uniqueEmail();
  await createUser(b, mine);
  await waitFor('client B’s own event', () => sb.received.find((e) => e.payload.data.email === mine));
  assert.ok(
    sb.received.every((e) => e.payload.data.clientId === b.id),
    JSON.stringify(sb.received),
  );
  // resuming from 0 replays only the client's own events too
  sb.source.close();
  const replay = open(b.owner.token, '0');
  await replay.opened;
  // a stream sends in the order of the events: client A's, written before `mine`, would have come before it
  await waitFor('the replay up to client B’s own event', () => replay.received.find((e) => e.payload.data.email === mine));
  assert.ok(replay.received.every((e) => e.payload.data.clientId === b.id));
  replay.source.close();
});

stream('sign-out closes the stream, and the session’s token cannot reopen it', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client, { roles: ['operator'] });
  const s = open(user.token!);
  await s.opened;
  const out = await server.request('POST', '/api/client/auth/sign-out', { token: user.token });
  assert.is(out.status, 200, out.text);
  // the connection ends; the client's reconnect is refused (401), which closes the EventSource for good.
  // The reconnect comes only after the server's `retry: 3000`: a 5 s wait left 2 s for it on a loaded machine
  await waitFor('the stream to close', () => s.source.readyState === EventSource.CLOSED);
  assert.ok(s.errors.length > 0);
});

stream('a disabled user’s stream is closed', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client, { roles: ['operator'] });
  const s = open(user.token!);
  await s.opened;
  const res = await server.request('PUT', '/api/admin/user', { token: client.owner.token, body: { id: user.id, disabled: true } });
  assert.is(res.status, 200, res.text);
  // closed once the reconnect (after the server's `retry: 3000`) is refused
  await waitFor('the stream to close', () => s.source.readyState === EventSource.CLOSED);
});

stream('heartbeats keep an idle stream open; the per-user limit answers 429', async () => {
  const client = await buildClient(server);
  const raw = await fetch(`${server.url}/api/client/events`, { headers: { authorization: `Bearer ${client.owner.token}` } });
  assert.is(raw.status, 200);
  assert.match(raw.headers.get('content-type') ?? '', /text\/event-stream/);
  const reader = raw.body!.getReader();
  let text = '';
  const deadline = Date.now() + 3_000;
  while (!text.includes(': heartbeat') && Date.now() < deadline) text += new TextDecoder().decode((await reader.read()).value);
  assert.match(text, /: heartbeat/);
  const second = await fetch(`${server.url}/api/client/events`, { headers: { authorization: `Bearer ${client.owner.token}` } });
  assert.is(second.status, 200);
  const third = await fetch(`${server.url}/api/client/events`, { headers: { authorization: `Bearer ${client.owner.token}` } });
  assert.is(third.status, 429);
  await reader.cancel();
  await second.body!.cancel();
  const noToken = await fetch(`${server.url}/api/client/events`);
  assert.is(noToken.status, 401);
});

stream('template events respect organization visibility; job and step events name out-of-limits fields', async () => {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const org = await gql(
    server,
    client.owner.token,
    'mutation($i: CreateOrganizationInput!) { createOrganization(input: $i) { organization { id } } }',
    { i: { name: 'Plant A' } },
  );
  assert.equal(org.codes, []);
  const outsider = await buildUser(server, client, { roles: ['operator'] });
  const outsiderStream = open(outsider.token!);
  const ownerStream = open(client.owner.token);
  try {
    await Promise.all([outsiderStream.opened, ownerStream.opened]);
    // a template only Plant A sees, published
    const { templateId } = await publishedTemplate(server, client, SAMPLE_CONTENT, 'Plant A only');
    const restricted = await gql(
      server,
      client.owner.token,
      'mutation($i: UpdateTemplateInput!) { updateTemplate(input: $i) { template { id } } }',
      {
        i: { templateId: `Template:${templateId}`, organizationIds: [org.data.createOrganization.organization.id] },
      },
    );
    assert.equal(restricted.codes, [], JSON.stringify(restricted.errors));
    const job = await createJob(server, client.owner.token, { templateId });
    const rec = await gql(server, client.owner.token, 'mutation($i: RecordStepInput!) { recordStep(input: $i) { revision } }', {
      i: { jobId: `Job:${job.id}`, stepId: 'measure', status: 'DONE', values: [{ key: 'torque', value: 99 }] },
    });
    assert.equal(rec.codes, [], JSON.stringify(rec.errors));
    const recorded = await waitFor('job.step.recorded', () => ownerStream.received.find((e) => e.type === 'job.step.recorded'));
    assert.equal(recorded.payload.data.outOfLimits, ['torque']);
    assert.is(recorded.payload.data.job.id, job.id);
    assert.ok(ownerStream.received.some((e) => e.type === 'job.started'));
    assert.ok(
      ownerStream.received.some((e) => e.type === 'template.version.published'),
      'the admin sees the publication',
    );
    await waitFor('the outsider to see the job', () => outsiderStream.received.find((e) => e.type === 'job.step.recorded'));
    // published before the restriction: visible then; publish a template restricted from the start and check again
    const before = outsiderStream.received.length;
    const hidden = await gql(
      server,
      client.owner.token,
      'mutation($i: CreateTemplateInput!) { createTemplate(input: $i) { template { id: databaseId } version { id } } }',
      {
        i: { title: 'Hidden', content: contentInput(SAMPLE_CONTENT), organizationIds: [org.data.createOrganization.organization.id] },
      },
    );
    assert.equal(hidden.codes, []);
    const submit = await gql(
      server,
      client.owner.token,
      'mutation($v: ID!) { submitVersion(input: { versionId: $v }) { version { id } } }',
      { v: hidden.data.createTemplate.version.id },
    );
    assert.equal(submit.codes, []);
    await waitFor('the owner to see the submission', () =>
      ownerStream.received.find(
        (e) => e.payload.type === 'template.version.submitted' && e.payload.data.templateId === hidden.data.createTemplate.template.id,
      ),
    );
    // a later event the outsider does see: a stream sends in the order of the events, so the template's would
    // have come before it
    const marker = uniqueEmail();
    assert.is((await createUser(client, marker)).status, 201);
    await waitFor('the outsider to see the later event', () => outsiderStream.received.find((e) => e.payload.data.email === marker));
    assert.not.ok(
      outsiderStream.received.slice(before).some((e) => e.payload.data.templateId === hidden.data.createTemplate.template.id),
      'a user outside the organization does not see the template’s events',
    );
  } finally {
    outsiderStream.source.close();
    ownerStream.source.close();
  }
});

stream('a stream follows its caller’s roles as they change: a role taken away hides what it showed', async () => {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const org = await gql(
    server,
    client.owner.token,
    'mutation($i: CreateOrganizationInput!) { createOrganization(input: $i) { organization { id } } }',
    { i: { name: 'Plant B' } },
  );
  assert.equal(org.codes, []);
  // an administrator sees every template; without that role, only those of the user's organizations (none here)
  const user = await buildUser(server, client, { roles: ['operator', 'admin'] });
  const submitted = async (title: string, organizationIds: string[]) => {
    const created = await gql(
      server,
      client.owner.token,
      'mutation($i: CreateTemplateInput!) { createTemplate(input: $i) { template { id: databaseId } version { id } } }',
      {
        i: { title, content: contentInput(SAMPLE_CONTENT), organizationIds },
      },
    );
    assert.equal(created.codes, [], JSON.stringify(created.errors));
    const submit = await gql(
      server,
      client.owner.token,
      'mutation($v: ID!) { submitVersion(input: { versionId: $v }) { version { id } } }',
      { v: created.data.createTemplate.version.id },
    );
    assert.equal(submit.codes, []);
    return created.data.createTemplate.template.id as number;
  };
  const seen = (s: ReturnType<typeof open>, templateId: number) => s.received.find((e) => e.payload.data?.templateId === templateId);
  const userStream = open(user.token!);
  try {
    await userStream.opened;
    const first = await submitted('Plant B, while an administrator', [org.data.createOrganization.organization.id]);
    await waitFor('the administrator to see the restricted template', () => seen(userStream, first));
    const demoted = await server.request('PUT', '/api/admin/user', {
      token: client.owner.token,
      body: { id: user.id, roles: ['operator'] },
    });
    assert.is(demoted.status, 200, demoted.text);
    const hidden = await submitted('Plant B, after the role was taken away', [org.data.createOrganization.organization.id]);
    // an event the user may see, after the hidden one: the stream sends in order, so once it is here the hidden one was decided
    const open_ = await submitted('Everyone', []);
    await waitFor('the unrestricted template to arrive', () => seen(userStream, open_));
    assert.not.ok(seen(userStream, hidden), 'the restricted template’s event reached a user who is no longer an administrator');
  } finally {
    userStream.source.close();
  }
});

stream.run();
