import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser, PASSWORD, type BuiltClient } from '../helpers/factories';
import { createJob, publishedTemplate, DOMAIN_TEST_ENV } from '../helpers/domain';
import { APPROVE, REJECT, SUBMIT, buildTeam, createTemplate, ok } from '../helpers/templates';
import { gql } from '../helpers/graphql';
import { startPushService, type PushService, type TestBrowser } from '../helpers/push-service';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp';
import { startWebhookReceiver, verifyDelivery, type WebhookReceiver } from '../helpers/webhook-receiver';
import { waitFor } from '../helpers/wait';
import { NOTIFICATION_KINDS } from '#services/notifications';

// Notifications of work waiting for someone, through real
// peers: mail reaches an SMTP server, pushes a push service that checks VAPID
// and decrypts them as a browser would, events a webhook receiver.

let server: TestServer;
let smtp: TestSmtp;
let pushService: PushService;
let receiver: WebhookReceiver;

const notifications = suite('notifications: mail and web push when work waits for someone, per user preferences and language');
notifications.before(async () => {
  smtp = await startTestSmtp();
  receiver = await startWebhookReceiver();
  server = await startTestServer({
    env: {
      ...DOMAIN_TEST_ENV,
      WIP_SMTP_URL: smtp.url,
      WIP_PUBLIC_URL: 'https://wip.example.test/',
      WIP_MAIL_POLL_INTERVAL: '50ms',
      WIP_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
      WIP_WEBHOOK_POLL_INTERVAL: '100ms',
    },
  });
  pushService = await startPushService(() => server.deps.secrets.vapid.publicKey);
});
notifications.after(async () => {
  await server.stop();
  await Promise.all([smtp.stop(), pushService.stop(), receiver.close()]);
});

interface Person {
  id: number;
  email: string;
  token: string;
  browser: TestBrowser;
}

/** A user of the client, signed in, with a subscribed browser. */
async function person(client: BuiltClient, roles: string[]): Promise<Person> {
  const user = await buildUser(server, client, { roles });
  return subscribed({ id: user.id, email: user.email, token: user.token! });
}

async function subscribed(user: { id: number; email: string; token: string }): Promise<Person> {
  const browser = pushService.browser();
  const res = await server.request('POST', '/api/client/push/subscribe', { token: user.token, body: browser.subscription });
  assert.is(res.status, 201, res.text);
  return { ...user, browser };
}

const owner = (client: BuiltClient) => subscribed(client.owner);

const preferences = (token: string, body: unknown) =>
  server.request('PUT', '/api/client/account/notification-preferences', { token, body });

const pathOf = (p: Person) => new URL(p.browser.subscription.endpoint).pathname;

/**
 * What an action sent: the notification mails (by recipient) and pushes (by
 * browser), once the commit's queued rows are delivered.
 */
async function sentBy(action: () => Promise<unknown>) {
  await delivered(); // what earlier steps queued is not this action's
  const mailMark = smtp.messages.length;
  const pushMark = pushService.received.length;
  await action();
  await delivered();
  const mails = smtp.messages
    .slice(mailMark)
    .filter((m) => (NOTIFICATION_KINDS as readonly string[]).includes(m.headers['x-wip-mail-kind'] ?? ''));
  const pushes = pushService.received.slice(pushMark);
  assert.equal(pushService.refused, []);
  return {
    mails,
    pushes,
    /** recipients of mail, sorted */
    mailedTo: mails.flatMap((m) => m.to).sort(),
    /** browsers pushed to, sorted */
    pushedTo: pushes.map((p) => p.path).sort(),
    mailTo: (p: Person) => mails.find((m) => m.to.includes(p.email)),
    pushTo: (p: Person) => pushes.find((push) => push.path === pathOf(p))?.message,
  };
}

/** Waits for what the commits so far queued: the senders were kicked; deliverDue joins (or repeats) their run. */
async function delivered(): Promise<void> {
  await server.deps.mailer.deliverDue();
  await server.deps.push.deliverDue();
}

