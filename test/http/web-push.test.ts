import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser, PASSWORD } from '../helpers/factories';
import { issueTestLicense } from '../helpers/licenses';
import { FEATURES } from '#licensing/terms';
import { createJob, publishedTemplate, DOMAIN_TEST_ENV } from '../helpers/domain';
import { APPROVE, REJECT, SUBMIT, buildTeam, createTemplate, ok } from '../helpers/templates';
import { gql } from '../helpers/graphql';
import { startPushService, type PushService } from '../helpers/push-service';
import { loadOrCreateSecrets, secretsPath } from '#secrets';

let server: TestServer;
let pushService: PushService;
let vapidKey = '';
const push = suite('web push: subscriptions, VAPID, notifications of domain events through the push outbox');
push.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
  pushService = await startPushService(() => vapidKey);
});
push.after(async () => {
  await server.stop();
  await pushService.stop();
});

/** Waits for what the commit queued: the sender was kicked; deliverDue joins (or repeats) its run. */
async function delivered(): Promise<void> {
  await server.deps.push.deliverDue();
}

const subscribe = (token: string, body: unknown) => server.request('POST', '/api/client/push/subscribe', { token, body });

push('GET /api/client/push/vapid-key gives the VAPID public key: an uncompressed P-256 point, base64url', async () => {
  const client = await buildClient(server);
  const res = await server.request('GET', '/api/client/push/vapid-key', { token: client.owner.token });
  assert.is(res.status, 200, res.text);
  vapidKey = res.body.data.publicKey;
  const point = Buffer.from(vapidKey, 'base64url');
  assert.is(point.length, 65);
  assert.is(point[0], 0x04);
  assert.is(point.toString('base64url'), vapidKey);
  assert.is(vapidKey, server.deps.secrets.vapid.publicKey);
});

