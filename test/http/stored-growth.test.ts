import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser, PASSWORD, uniqueEmail } from '../helpers/factories';
import { waitFor } from '../helpers/wait';
import { startMaintenance } from '#ops/maintenance';
import { outboxDir } from '#mail/outbox-files';

// What callers can make the server keep: rows per attacker-chosen value must
// end, and rows must not hold caller-chosen strings of any length.

let server: TestServer;

const growth = suite('stored growth');
growth.before(async () => {
  // every failure locks its email at once; the request budgets and the IP lock are not what is under test
  server = await startTestServer({
    env: { WIP_LOCKOUT_MAX_FAILURES: '1', WIP_LOCKOUT_IP_MAX_FAILURES: '100000', WIP_SIGN_IN_RATE_LIMIT_MAX: '100000' },
  });
});
growth.after(async () => server.stop());

const emailLocks = async () =>
  Number(
    (
      await server.deps.db.kysely
        .selectFrom('auth_lockouts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('key', 'like', 'email:%')
        .executeTakeFirstOrThrow()
    ).n,
  );

growth('sign-ins with ever new unknown emails leave only the locks still in force', async () => {
  const before = await emailLocks();
  for (let i = 0; i < 20; i++) {
    const res = await server.request('POST', '/api/client/auth/sign-in', {
      body: { email: uniqueEmail('ghost'), password: 'wrong-password' },
    });
    assert.is(res.status, 429, res.text);
  }
  assert.is(await emailLocks(), before + 20);
  // the locks ended; the next failure must not find them all still stored
  server.clock.advance(server.deps.config.lockoutDuration + 1000);
  const next = await server.request('POST', '/api/client/auth/sign-in', {
    body: { email: uniqueEmail('ghost'), password: 'wrong-password' },
  });
  assert.is(next.status, 429, next.text);
  assert.is(await emailLocks(), 1);
});

growth('a refused credential stores neither a body-sized reason nor a header-sized user agent', async () => {
  // a directory token is read before it is verified: its tenant is the caller's text
  const claims = { iss: 'https://login.example.test/', tid: 't'.repeat(5000), exp: Math.floor(server.clock.now().getTime() / 1000) + 3600 };
  const token = ['e30', Buffer.from(JSON.stringify(claims)).toString('base64url'), 'c2ln'].join('.');
  const requestId = randomUUID();
  const userAgent = 'agent/'.repeat(1000);
  const res = await server.request('GET', '/api/client/auth/me', {
    token,
    headers: { 'user-agent': userAgent, 'x-request-id': requestId },
  });
  // refused (and, one failure being the limit here, locked)
  assert.is(res.status, 429, res.text);
  const failed = await server.request('POST', '/api/client/auth/sign-in', {
    body: { email: uniqueEmail('ghost'), password: 'wrong-password' },
    headers: { 'user-agent': userAgent, 'x-request-id': requestId },
  });
  assert.is(failed.status, 429, failed.text);
  const rows = await server.deps.db.kysely.selectFrom('logs').selectAll().where('request_id', '=', requestId).execute();
  assert.ok(
    rows.some((row) => row.event === 'auth.sso_refused'),
    JSON.stringify(rows.map((row) => row.event)),
  );
  assert.ok(rows.some((row) => row.event === 'auth.sign_in_failed'));
  for (const row of rows) {
    const bytes = row.message.length + row.data.length + (row.user_agent ?? '').length;
    assert.ok(bytes < 2048, `${row.event}: ${bytes} characters stored`);
    // still recognisable: the start is kept
    assert.ok(row.user_agent!.startsWith('agent/agent/'));
  }
});

growth('maintenance deletes refresh tokens and emailed tokens that can no longer be used', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  const signedIn = await server.request('POST', '/api/client/auth/sign-in-v2', { body: { email: user.email, password: PASSWORD } });
  assert.is(signedIn.status, 200, signedIn.text);
  let refreshToken: string = signedIn.body.data.refreshToken;
  // each refresh rotates: one more row a time
  for (let i = 0; i < 5; i++) {
    const res = await server.request('POST', '/api/client/auth/refresh', { body: { refreshToken } });
    assert.is(res.status, 200, res.text);
    refreshToken = res.body.data.refreshToken;
  }
  assert.is((await server.request('POST', '/api/client/auth/forgot', { body: { email: user.email } })).status, 200);
  const db = server.deps.db.kysely;
  await waitFor('the reset token', () =>
    db.selectFrom('user_tokens').select('id').where('user_id', '=', user.id).where('purpose', '=', 'reset').executeTakeFirst(),
  );
  const refreshRows = () =>
    db
      .selectFrom('refresh_tokens')
      .innerJoin('sessions', 'sessions.id', 'refresh_tokens.session_id')
      .select('refresh_tokens.id')
      .where('sessions.user_id', '=', user.id)
      .execute();
  assert.ok((await refreshRows()).length >= 6);

  // while they can still be used (or a rotated one still tells reuse), they stay
  const maintenance = startMaintenance(server.deps);
  try {
    await maintenance.runOnce({ backups: false });
    assert.ok((await refreshRows()).length >= 6);
    server.clock.advance(server.deps.config.refreshTokenTtl + 60_000);
    // a new round prunes at most daily
    const later = startMaintenance(server.deps);
    try {
      await later.runOnce({ backups: false });
    } finally {
      await later.stop();
    }
  } finally {
    await maintenance.stop();
  }
  assert.is((await refreshRows()).length, 0);
  assert.is((await db.selectFrom('user_tokens').select('id').where('user_id', '=', user.id).execute()).length, 0);
  // the sessions themselves stay: usage reports count sign-ins from them
  assert.ok((await db.selectFrom('sessions').select('id').where('user_id', '=', user.id).execute()).length > 0);
});