const emails = (...people: Person[]) => people.map((p) => p.email).sort();
const paths = (...people: Person[]) => people.map(pathOf).sort();

async function hook(client: BuiltClient, events: string[]) {
  const res = await server.request('POST', '/api/client/webhooks', { token: client.owner.token, body: { url: receiver.url, events } });
  assert.is(res.status, 201, res.text);
  return res.body.data as { id: number; secret: string };
}

/** The events of `type` the receiver got for this hook's secret (deliveries of other clients' hooks fail to verify). */
async function received(secret: string, type: string, count = 1): Promise<any[]> {
  const mine = () =>
    receiver.received.flatMap((d) => {
      try {
        const payload = verifyDelivery(secret, d);
        return payload.type === type ? [payload] : [];
      } catch {
        return [];
      }
    });
  await waitFor(`${count} ${type} webhook deliveries`, () => mine().length >= count);
  return mine();
}

// ── preferences ─────────────────────────────────────────────────────────────

notifications(
  "GET/PUT /api/client/account/notification-preferences: every kind on by default; changes are partial, validated and the caller's own",
  async () => {
    const client = await buildClient(server);
    const a = await buildUser(server, client, { roles: ['operator'] });
    const b = await buildUser(server, client, { roles: ['operator'] });
    const allOn = Object.fromEntries(NOTIFICATION_KINDS.map((k) => [k, true]));
    const get = (token: string) => server.request('GET', '/api/client/account/notification-preferences', { token });

    const initial = await get(a.token!);
    assert.is(initial.status, 200, initial.text);
    assert.equal(initial.body, { success: true, data: { language: null, kinds: allOn } });

    const changed = await preferences(a.token!, { language: 'DE-at', kinds: { hand_off: false } });
    assert.is(changed.status, 200, changed.text);
    assert.equal(changed.body.data, { language: 'de-AT', kinds: { ...allOn, hand_off: false } });
    const more = await preferences(a.token!, { kinds: { fault_raised: false } });
    assert.equal(
      more.body.data,
      { language: 'de-AT', kinds: { ...allOn, hand_off: false, fault_raised: false } },
      'omitted fields keep their values',
    );
    assert.equal((await get(a.token!)).body.data, more.body.data);
    assert.equal((await get(b.token!)).body.data, { language: null, kinds: allOn }, "another user's are untouched");
    assert.equal((await preferences(a.token!, { language: null, kinds: { hand_off: true } })).body.data, {
      language: null,
      kinds: { ...allOn, fault_raised: false },
    });

    for (const bad of [
      { kinds: { coffee_ready: false } },
      { kinds: { hand_off: 'no' } },
      { language: 'not a tag!' },
      { language: 42 },
      { colour: 'blue' },
      [],
    ]) {
      const res = await preferences(a.token!, bad);
      assert.is(res.status, 422, `${JSON.stringify(bad)}: ${res.text}`);
      assert.is(res.body.success, false);
      assert.is(res.body.error.code, 'VALIDATION_ERROR');
    }
    assert.is((await server.request('GET', '/api/client/account/notification-preferences')).status, 401);
    const removed = await server.request('DELETE', `/api/admin/user/${a.id}`, { token: client.owner.token });
    assert.is(removed.status, 200, `a user with preferences is deleted with them: ${removed.text}`);
    assert.is(
      (await server.request('PUT', '/api/client/account/notification-preferences', { body: { kinds: { hand_off: false } } })).status,
      401,
    );
    const admin = await server.request('GET', '/api/client/account/notification-preferences', { token: await adminToken(server) });
    assert.is(admin.status, 403, 'a system administrator has no client account');
  },
);