push('a data directory from before web push gets a VAPID key pair on upgrade; the other secrets stay', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-secrets-'));
  try {
    const old = { jwtSecret: 'j'.repeat(86), cookieKeys: ['cookie-key'] };
    fs.writeFileSync(secretsPath(dir), JSON.stringify(old), { mode: 0o600 });
    const upgraded = loadOrCreateSecrets(dir);
    assert.is(upgraded.created, false);
    assert.is(upgraded.secrets.jwtSecret, old.jwtSecret);
    assert.equal(upgraded.secrets.cookieKeys, old.cookieKeys);
    assert.is(Buffer.from(upgraded.secrets.vapid.publicKey, 'base64url').length, 65);
    assert.is(Buffer.from(upgraded.secrets.vapid.privateKey, 'base64url').length, 32);
    assert.is(fs.statSync(secretsPath(dir)).mode & 0o777, 0o600);
    assert.equal(loadOrCreateSecrets(dir).secrets, upgraded.secrets, 'generated once, then kept');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

push('subscribe validates the PushSubscription: https push services only, well-formed keys', async () => {
  const client = await buildClient(server);
  const { keys } = pushService.browser().subscription;
  const refusedEndpoints = [
    'http://push.example.com/x',
    'https://user:pw@push.example.com/x',
    'https://10.0.0.7/x',
    'https://192.168.1.1/x',
    'https://[fd00::1]/x',
    'ftp://push.example.com/',
    'not a url',
  ];
  for (const endpoint of refusedEndpoints) {
    const res = await subscribe(client.owner.token, { endpoint, keys });
    assert.is(res.status, 422, `${endpoint}: ${res.text}`);
    assert.is(res.body.error.code, 'VALIDATION_ERROR');
  }
  for (const bad of [
    { ...keys, p256dh: keys.p256dh.slice(2) },
    { ...keys, auth: 'c2hvcnQ' },
    { p256dh: Buffer.alloc(65, 3).toString('base64url'), auth: keys.auth },
  ]) {
    const res = await subscribe(client.owner.token, { endpoint: 'https://push.example.com/ok', keys: bad });
    assert.is(res.status, 422, res.text);
  }
  const ok201 = await subscribe(client.owner.token, { endpoint: 'https://push.example.com/ok', expirationTime: null, keys });
  assert.is(ok201.status, 201, ok201.text);
  assert.equal(ok201.body.data, { endpoint: 'https://push.example.com/ok', pushEnabled: true });
});

push('a job handed off to you arrives as a push: VAPID-signed, encrypted for your browser, only to your subscriptions', async () => {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const { templateId } = await publishedTemplate(server, client);
  const [a, b] = await Promise.all([0, 1].map(() => buildUser(server, client, { roles: ['operator'] })));
  const phone = pushService.browser();
  const laptop = pushService.browser();
  const senders = pushService.browser();
  for (const [token, browser] of [
    [b.token!, phone],
    [b.token!, laptop],
    [a.token!, senders],
  ] as const) {
    assert.is((await subscribe(token, browser.subscription)).status, 201);
  }
  const job = await createJob(server, client.owner.token, { templateId, assigneeIds: [a.id] });
  await delivered(); // a's job_assigned push is not the hand-off's
  const before = pushService.received.length;
  const res = await server.request('POST', '/api/client/workingTogether', {
    token: a.token,
    body: { action: 'HAND_OFF', jobId: job.id, toUserId: b.id, note: 'shift ends' },
  });
  assert.is(res.status, 200, res.text);
  await delivered();
  assert.equal(pushService.refused, []);
  const pushes = pushService.received.slice(before);
  assert.equal(
    pushes.map((p) => p.path).sort(),
    [new URL(phone.subscription.endpoint).pathname, new URL(laptop.subscription.endpoint).pathname].sort(),
  );
  for (const p of pushes) {
    assert.equal(p.message, {
      kind: 'hand_off',
      title: 'A job was handed off to you',
      body: `${job.title}: shift ends`,
      data: { jobId: job.id, handOffId: res.body.data.handOff.id, url: `/app/jobs/${job.id}` },
    });
    assert.ok(p.claims.exp! > Date.now() / 1000);
    assert.ok(Number(p.ttl) > 0);
  }
  // no mail server here: the hand-off is pushed, and no notification mail piles up in <data-dir>/outbox
  const mails = await server.deps.db.kysely.selectFrom('outbox').select('kind').where('client_id', '=', client.id).execute();
  assert.equal(
    mails.filter((m) => m.kind === 'hand_off' || m.kind === 'job_assigned'),
    [],
  );
});

push('a version awaiting approval notifies the approvers; rejection notifies the author, approval the publishers', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  const browsers = { author: pushService.browser(), approver: pushService.browser(), publisher: pushService.browser() };
  assert.is((await subscribe(team.author.token, browsers.author.subscription)).status, 201);
  assert.is((await subscribe(team.approver.token, browsers.approver.subscription)).status, 201);
  assert.is((await subscribe(team.publisher.token, browsers.publisher.subscription)).status, 201);
  const pathOf = (b: { subscription: { endpoint: string } }) => new URL(b.subscription.endpoint).pathname;
  const newPushes = async (from: number) => {
    await delivered();
    return pushService.received
      .slice(from)
      .map((p) => ({ to: p.path, kind: p.message.kind, body: p.message.body, versionId: p.message.data.versionId }));
  };

  const template = await createTemplate(server, team.author.token, { title: 'Valve check' });
  const v1 = template.latestVersion.id;
  const versionId = template.latestVersion.databaseId;
  let mark = pushService.received.length;
  ok(await gql(server, team.author.token, SUBMIT, { id: v1 }));
  assert.equal(await newPushes(mark), [{ to: pathOf(browsers.approver), kind: 'version_submitted', body: 'Valve check v1', versionId }]);

  mark = pushService.received.length;
  ok(await gql(server, team.approver.token, REJECT, { id: v1, reason: 'torque missing' }));
  assert.equal(await newPushes(mark), [
    { to: pathOf(browsers.author), kind: 'version_rejected', body: 'Valve check v1: torque missing', versionId },
  ]);

  ok(await gql(server, team.author.token, SUBMIT, { id: v1 }));
  await delivered();
  mark = pushService.received.length;
  ok(await gql(server, team.approver.token, APPROVE, { id: v1, password: PASSWORD }));
  assert.equal(await newPushes(mark), [{ to: pathOf(browsers.publisher), kind: 'version_approved', body: 'Valve check v1', versionId }]);
  assert.equal(pushService.refused, []);
});

/** An operator subscribed, and a way to cause a push to them (a hand-off from a colleague). */
async function handOffSetup() {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const { templateId } = await publishedTemplate(server, client);
  const [a, b] = await Promise.all([0, 1].map(() => buildUser(server, client, { roles: ['operator'] })));
  const browser = pushService.browser();
  assert.is((await subscribe(b.token!, browser.subscription)).status, 201);
  const handOff = async () => {
    const job = await createJob(server, client.owner.token, { templateId, assigneeIds: [a.id] });
    const res = await server.request('POST', '/api/client/workingTogether', {
      token: a.token,
      body: { action: 'HAND_OFF', jobId: job.id, toUserId: b.id },
    });
    assert.is(res.status, 200, res.text);
    await delivered();
    return job.id as number;
  };
  const pushesTo = () => pushService.received.filter((p) => p.path === new URL(browser.subscription.endpoint).pathname);
  return { client, b: { id: b.id, token: b.token! }, browser, handOff, pushesTo };
}

push("turn-push-notification {enabled:false} stops pushes to all of the user's browsers; true resumes them", async () => {
  const { b, handOff, pushesTo } = await handOffSetup();
  const off = await server.request('POST', '/api/client/turn-push-notification', { token: b.token, body: { enabled: false } });
  assert.is(off.status, 200, off.text);
  assert.equal(off.body.data, { enabled: false });
  await handOff();
  assert.is(pushesTo().length, 0);
  assert.is((await server.request('POST', '/api/client/turn-push-notification', { token: b.token, body: { enabled: true } })).status, 200);
  const jobId = await handOff();
  assert.equal(
    pushesTo().map((p) => p.message.data.jobId),
    [jobId],
  );
  assert.is((await server.request('POST', '/api/client/turn-push-notification', { token: b.token, body: { enabled: 'no' } })).status, 422);
});

push('unsubscribe removes the endpoint (idempotent); nothing more is pushed to it', async () => {
  const { b, browser, handOff, pushesTo } = await handOffSetup();
  const endpoint = browser.subscription.endpoint;
  const first = await server.request('DELETE', '/api/client/push/unsubscribe', { token: b.token, body: { endpoint } });
  assert.is(first.status, 200, first.text);
  assert.equal(first.body.data, { removed: true });
  assert.equal((await server.request('DELETE', '/api/client/push/unsubscribe', { token: b.token, body: { endpoint } })).body.data, {
    removed: false,
  });
  await handOff();
  assert.is(pushesTo().length, 0);
});

push('a failing push service is retried with backoff, never blocking the request; 410 Gone deletes the subscription', async () => {
  const { b, browser, handOff, pushesTo } = await handOffSetup();
  pushService.answer.push(503);
  const started = Date.now();
  const jobId = await handOff();
  assert.ok(Date.now() - started < 5000);
  assert.is(pushesTo().length, 0, 'the first attempt failed');
  const row = await server.deps.db.kysely
    .selectFrom('push_outbox')
    .selectAll()
    .where(
      'client_id',
      '=',
      (await server.deps.db.kysely.selectFrom('users').select('client_id').where('id', '=', b.id).executeTakeFirstOrThrow()).client_id,
    )
    .executeTakeFirstOrThrow();
  assert.is(row.status, 'pending');
  assert.is(row.attempts, 1);
  assert.match(row.last_error ?? '', /503/);
  // not before the backoff has passed
  assert.is(await server.deps.push.deliverDue(), 0);
  server.clock.advance(31_000);
  assert.is(await server.deps.push.deliverDue(), 1);
  assert.equal(
    pushesTo().map((p) => p.message.data.jobId),
    [jobId],
  );

  pushService.answer.push(410);
  await handOff();
  const left = await server.deps.db.kysely
    .selectFrom('push_subscriptions')
    .select('id')
    .where('endpoint', '=', browser.subscription.endpoint)
    .execute();
  assert.equal(left, []);
  const queued = await server.deps.db.kysely
    .selectFrom('push_outbox')
    .select('id')
    .where('subscription_id', '=', row.subscription_id)
    .execute();
  assert.equal(queued, [], 'what was queued for it went with it');
});

push('a license key replaced by one without the push feature stops pushes to browsers that subscribed before', async () => {
  const { browser, handOff, pushesTo } = await handOffSetup();
  const install = async (features: readonly string[]) => {
    const res = await server.request('POST', '/api/admin/license-on-prem', {
      token: await adminToken(server),
      body: { licenseKey: issueTestLicense({ features: [...features] as never }) },
    });
    assert.is(res.status, 200, res.text);
  };
  const queued = async () =>
    (
      await server.deps.db.kysely
        .selectFrom('push_outbox')
        .select('id')
        .where(
          'subscription_id',
          'in',
          server.deps.db.kysely.selectFrom('push_subscriptions').select('id').where('endpoint', '=', browser.subscription.endpoint),
        )
        .execute()
    ).length;
  await handOff();
  assert.is(pushesTo().length, 1, 'licensed: pushed');
  const queuedBefore = await queued();
  await install(FEATURES.filter((f) => f !== 'push'));
  try {
    await handOff();
    assert.is(pushesTo().length, 1, 'nothing more is pushed');
    assert.is(await queued(), queuedBefore, 'nor queued');
  } finally {
    await install(FEATURES);
  }
  await handOff();
  assert.is(pushesTo().length, 2, 'licensed again: pushed again');
});

push.run();