growth('maintenance deletes mail and pushes delivered or failed longer ago than outboxRetention, never a pending one', async () => {
  const DAY = 86_400_000;
  const retention = server.deps.config.outboxRetention;
  assert.is(retention, 30 * DAY, 'the default');
  const db = server.deps.db.kysely;
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  const stamp = () => server.clock.now().toISOString();
  const farFuture = () => new Date(server.clock.now().getTime() + 365 * DAY).toISOString();

  // a real password-reset mail: without SMTP it is stored, as <data-dir>/outbox/<id>.eml
  const storedMail = async () => {
    const before =
      (
        await db
          .selectFrom('outbox')
          .select((eb) => eb.fn.max('id').as('id'))
          .executeTakeFirst()
      )?.id ?? 0;
    assert.is((await server.request('POST', '/api/client/auth/forgot', { body: { email: user.email } })).status, 200);
    return (
      await waitFor('the stored reset mail', () =>
        db
          .selectFrom('outbox')
          .select('id')
          .where('to_address', '=', user.email)
          .where('id', '>', Number(before))
          .where('status', '=', 'stored')
          .executeTakeFirst(),
      )
    ).id;
  };
  // the other states as the senders leave them; a pending row waits for a retry the test does not reach
  const mailRow = async (status: 'sent' | 'failed' | 'pending') =>
    (
      await db
        .insertInto('outbox')
        .values({
          client_id: client.id,
          user_id: user.id,
          kind: 'password_reset',
          to_address: user.email,
          subject: `a ${status} mail`,
          text_body: status === 'sent' ? '' : 'the body',
          status,
          attempts: status === 'pending' ? 3 : 10,
          next_attempt_at: status === 'pending' ? farFuture() : stamp(),
          last_error: status === 'sent' ? null : 'connection refused',
          sent_at: status === 'sent' ? stamp() : null,
          created_at: stamp(),
          updated_at: stamp(),
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  const subscription = await db
    .insertInto('push_subscriptions')
    .values({
      client_id: client.id,
      user_id: user.id,
      endpoint: 'https://push.example.test/sub',
      p256dh: 'key',
      auth: 'auth',
      created_at: stamp(),
      updated_at: stamp(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const pushRow = async (status: 'sent' | 'failed' | 'pending') =>
    (
      await db
        .insertInto('push_outbox')
        .values({
          client_id: client.id,
          subscription_id: subscription.id,
          kind: 'job_assigned',
          payload: '{}',
          status,
          attempts: 1,
          next_attempt_at: status === 'pending' ? farFuture() : stamp(),
          last_error: null,
          sent_at: status === 'sent' ? stamp() : null,
          created_at: stamp(),
          updated_at: stamp(),
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  const webhook = await db
    .insertInto('webhooks')
    .values({
      client_id: client.id,
      url: 'https://hooks.example.test/',
      description: '',
      events: '[]',
      active: 1,
      secret: 'sealed',
      previous_secret: null,
      previous_secret_expires_at: null,
      failing_since: null,
      disabled_reason: null,
      created_at: stamp(),
      updated_at: stamp(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const delivery = async (status: 'succeeded' | 'pending') => {
    const event = await db
      .insertInto('events')
      .values({
        client_id: client.id,
        public_id: `evt_${randomUUID()}`,
        type: 'version.approved',
        template_id: null,
        payload: '{}',
        created_at: stamp(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return (
      await db
        .insertInto('webhook_deliveries')
        .values({
          client_id: client.id,
          webhook_id: webhook.id,
          event_id: event.id,
          status,
          attempts: 1,
          next_attempt_at: status === 'pending' ? farFuture() : stamp(),
          created_at: stamp(),
          updated_at: stamp(),
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  };

  const old = {
    stored: await storedMail(),
    sent: await mailRow('sent'),
    failed: await mailRow('failed'),
    pending: await mailRow('pending'),
    pushSent: await pushRow('sent'),
    pushFailed: await pushRow('failed'),
    pushPending: await pushRow('pending'),
    delivered: await delivery('succeeded'),
    delivering: await delivery('pending'),
  };
  const eml = (id: number) => path.join(outboxDir(server.dataDir), `${id}.eml`);
  assert.ok(fs.existsSync(eml(old.stored)));
  const round = async () => {
    // a fresh maintenance prunes at once (one already running prunes at most daily)
    const maintenance = startMaintenance(server.deps);
    try {
      await maintenance.runOnce({ backups: false });
    } finally {
      await maintenance.stop();
    }
  };
  const mailIds = async () =>
    (await db.selectFrom('outbox').select('id').where('user_id', '=', user.id).orderBy('id').execute()).map((r) => r.id);
  const pushIds = async () =>
    (await db.selectFrom('push_outbox').select('id').where('client_id', '=', client.id).orderBy('id').execute()).map((r) => r.id);
  const deliveryIds = async () =>
    (await db.selectFrom('webhook_deliveries').select('id').where('client_id', '=', client.id).orderBy('id').execute()).map((r) => r.id);

  // an hour short of the retention: everything stays
  server.clock.advance(retention - 3_600_000);
  await round();
  assert.equal(await mailIds(), [old.stored, old.sent, old.failed, old.pending]);
  assert.equal(await pushIds(), [old.pushSent, old.pushFailed, old.pushPending]);

  server.clock.advance(2 * 3_600_000);
  const recent = await storedMail();
  await round();
  // pending ones stay however old; what was finished within the retention stays
  assert.equal(await mailIds(), [old.pending, recent]);
  assert.equal(await pushIds(), [old.pushPending]);
  assert.is(fs.existsSync(eml(old.stored)), false, 'the .eml of a pruned row goes with it');
  assert.ok(fs.existsSync(eml(recent)));
  // webhook deliveries go with their event after eventRetention (72h), unless still being delivered
  assert.equal(await deliveryIds(), [old.delivering]);
});

growth.run();