notifications('GraphQL: notificationPreferences and setNotificationPreferences read and change the same preferences', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client, { roles: ['operator'] });
  const PREFS = 'language kinds { kind enabled }';
  const read = ok(await gql(server, user.token, `{ notificationPreferences { ${PREFS} } }`)).notificationPreferences;
  assert.equal(read, { language: null, kinds: NOTIFICATION_KINDS.map((kind) => ({ kind, enabled: true })) });

  const SET = `mutation ($input: NotificationPreferencesInput!) { setNotificationPreferences(input: $input) { preferences { ${PREFS} } } }`;
  const set = ok(await gql(server, user.token, SET, { input: { language: 'de-at', kinds: [{ kind: 'job_assigned', enabled: false }] } }))
    .setNotificationPreferences.preferences;
  assert.is(set.language, 'de-AT');
  assert.equal(
    set.kinds.filter((k: any) => !k.enabled),
    [{ kind: 'job_assigned', enabled: false }],
  );
  const rest = await server.request('GET', '/api/client/account/notification-preferences', { token: user.token });
  assert.equal(rest.body.data.kinds.job_assigned, false);
  assert.is(rest.body.data.language, 'de-AT');
  // omitted: unchanged; null: back to the default
  assert.is(ok(await gql(server, user.token, SET, { input: { kinds: [] } })).setNotificationPreferences.preferences.language, 'de-AT');
  assert.is(ok(await gql(server, user.token, SET, { input: { language: null } })).setNotificationPreferences.preferences.language, null);

  const badTag = await gql(server, user.token, SET, { input: { language: 'not a tag!' } });
  assert.equal(badTag.codes, ['VALIDATION_ERROR']);
  const badKind = await gql(server, user.token, SET, { input: { kinds: [{ kind: 'coffee_ready', enabled: false }] } });
  assert.ok(badKind.errors && badKind.errors.length > 0, JSON.stringify(badKind.body));
});

// ── the six kinds ───────────────────────────────────────────────────────────

notifications(
  "a submitted version reaches the client's approvers (mail and push, each in their language), not the submitter nor anyone else; webhooks get template.version.submitted",
  async () => {
    const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
    const { secret } = await hook(client, ['template.version.submitted']);
    const team = await buildTeam(server, client);
    const author = await subscribed(team.author);
    const approver = await subscribed(team.approver);
    const publisher = await subscribed(team.publisher);
    const admin = await owner(client);
    const operator = await person(client, ['operator']);
    assert.is((await preferences(approver.token, { language: 'de' })).status, 200);
    await buildUser(server, client, { roles: ['approver'], password: null }); // invited, not active yet: told nothing

    const template = await createTemplate(server, author.token, { title: 'Valve check' });
    const versionId = template.latestVersion.id;
    const sent = await sentBy(async () => ok(await gql(server, author.token, SUBMIT, { id: versionId })));
    assert.equal(sent.mailedTo, emails(approver, admin));
    assert.equal(sent.pushedTo, paths(approver, admin));
    for (const bystander of [author, publisher, operator]) assert.is(sent.mailTo(bystander), undefined);

    const german = sent.mailTo(approver)!;
    assert.is(german.subject, 'Eine Version wartet auf Ihre Freigabe');
    assert.match(german.text, /hat Version 1 von "Valve check" zur Prüfung eingereicht/);
    // the link opens the version in the floor app's review pages
    assert.match(german.text, new RegExp(`wip öffnen: https://wip\\.example\\.test/app/reviews/${template.latestVersion.databaseId}\\n`));
    assert.is(german.headers['x-wip-mail-kind'], 'version_submitted');
    const english = sent.mailTo(admin)!;
    assert.is(english.subject, 'A version awaits your approval');
    assert.match(english.text, /submitted version 1 of "Valve check" for review/);
    assert.match(english.text, /turn each kind of notification off/);
    assert.equal(sent.pushTo(approver), {
      kind: 'version_submitted',
      title: 'Eine Version wartet auf Ihre Freigabe',
      body: 'Valve check v1',
      data: {
        templateId: template.databaseId,
        versionId: template.latestVersion.databaseId,
        url: `/app/reviews/${template.latestVersion.databaseId}`,
      },
    });
    assert.equal(sent.pushTo(admin).title, 'A version awaits your approval');

    const [event] = await received(secret, 'template.version.submitted');
    assert.is(event.data.id, template.latestVersion.databaseId);
    assert.is(event.data.state, 'IN_REVIEW');
  },
);

