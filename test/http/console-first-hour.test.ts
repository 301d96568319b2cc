import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp';
import { upsertLockout } from '#repos/auth-failures';
import { userAccount } from '#services/lockout';
import { adminToken, buildClient, buildUser, PASSWORD, uniqueEmail } from '../helpers/factories';

// What the admin console needs from the API in its first hour —
// invitations without a mail server (where it went, the link handed over once),
// the account state behind the Users page's actions, the password rules of a
// link's page, client names on the licenses and the client.

const noMail = suite('without a mail server');
let wip: TestServer;
noMail.before(async () => {
  wip = await startTestServer({ env: { WIP_SMTP_URL: '' } });
});
noMail.after(async () => wip.stop());

async function invite(server: TestServer, token: string, email = uniqueEmail('invited')) {
  const res = await server.request('POST', '/api/admin/user', { token, body: { email, roles: ['viewer'], licenseType: 'connect' } });
  assert.is(res.status, 201, res.text);
  return res.body.data;
}

noMail(
  'an invitation says it waits in the outbox; the Security Administrator takes its link once, then it is gone from the outbox',
  async () => {
    const client = await buildClient(wip);
    const invited = await invite(wip, client.owner.token);
    assert.equal(invited.invitation, { delivery: 'outbox', linkRevealable: true });
    await wip.deps.mailer.deliverDue();

    const first = await wip.request('POST', `/api/admin/user/${invited.id}/invitation-link`, { token: client.owner.token });
    assert.is(first.status, 200, first.text);
    const link: string = first.body.data.link;
    assert.match(link, /\/auth\/set-password\/[A-Za-z0-9_-]{20,}$/);
    assert.is(first.body.data.email, invited.email);
    assert.is(first.headers.get('cache-control'), 'no-store');

    // once: the outbox row and its .eml file no longer hold the link
    const second = await wip.request('POST', `/api/admin/user/${invited.id}/invitation-link`, { token: client.owner.token });
    assert.is(second.status, 409, second.text);
    assert.is(second.body.error.details.reason, 'already_revealed');
    const token = link.split('/').pop()!;
    const rows = await wip.deps.db.kysely.selectFrom('outbox').select(['id', 'text_body']).where('user_id', '=', invited.id).execute();
    assert.ok(rows.length > 0 && rows.every((row) => !row.text_body.includes(token)));
    for (const row of rows) assert.not.ok(fs.existsSync(path.join(wip.dataDir, 'outbox', `${row.id}.eml`)));

    // a security event with the actor, never the token
    const admin = await adminToken(wip);
    const events = await wip.request('GET', `/api/admin/logs?category=security&event=auth.invitation_link_revealed&clientId=${client.id}`, {
      token: admin,
    });
    assert.is(events.body.data.items.length, 1);
    assert.is(events.body.data.items[0].userId, client.owner.id);
    assert.is(events.body.data.items[0].data.invitedUserId, invited.id);
    assert.not.match(JSON.stringify(events.body.data), token);

    // the link works: its page's rules first, then the password
    const details = await wip.request('GET', `/api/client/auth/set-password/${token}`);
    assert.is(details.status, 200, details.text);
    assert.is(details.body.data.email, invited.email);
    assert.is(details.body.data.passwordPolicy.minLength, 12);
    assert.ok(details.body.data.passwordPolicy.rules.some((rule: string) => rule.includes('email')));
    const set = await wip.request('POST', `/api/client/auth/set-password/${token}`, { body: { password: 'Lantern-Quartz-Meadow-9' } });
    assert.is(set.status, 200, set.text);
    assert.is((await wip.request('GET', `/api/client/auth/set-password/${token}`)).body.error.code, 'TOKEN_INVALID');
  },
);

noMail('sending the invitation again makes a new link to hand over once', async () => {
  const client = await buildClient(wip);
  const invited = await invite(wip, client.owner.token);
  assert.is((await wip.request('POST', `/api/admin/user/${invited.id}/invitation-link`, { token: client.owner.token })).status, 200);
  const again = await wip.request('POST', `/api/admin/user/${invited.id}/invite`, { token: client.owner.token });
  assert.equal(again.body.data.invitation, { delivery: 'outbox', linkRevealable: true });
  assert.is((await wip.request('POST', `/api/admin/user/${invited.id}/invitation-link`, { token: client.owner.token })).status, 200);
});

