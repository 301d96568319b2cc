import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser, signIn } from '../helpers/factories';
import { gid, gql } from '../helpers/graphql';
import { DOMAIN_TEST_ENV } from '../helpers/domain';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp';
import { startWebhookReceiver, verifyDelivery, type WebhookReceiver } from '../helpers/webhook-receiver';
import { waitFor } from '../helpers/wait';
import { startMaintenance } from '#ops/maintenance';
import { noticeSkillExpiries } from '#services/qualifications';

// The daily notice of skills expiring soon (docs/qualifications.md)
// through real peers: the mail reaches an SMTP server, the skill.expiring
// event a webhook receiver; each grant is noticed once, a renewal again.

let server: TestServer;
let smtp: TestSmtp;
let receiver: WebhookReceiver;
const DAY = 86_400_000;

const expiries = suite('the daily notice of expiring skills: mail and webhook, once per grant');
expiries.before(async () => {
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
});
expiries.after(async () => {
  await server.stop();
  await Promise.all([smtp.stop(), receiver.close()]);
});

const GRANT = 'mutation($i: GrantSkillInput!) { grantSkill(input: $i) { userSkill { expiresAt } } }';
const mailsOfKind = () => smtp.messages.filter((m) => m.headers['x-wip-mail-kind'] === 'skill_expiring');

expiries(
  'a grant expiring within 30 days is told to its holder and the supervisors, by mail and as a skill.expiring event; once, and again after a renewal',
  async () => {
    const client = await buildClient(server, { seats: { full: 20, connect: 10 } });
    const hook = await server.request('POST', '/api/client/webhooks', {
      token: client.owner.token,
      body: { url: receiver.url, events: ['skill.expiring'] },
    });
    assert.is(hook.status, 201, hook.text);
    const supervisor = await buildUser(server, client, { roles: ['publisher'] });
    const holder = await buildUser(server, client, { roles: ['operator'] });
    const later = await buildUser(server, client, { roles: ['operator'] });
    const bystander = await buildUser(server, client, { roles: ['operator'] });
    const created = await gql(
      server,
      client.owner.token,
      'mutation { createSkill(input: { name: "Crane operation", levels: 2 }) { skill { id } } }',
    );
    const skillId = created.data.createSkill.skill.id;
    const now = server.clock.now().getTime();
    // grants made now are a day old at the round: the expiries below are counted from the grant
    const soon = new Date(now + 10 * DAY).toISOString();
    const grant = async (userId: number, expiresAt: string) =>
      assert.equal(
        (await gql(server, supervisor.token, GRANT, { i: { userId: gid('User', userId), skillId, level: 2, expiresAt } })).codes,
        [],
      );
    await grant(holder.id, soon);
    await grant(later.id, new Date(now + 60 * DAY).toISOString());

    const before = mailsOfKind().length;
    // the daemon's round at start already did today's notice: the next is due a day later (sessions are signed in again after)
    server.clock.advance(DAY + 1000);
    const maintenance = startMaintenance(server.deps);
    try {
      await maintenance.runOnce({ backups: false });
    } finally {
      await maintenance.stop();
    }
    await server.deps.mailer.deliverDue();
    // the holder, the supervisor and the owner (an admin may grant too); neither the holder of a far expiry nor a bystander
    await waitFor('three expiry mails', () => mailsOfKind().length >= before + 3);
    const mails = mailsOfKind().slice(before);
    assert.equal(mails.flatMap((m) => m.to).sort(), [holder.email, supervisor.email, client.owner.email].sort());
    for (const mail of mails) {
      assert.is(mail.subject, '1 skill(s) expire soon');
      assert.ok(mail.text.includes('Crane operation'), mail.text);
      assert.ok(mail.text.includes(soon), mail.text);
    }
    assert.ok(!smtp.messages.some((m) => m.to.includes(bystander.email) || m.to.includes(later.email)));

    const events = () =>
      receiver.received.flatMap((d) => {
        try {
          const payload = verifyDelivery(hook.body.data.secret, d);
          return payload.type === 'skill.expiring' ? [payload] : [];
        } catch {
          return [];
        }
      });
    await waitFor('a skill.expiring delivery', () => events().length >= 1);
    assert.equal(
      events().map((e) => ({ userId: e.data.userId, skill: e.data.skill, level: e.data.level, expiresAt: e.data.expiresAt })),
      [{ userId: holder.id, skill: 'Crane operation', level: 2, expiresAt: soon }],
    );

    const fresh = async (user: { email: string; password: string }) => signIn(server, user.email, user.password, client.id);
    supervisor.token = await fresh(supervisor);
    holder.token = await fresh(holder);
    // noticed once: the next round tells nothing more
    assert.is(await noticeSkillExpiries(server.deps), 0);
    // a renewal is noticed in its turn
    await grant(holder.id, new Date(now + 20 * DAY).toISOString());
    assert.is(await noticeSkillExpiries(server.deps), 1);
    await server.deps.mailer.deliverDue();
    await waitFor('three more expiry mails', () => mailsOfKind().length >= before + 6);

    // turned off in the preferences, the kind is not mailed
    const off = await server.request('PUT', '/api/client/account/notification-preferences', {
      token: holder.token,
      body: { kinds: { skill_expiring: false } },
    });
    assert.is(off.status, 200, off.text);
    await grant(holder.id, new Date(now + 25 * DAY).toISOString());
    const mark = mailsOfKind().length;
    assert.is(await noticeSkillExpiries(server.deps), 1);
    await server.deps.mailer.deliverDue();
    await waitFor('two more expiry mails', () => mailsOfKind().length >= mark + 2);
    assert.ok(
      !mailsOfKind()
        .slice(mark)
        .some((m) => m.to.includes(holder.email)),
    );
  },
);

expiries.run();