notifications(
  'a rejected version reaches its author with the reason; an approved one reaches the publishers — never the decider',
  async () => {
    const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
    const { secret } = await hook(client, ['template.version.approved', 'template.version.rejected']);
    const team = await buildTeam(server, client);
    const author = await subscribed(team.author);
    const approver = await subscribed(team.approver);
    const publisher = await subscribed(team.publisher);
    const admin = await owner(client);
    await person(client, ['operator']);
    const template = await createTemplate(server, author.token, { title: 'Valve check' });
    const versionId = template.latestVersion.id;

    ok(await gql(server, author.token, SUBMIT, { id: versionId }));
    const rejected = await sentBy(async () => ok(await gql(server, approver.token, REJECT, { id: versionId, reason: 'torque missing' })));
    assert.equal(rejected.mailedTo, emails(author));
    assert.equal(rejected.pushedTo, paths(author));
    assert.is(rejected.mailTo(author)!.subject, 'Your version was rejected');
    assert.match(rejected.mailTo(author)!.text, /Reason: torque missing/);
    assert.equal(rejected.pushTo(author), {
      kind: 'version_rejected',
      title: 'Your version was rejected',
      body: 'Valve check v1: torque missing',
      data: { templateId: template.databaseId, versionId: template.latestVersion.databaseId, url: `/app/templates/${template.databaseId}` },
    });

    ok(await gql(server, author.token, SUBMIT, { id: versionId }));
    const approved = await sentBy(async () => ok(await gql(server, approver.token, APPROVE, { id: versionId, password: PASSWORD })));
    assert.equal(approved.mailedTo, emails(publisher, admin));
    assert.equal(approved.pushedTo, paths(publisher, admin));
    assert.is(approved.mailTo(publisher)!.subject, 'A version awaits publishing');
    assert.match(approved.mailTo(publisher)!.text, /approved version 1 of "Valve check"\. It can now be published/);

    assert.is((await received(secret, 'template.version.rejected'))[0].data.rejectReason, 'torque missing');
    assert.is((await received(secret, 'template.version.approved'))[0].data.state, 'APPROVED');
  },
);

notifications(
  'a job assigned reaches its assignees and step owners, not its creator; webhooks get job.assigned, also when an accepted hand-off moves it',
  async () => {
    const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
    const { templateId } = await publishedTemplate(server, client);
    const { secret } = await hook(client, ['job.assigned']);
    const [dispatcher, first, second, idle] = await Promise.all([
      person(client, ['operator']),
      person(client, ['operator']),
      person(client, ['operator']),
      person(client, ['operator']),
    ]);
    const admin = await owner(client);
    assert.is((await preferences(second.token, { language: 'de-AT' })).status, 200);

    let job: any;
    const sent = await sentBy(async () => {
      job = await createJob(server, dispatcher.token, {
        templateId,
        title: 'Inspect pump 7',
        assigneeIds: [first.id, dispatcher.id],
        stepOwners: [{ stepId: 'check', userId: second.id }],
      });
    });
    assert.equal(sent.mailedTo, emails(first, second));
    assert.equal(sent.pushedTo, paths(first, second));
    for (const bystander of [dispatcher, idle, admin]) assert.is(sent.mailTo(bystander), undefined);
    assert.is(sent.mailTo(first)!.subject, 'A job was assigned to you');
    assert.match(sent.mailTo(first)!.text, /assigned the job "Inspect pump 7" to you \(priority MEDIUM\)/);
    assert.is(sent.mailTo(second)!.subject, 'Ihnen wurde ein Auftrag zugewiesen', 'de-AT falls back to German');
    assert.ok(sent.mailTo(first)!.text.includes(`/app/jobs/${job.id}\n`), 'the mail links the job');
    assert.equal(sent.pushTo(first), {
      kind: 'job_assigned',
      title: 'A job was assigned to you',
      body: 'Inspect pump 7',
      data: { jobId: job.id, url: `/app/jobs/${job.id}` },
    });

    const [created] = await received(secret, 'job.assigned');
    assert.equal(created.data.assigneeIds.sort(), [first.id, dispatcher.id].sort());
    assert.equal(created.data.stepOwners, [{ stepId: 'check', userId: second.id }]);
    assert.is(created.data.job.id, job.id);

    // an unassigned job tells no one
    assert.equal((await sentBy(() => createJob(server, dispatcher.token, { templateId }))).mailedTo, []);

    // the receiver accepting a hand-off is assigned by their own act: an event, no notification
    const offer = await server.request('POST', '/api/client/workingTogether', {
      token: first.token,
      body: { action: 'HAND_OFF', jobId: job.id, toUserId: idle.id },
    });
    assert.is(offer.status, 200, offer.text);
    const accepted = await sentBy(() =>
      server.request('POST', '/api/client/workingTogether', {
        token: idle.token,
        body: { action: 'ACCEPT', jobId: job.id, handOffId: offer.body.data.handOff.id },
      }),
    );
    assert.equal(accepted.mailedTo, []);
    const events = await received(secret, 'job.assigned', 2);
    assert.equal(events[1].data.assigneeIds.sort(), [idle.id, dispatcher.id].sort());
  },
);