noMail("only the client's Security Administrator, only of an invited user of their client", async () => {
  const client = await buildClient(wip);
  const other = await buildClient(wip);
  const invited = await invite(wip, client.owner.token);
  const author = await buildUser(wip, client, { roles: ['author'] });
  assert.is((await wip.request('POST', `/api/admin/user/${invited.id}/invitation-link`, { token: other.owner.token })).status, 404);
  assert.is((await wip.request('POST', `/api/admin/user/${invited.id}/invitation-link`, { token: author.token })).status, 403);
  assert.is((await wip.request('POST', `/api/admin/user/${invited.id}/invitation-link`, { token: await adminToken(wip) })).status, 403);
  assert.is((await wip.request('POST', `/api/admin/user/${invited.id}/invitation-link`)).status, 401);
  const active = await wip.request('POST', `/api/admin/user/${author.id}/invitation-link`, { token: client.owner.token });
  assert.is(active.status, 409);
  assert.is(active.body.error.details.reason, 'not_invited');
});

noMail('a client created with an invited owner says where the invitation went', async () => {
  const res = await wip.request('POST', '/api/admin/client', {
    token: await adminToken(wip),
    body: { name: 'Owner invited', owner: { email: uniqueEmail('owner') }, seats: { full: 1 } },
  });
  assert.is(res.status, 201, res.text);
  assert.equal(res.body.data.owner.invitation, { delivery: 'outbox', linkRevealable: false });
});

noMail('the users list carries the account state the actions depend on', async () => {
  const client = await buildClient(wip);
  const user = await buildUser(wip, client, { roles: ['author'] });
  const now = wip.clock.now();
  await upsertLockout(wip.deps.db.kysely, userAccount(user.email).key, new Date(now.getTime() + 600_000).toISOString(), now.toISOString());
  const list = await wip.request('GET', '/api/admin/user', { token: client.owner.token });
  const byId = new Map(list.body.data.items.map((u: any) => [u.id, u]));
  assert.equal(pick(byId.get(client.owner.id)), { locked: false, twoFactorEnabled: false, lastSecurityAdministrator: true });
  assert.equal(pick(byId.get(user.id)), { locked: true, twoFactorEnabled: false, lastSecurityAdministrator: false });
  // a second Security Administrator: neither is the last one
  await buildUser(wip, client, { roles: ['admin'] });
  const again = await wip.request('GET', '/api/admin/user', { token: client.owner.token });
  assert.ok(again.body.data.items.every((u: any) => u.lastSecurityAdministrator === false));
});

const pick = (u: any) => ({
  locked: u.locked,
  twoFactorEnabled: u.twoFactorEnabled,
  lastSecurityAdministrator: u.lastSecurityAdministrator,
});

noMail('licenses name their client; a client can be read by id', async () => {
  const client = await buildClient(wip, { name: 'Named Client' });
  const admin = await adminToken(wip);
  const licenses = await wip.request('GET', `/api/admin/license?clientId=${client.id}`, { token: admin });
  assert.ok(licenses.body.data.items.length > 0);
  assert.ok(licenses.body.data.items.every((l: any) => l.clientName === 'Named Client'));
  const read = await wip.request('GET', `/api/admin/client/${client.id}`, { token: admin });
  assert.is(read.body.data.name, 'Named Client');
  assert.is((await wip.request('GET', '/api/admin/client/999999', { token: admin })).status, 404);
  assert.is((await wip.request('GET', `/api/admin/client/${client.id}`, { token: client.owner.token })).status, 403);
});

noMail('a link page with an unknown token: 400 TOKEN_INVALID', async () => {
  const res = await wip.request('GET', `/api/client/auth/set-password/${'x'.repeat(43)}`);
  assert.is(res.status, 400);
  assert.is(res.body.error.code, 'TOKEN_INVALID');
  assert.ok(PASSWORD);
});

noMail.run();

// ---------------------------------------------------------------------------
const withMail = suite('with a mail server');
let mailed: TestServer;
let smtp: TestSmtp;
withMail.before(async () => {
  smtp = await startTestSmtp();
  mailed = await startTestServer({ env: { WIP_SMTP_URL: smtp.url } });
});
withMail.after(async () => {
  await mailed.stop();
  await smtp.stop();
});

withMail('the invitation is queued for the mail server; its link is not handed out', async () => {
  const client = await buildClient(mailed);
  const invited = await invite(mailed, client.owner.token);
  assert.equal(invited.invitation, { delivery: 'queued', linkRevealable: false });
  const res = await mailed.request('POST', `/api/admin/user/${invited.id}/invitation-link`, { token: client.owner.token });
  assert.is(res.status, 409);
  assert.is(res.body.error.details.reason, 'mail_configured');
});

withMail.run();