notifications('a hand-off offered reaches the receiver only; webhooks get job.handoff.requested', async () => {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const { templateId } = await publishedTemplate(server, client);
  const { secret } = await hook(client, ['job.handoff.requested']);
  const [sender, receiverUser, bystander] = await Promise.all([
    person(client, ['operator']),
    person(client, ['operator']),
    person(client, ['operator']),
  ]);
  const admin = await owner(client);
  const job = await createJob(server, client.owner.token, { templateId, title: 'Night shift round', assigneeIds: [sender.id] });

  let handOffId = 0;
  const sent = await sentBy(async () => {
    const res = await server.request('POST', '/api/client/workingTogether', {
      token: sender.token,
      body: { action: 'HAND_OFF', jobId: job.id, toUserId: receiverUser.id, note: 'shift ends' },
    });
    assert.is(res.status, 200, res.text);
    handOffId = res.body.data.handOff.id;
  });
  assert.equal(sent.mailedTo, emails(receiverUser));
  assert.equal(sent.pushedTo, paths(receiverUser));
  for (const other of [sender, bystander, admin]) assert.is(sent.mailTo(other), undefined);
  assert.is(sent.mailTo(receiverUser)!.subject, 'A job was handed off to you');
  assert.match(sent.mailTo(receiverUser)!.text, /offers you the rest of the job "Night shift round"/);
  assert.match(sent.mailTo(receiverUser)!.text, /Note: shift ends/);
  assert.equal(sent.pushTo(receiverUser), {
    kind: 'hand_off',
    title: 'A job was handed off to you',
    body: 'Night shift round: shift ends',
    data: { jobId: job.id, handOffId, url: `/app/jobs/${job.id}` },
  });
  assert.is((await received(secret, 'job.handoff.requested'))[0].data.toUserId, receiverUser.id);
});

notifications(
  "a HIGH or CRITICAL fault reaches the job's supervisors (its creator, the Security Administrators), not the raiser; lower severities tell no one",
  async () => {
    const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
    const { templateId } = await publishedTemplate(server, client);
    const { secret } = await hook(client, ['fault.raised']);
    const [dispatcher, operator, colleague] = await Promise.all([
      person(client, ['publisher']),
      person(client, ['operator']),
      person(client, ['operator']),
    ]);
    const admin = await owner(client);
    assert.is((await preferences(admin.token, { language: 'de' })).status, 200);
    const job = await createJob(server, dispatcher.token, {
      templateId,
      title: 'Inspect pump 7',
      assigneeIds: [operator.id, colleague.id],
    });
    const raise = (severity: string) =>
      gql(server, operator.token, 'mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { databaseId } } }', {
        i: { jobId: `Job:${job.id}`, description: 'Seal cracked', severity },
      });

    for (const severity of ['LOW', 'MEDIUM']) {
      const quiet = await sentBy(async () => ok(await raise(severity)));
      assert.equal(quiet.mailedTo, [], severity);
      assert.equal(quiet.pushedTo, [], severity);
    }
    for (const severity of ['HIGH', 'CRITICAL']) {
      let faultId = 0;
      const sent = await sentBy(async () => (faultId = ok(await raise(severity)).raiseFault.fault.databaseId));
      assert.equal(sent.mailedTo, emails(dispatcher, admin), severity);
      assert.equal(sent.pushedTo, paths(dispatcher, admin), severity);
      assert.is(sent.mailTo(dispatcher)!.subject, `A fault of severity ${severity} was raised`);
      assert.match(
        sent.mailTo(dispatcher)!.text,
        new RegExp(`raised a fault of severity ${severity} on the job "Inspect pump 7": Seal cracked`),
      );
      assert.is(sent.mailTo(admin)!.subject, `Ein Fehler der Schwere ${severity} wurde gemeldet`);
      assert.equal(sent.pushTo(dispatcher), {
        kind: 'fault_raised',
        title: `A fault of severity ${severity} was raised`,
        body: 'Inspect pump 7: Seal cracked',
        data: { faultId, jobId: job.id, url: `/app/jobs/${job.id}/record` },
      });
    }
    // a long description is whole in the mail, cut in the push (a push message holds about 4 KB)
    const long = 'Seal cracked. '.repeat(300).trim();
    const big = await sentBy(async () =>
      ok(
        await gql(server, operator.token, 'mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { id } } }', {
          i: { jobId: `Job:${job.id}`, description: long, severity: 'HIGH' },
        }),
      ),
    );
    assert.ok(big.mailTo(dispatcher)!.text.includes(long));
    assert.is(big.pushTo(dispatcher).body.length, 240);
    assert.ok(big.pushTo(dispatcher).body.endsWith('…'));
    const events = await received(secret, 'fault.raised', 5);
    assert.equal(events.map((e) => e.data.severity).sort(), ['CRITICAL', 'HIGH', 'HIGH', 'LOW', 'MEDIUM']);
  },
);

notifications('a version of a template restricted to organizations is told only to approvers who may see it', async () => {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const organization = async (name: string) =>
    ok(
      await gql(
        server,
        client.owner.token,
        'mutation ($name: String!) { createOrganization(input: { name: $name }) { organization { databaseId } } }',
        { name },
      ),
    ).createOrganization.organization.databaseId as number;
  const north = await organization('North');
  const south = await organization('South');
  const member = async (roles: string[], availableToOrg: number[]) => {
    const email = `${roles[0]}-${Math.random().toString(16).slice(2, 10)}@example.test`;
    const res = await server.request('POST', '/api/admin/user', {
      token: client.owner.token,
      body: { email, roles, licenseType: 'full', password: PASSWORD, availableToOrg },
    });
    assert.is(res.status, 201, res.text);
    const signedIn = await server.request('POST', '/api/client/auth/sign-in', { body: { email, password: PASSWORD, clientId: client.id } });
    return subscribed({ id: res.body.data.id, email, token: signedIn.body.data.token });
  };
  const author = await member(['author'], [north]);
  const northern = await member(['approver'], [north]);
  const southern = await member(['approver'], [south]);
  const admin = await owner(client);
  const template = await createTemplate(server, author.token, { title: 'Northern valves', organizationIds: [`Organization:${north}`] });
  const sent = await sentBy(async () => ok(await gql(server, author.token, SUBMIT, { id: template.latestVersion.id })));
  assert.equal(sent.mailedTo, emails(northern, admin));
  assert.equal(sent.pushedTo, paths(northern, admin));
  assert.is(sent.mailTo(southern), undefined);
});

// ── preferences applied ─────────────────────────────────────────────────────

notifications('a kind turned off is neither mailed nor pushed to that user (others still hear of it); turned on again, it is', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  const author = await subscribed(team.author);
  const approver = await subscribed(team.approver);
  const admin = await owner(client);
  assert.is((await preferences(approver.token, { kinds: { version_submitted: false } })).status, 200);
  assert.is(
    (await preferences(admin.token, { kinds: { version_rejected: false, job_assigned: false } })).status,
    200,
    'other kinds off change nothing here',
  );

  const first = await createTemplate(server, author.token, { title: 'Quiet one' });
  const off = await sentBy(async () => ok(await gql(server, author.token, SUBMIT, { id: first.latestVersion.id })));
  assert.equal(off.mailedTo, emails(admin));
  assert.equal(off.pushedTo, paths(admin));

  assert.is((await preferences(approver.token, { kinds: { version_submitted: true } })).status, 200);
  const second = await createTemplate(server, author.token, { title: 'Loud one' });
  const on = await sentBy(async () => ok(await gql(server, author.token, SUBMIT, { id: second.latestVersion.id })));
  assert.equal(on.mailedTo, emails(approver, admin));
});

notifications('with every kind turned off, none of the six reaches anyone — not by mail, not by push', async () => {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const { templateId, signer } = await publishedTemplate(server, client);
  const team = await buildTeam(server, client);
  assert.is(
    (await preferences(signer.token!, { kinds: Object.fromEntries(NOTIFICATION_KINDS.map((k) => [k, false])) })).status,
    200,
    'the helper approver and publisher',
  );
  const people = [await subscribed(team.author), await subscribed(team.approver), await subscribed(team.publisher), await owner(client)];
  const [operator, dispatcher] = [await person(client, ['operator']), await person(client, ['operator'])];
  const allOff = Object.fromEntries(NOTIFICATION_KINDS.map((k) => [k, false]));
  for (const p of [...people, operator, dispatcher]) assert.is((await preferences(p.token, { kinds: allOff })).status, 200);
  const [author, approver] = people as [Person, Person];

  const sent = await sentBy(async () => {
    const first = await createTemplate(server, author.token, { title: 'Silent' });
    ok(await gql(server, author.token, SUBMIT, { id: first.latestVersion.id }));
    ok(await gql(server, approver.token, REJECT, { id: first.latestVersion.id, reason: 'no' }));
    ok(await gql(server, author.token, SUBMIT, { id: first.latestVersion.id }));
    ok(await gql(server, approver.token, APPROVE, { id: first.latestVersion.id, password: PASSWORD }));
    const job = await createJob(server, dispatcher.token, { templateId, assigneeIds: [operator.id] });
    const offer = await server.request('POST', '/api/client/workingTogether', {
      token: operator.token,
      body: { action: 'HAND_OFF', jobId: job.id, toUserId: dispatcher.id },
    });
    assert.is(offer.status, 200, offer.text);
    ok(
      await gql(server, operator.token, 'mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { id } } }', {
        i: { jobId: `Job:${job.id}`, description: 'Leak', severity: 'CRITICAL' },
      }),
    );
  });
  assert.equal(sent.mailedTo, []);
  assert.equal(sent.pushedTo, []);
});

notifications("a client's own wording (translation overrides) is used in its notifications", async () => {
  const client = await buildClient(server);
  const token = await adminToken(server);
  const res = await server.request('POST', '/api/admin/internationalization', {
    token,
    body: { language: 'en', namespace: 'notifications', key: 'hand_off.title', text: 'Over to you', clientId: client.id },
  });
  assert.is(res.status, 201, res.text);
  const { templateId } = await publishedTemplate(server, client);
  const [a, b] = await Promise.all([person(client, ['operator']), person(client, ['operator'])]);
  const job = await createJob(server, client.owner.token, { templateId, assigneeIds: [a.id] });
  const sent = await sentBy(() =>
    server.request('POST', '/api/client/workingTogether', { token: a.token, body: { action: 'HAND_OFF', jobId: job.id, toUserId: b.id } }),
  );
  assert.is(sent.mailTo(b)!.subject, 'Over to you');
  assert.is(sent.pushTo(b).title, 'Over to you');
});

notifications.run();
