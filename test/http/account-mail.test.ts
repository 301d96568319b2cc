import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../helpers/cli';
import { startTestServer, type TestServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';
import { buildClient, buildUser, PASSWORD, signIn, uniqueEmail } from '../helpers/factories';
import { linkToken, startTestSmtp, type TestSmtp } from '../helpers/smtp';

const execFileAsync = promisify(execFile);
const NEW_PASSWORD = 'a-brand-new-passphrase';
let server: TestServer;
let smtp: TestSmtp;

async function withSmtp() {
  smtp = await startTestSmtp();
  server = await startTestServer({
    env: {
      WIP_SMTP_URL: smtp.url,
      WIP_PUBLIC_URL: 'https://wip.example.test/',
      WIP_MAIL_FROM: 'wip <wip@example.test>',
      WIP_MAIL_POLL_INTERVAL: '50ms',
    },
  });
}
async function stopBoth() {
  await server.stop();
  await smtp.stop();
}
const mailTo = (email: string, kind: string) => smtp.waitFor((m) => m.to.includes(email) && m.headers['x-wip-mail-kind'] === kind);

// ---------------------------------------------------------------------------
const invite = suite('POST /api/client/auth/set-password/:token (invitations by email)');
invite.before(withSmtp);
invite.after(stopBoth);

invite('a user created without a password is emailed a single-use link built from WIP_PUBLIC_URL', async () => {
  const client = await buildClient(server, { name: 'Acme Works' });
  const user = await buildUser(server, client, { password: null });
  const mail = await mailTo(user.email, 'invitation');
  assert.is(mail.from, 'wip@example.test');
  assert.match(mail.subject, /Acme Works/);
  assert.match(mail.text, /https:\/\/wip\.example\.test\/auth\/set-password\/[A-Za-z0-9_-]{43}/);
  assert.match(mail.text, /72 hours/);
  const token = linkToken(mail, 'set-password');
  const set = await server.request('POST', `/api/client/auth/set-password/${token}`, {
    body: { password: NEW_PASSWORD, firstName: 'Ada' },
  });
  assert.is(set.status, 200, set.text);
  assert.is(set.body.data.user.status, 'active');
  assert.is(set.body.data.user.firstName, 'Ada');
  assert.type(await signIn(server, user.email, NEW_PASSWORD, client.id), 'string');
  // single use
  const again = await server.request('POST', `/api/client/auth/set-password/${token}`, { body: { password: 'another-new-passphrase' } });
  assert.is(again.status, 400);
  assert.is(again.body.error.code, 'TOKEN_INVALID');
});

invite('the token is stored only as a hash', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client, { password: null });
  const token = linkToken(await mailTo(user.email, 'invitation'), 'set-password');
  const rows = await server.deps.db.kysely.selectFrom('user_tokens').selectAll().where('user_id', '=', user.id).execute();
  assert.is(rows.length, 1);
  assert.is.not(rows[0].token_hash, token);
  assert.not.ok(JSON.stringify(rows).includes(token));
});

invite('an expired invitation → 400 TOKEN_INVALID; an unknown token → 400 TOKEN_INVALID', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client, { password: null });
  const token = linkToken(await mailTo(user.email, 'invitation'), 'set-password');
  server.clock.advance(72 * 3_600_000 + 1000);
  const expired = await server.request('POST', `/api/client/auth/set-password/${token}`, { body: { password: NEW_PASSWORD } });
  assert.is(expired.status, 400);
  assert.is(expired.body.error.code, 'TOKEN_INVALID');
  const unknown = await server.request('POST', `/api/client/auth/set-password/${'x'.repeat(43)}`, { body: { password: NEW_PASSWORD } });
  assert.is(unknown.status, 400);
  assert.is(unknown.body.error.code, 'TOKEN_INVALID');
});

invite('a password the policy refuses → 422 naming the field and the reasons; the token stays usable', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client, { password: null });
  const token = linkToken(await mailTo(user.email, 'invitation'), 'set-password');
  const short = await server.request('POST', `/api/client/auth/set-password/${token}`, { body: { password: 'short' } });
  assert.is(short.status, 422);
  assert.is(short.body.error.code, 'VALIDATION_ERROR');
  assert.equal(short.body.error.details.fields, [{ path: 'body.password', message: 'must be at least 12 characters' }]);
  const common = await server.request('POST', `/api/client/auth/set-password/${token}`, { body: { password: 'Password1234' } });
  assert.is(common.status, 422);
  assert.match(common.body.error.details.fields[0].message, /too common/);
  const ok = await server.request('POST', `/api/client/auth/set-password/${token}`, { body: { password: NEW_PASSWORD } });
  assert.is(ok.status, 200);
});

invite('POST /api/admin/user/:userId/invite sends a new link and kills the older one; active users → 409; other roles → 403', async () => {
  const client = await buildClient(server);
  const author = await buildUser(server, client);
  const user = await buildUser(server, client, { password: null });
  const first = linkToken(await mailTo(user.email, 'invitation'), 'set-password');
  assert.is((await server.request('POST', `/api/admin/user/${user.id}/invite`, { token: author.token })).status, 403);
  const res = await server.request('POST', `/api/admin/user/${user.id}/invite`, { token: client.owner.token });
  assert.is(res.status, 200, res.text);
  const second = linkToken(
    await smtp.waitFor((m) => m.to.includes(user.email) && m.headers['x-wip-mail-kind'] === 'invitation' && !m.text.includes(first)),
    'set-password',
  );
  const old = await server.request('POST', `/api/client/auth/set-password/${first}`, { body: { password: NEW_PASSWORD } });
  assert.is(old.status, 400);
  assert.is(old.body.error.code, 'TOKEN_INVALID');
  assert.is((await server.request('POST', `/api/client/auth/set-password/${second}`, { body: { password: NEW_PASSWORD } })).status, 200);
  const active = await server.request('POST', `/api/admin/user/${user.id}/invite`, { token: client.owner.token });
  assert.is(active.status, 409);
});

invite('sign-up with the invitation token activates the account the same way', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client, { password: null });
  const token = linkToken(await mailTo(user.email, 'invitation'), 'set-password');
  const res = await server.request('POST', '/api/client/auth/sign-up', {
    body: { invitationToken: token, password: NEW_PASSWORD, lastName: 'Lovelace' },
  });
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.status, 'active');
  assert.is(res.body.data.user.lastName, 'Lovelace');
  assert.type(await signIn(server, user.email, NEW_PASSWORD, client.id), 'string');
});

// ---------------------------------------------------------------------------
const forgot = suite('POST /api/client/auth/forgot and /reset-password/:token');
forgot.before(withSmtp);
forgot.after(stopBoth);

forgot('the same 200 body whether or not the email exists; only a real account gets a mail', async () => {
  const client = await buildClient(server);
  const unknownEmail = uniqueEmail('nobody');
  const known = await server.request('POST', '/api/client/auth/forgot', { body: { email: client.owner.email } });
  const unknown = await server.request('POST', '/api/client/auth/forgot', { body: { email: unknownEmail } });
  assert.is(known.status, 200);
  assert.is(unknown.status, 200);
  assert.equal(known.body, unknown.body);
  await mailTo(client.owner.email, 'password_reset');
  // mail is queued in the request's own transaction: nothing was queued for the unknown address, and a run of
  // the mailer (it resolves once every due message went out) sends nothing to it
  const queued = await server.deps.db.kysely.selectFrom('outbox').select('id').where('to_address', '=', unknownEmail).execute();
  assert.equal(queued, []);
  await server.deps.mailer.deliverDue();
  assert.not.ok(smtp.messages.some((m) => m.to.includes(unknownEmail)));
});

forgot('reset sets the password, ends every session, emails a notice, and the link works once', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  const signedIn = await server.request('POST', '/api/client/auth/sign-in', { body: { email: user.email, password: PASSWORD } });
  await server.request('POST', '/api/client/auth/forgot', { body: { email: user.email } });
  const mail = await mailTo(user.email, 'password_reset');
  assert.match(mail.text, /https:\/\/wip\.example\.test\/auth\/reset-password\//);
  const token = linkToken(mail, 'reset-password');
  const res = await server.request('POST', `/api/client/auth/reset-password/${token}`, { body: { password: NEW_PASSWORD } });
  assert.is(res.status, 200, res.text);
  assert.is((await server.request('GET', '/api/client/auth/me', { token: user.token })).status, 401);
  assert.is(
    (await server.request('POST', '/api/client/auth/refresh', { body: { refreshToken: signedIn.body.data.refreshToken } })).status,
    401,
  );
  const old = await server.request('POST', '/api/client/auth/sign-in', { body: { email: user.email, password: PASSWORD } });
  assert.is(old.status, 401);
  assert.type(await signIn(server, user.email, NEW_PASSWORD), 'string');
  const notice = await mailTo(user.email, 'password_changed');
  assert.match(notice.text, /was reset/);
  const again = await server.request('POST', `/api/client/auth/reset-password/${token}`, { body: { password: 'yet-another-passphrase' } });
  assert.is(again.status, 400);
  assert.is(again.body.error.code, 'TOKEN_INVALID');
});

forgot('a reset link expires after WIP_RESET_TOKEN_TTL (1h) and a newer link kills the older one', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  await server.request('POST', '/api/client/auth/forgot', { body: { email: user.email } });
  const first = linkToken(await mailTo(user.email, 'password_reset'), 'reset-password');
  await server.request('POST', '/api/client/auth/forgot', { body: { email: user.email } });
  const second = linkToken(
    await smtp.waitFor((m) => m.to.includes(user.email) && m.headers['x-wip-mail-kind'] === 'password_reset' && !m.text.includes(first)),
    'reset-password',
  );
  const killed = await server.request('POST', `/api/client/auth/reset-password/${first}`, { body: { password: NEW_PASSWORD } });
  assert.is(killed.status, 400);
  server.clock.advance(3_600_000 + 1000);
  const expired = await server.request('POST', `/api/client/auth/reset-password/${second}`, { body: { password: NEW_PASSWORD } });
  assert.is(expired.status, 400);
  assert.is(expired.body.error.code, 'TOKEN_INVALID');
});

forgot('rate limited per email: the 6th request for one address in 15 minutes → 429', async () => {
  const email = uniqueEmail('spam');
  for (let i = 0; i < 5; i++) assert.is((await server.request('POST', '/api/client/auth/forgot', { body: { email } })).status, 200);
  const limited = await server.request('POST', '/api/client/auth/forgot', { body: { email } });
  assert.is(limited.status, 429);
  assert.ok(limited.headers.get('retry-after'));
  // another address is still served
  assert.is((await server.request('POST', '/api/client/auth/forgot', { body: { email: uniqueEmail('other') } })).status, 200);
});

// ---------------------------------------------------------------------------
const change = suite('POST /api/client/auth/change-password and /update-password');
change.before(withSmtp);
change.after(stopBoth);

change('wrong current password → 401 INVALID_CREDENTIALS', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  const res = await server.request('POST', '/api/client/auth/change-password', {
    token: user.token,
    body: { currentPassword: 'wrong-password', newPassword: NEW_PASSWORD },
  });
  assert.is(res.status, 401);
  assert.is(res.body.error.code, 'INVALID_CREDENTIALS');
});

change('changes the password, keeps this session, revokes the others, and emails a notice', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  const other = await signIn(server, user.email, PASSWORD);
  for (const [path, from, to] of [
    ['/api/client/auth/change-password', PASSWORD, NEW_PASSWORD],
    ['/api/client/auth/update-password', NEW_PASSWORD, 'third-passphrase-here'],
  ] as const) {
    const res = await server.request('POST', path, { token: user.token, body: { currentPassword: from, newPassword: to } });
    assert.is(res.status, 200, res.text);
  }
  assert.is((await server.request('GET', '/api/client/auth/me', { token: user.token })).status, 200);
  assert.is((await server.request('GET', '/api/client/auth/me', { token: other })).status, 401);
  assert.type(await signIn(server, user.email, 'third-passphrase-here'), 'string');
  const notice = await mailTo(user.email, 'password_changed');
  assert.match(notice.text, /was changed/);
});

change('the new password must meet the policy → 422 on body.newPassword', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  const res = await server.request('POST', '/api/client/auth/change-password', {
    token: user.token,
    body: { currentPassword: PASSWORD, newPassword: 'qwertyuiop123' },
  });
  assert.is(res.status, 422);
  assert.is(res.body.error.details.fields[0].path, 'body.newPassword');
});

change('no token → 401', async () => {
  const res = await server.request('POST', '/api/client/auth/change-password', {
    body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
  });
  assert.is(res.status, 401);
});

// ---------------------------------------------------------------------------
const outbox = suite('mail outbox without SMTP, and retries');
outbox.before(async () => {
  server = await startTestServer({ env: { WIP_MAIL_POLL_INTERVAL: '50ms' } });
});
outbox.after(async () => server.stop());

outbox('without WIP_SMTP_URL the invitation is kept as <data-dir>/outbox/<id>.eml and listed by `wip mail outbox`', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client, { password: null });
  const dir = path.join(server.dataDir, 'outbox');
  let file: string | undefined;
  await waitFor('an .eml file for the invitation', () => {
    file = fs.existsSync(dir)
      ? fs
          .readdirSync(dir)
          .map((f) => path.join(dir, f))
          .find((f) => fs.readFileSync(f, 'utf8').includes(user.email))
      : undefined;
    return file !== undefined;
  });
  // the file is written before the row is marked `stored`
  await waitFor(
    'the message to be marked stored',
    async () =>
      (await server.deps.db.kysely.selectFrom('outbox').select('status').where('to_address', '=', user.email).executeTakeFirst())
        ?.status === 'stored',
  );
  assert.match(fs.readFileSync(file!, 'utf8'), /X-Wip-Mail-Kind: invitation/);
  const cli = await runCli(['--data-dir', server.dataDir, '--json', 'mail', 'outbox'], { env: { WIP_LOG_LEVEL: 'silent' } });
  assert.is(cli.code, 0, cli.stderr);
  const listed = JSON.parse(cli.stdout) as { to: string; status: string; kind: string; id: number }[];
  const entry = listed.find((m) => m.to === user.email);
  assert.ok(entry);
  assert.is(entry.status, 'stored');
  assert.is(entry.kind, 'invitation');
  assert.is(path.basename(file!), `${entry.id}.eml`);
  const human = await runCli(['--data-dir', server.dataDir, 'mail', 'outbox']);
  assert.is(human.code, 0);
  assert.match(human.stdout, new RegExp(`${entry.id}\\tstored`));
});

const retry = suite('mail delivery retries with backoff');
retry.before(withSmtp);
retry.after(stopBoth);

retry('a refused send stays pending with its error and is delivered on a later attempt', async () => {
  smtp.refuseNext(2);
  const client = await buildClient(server);
  const user = await buildUser(server, client, { password: null });
  const row = async () =>
    server.deps.db.kysely.selectFrom('outbox').selectAll().where('to_address', '=', user.email).executeTakeFirstOrThrow();
  await waitFor('the first attempt to be recorded', async () => (await row()).attempts >= 1);
  let current = await row();
  assert.is(current.status, 'pending');
  assert.is(current.attempts, 1);
  assert.match(current.last_error ?? '', /451|later/i);
  // not retried before its backoff (30 s) has passed: a run of the mailer just before then sends nothing
  server.clock.advance(29_000);
  await server.deps.mailer.deliverDue();
  assert.is((await row()).attempts, 1);
  server.clock.advance(2_000);
  await waitFor('the second attempt to be recorded', async () => (await row()).attempts >= 2);
  current = await row();
  assert.is(current.attempts, 2);
  assert.is(current.status, 'pending');
  server.clock.advance(61_000);
  const mail = await mailTo(user.email, 'invitation');
  assert.ok(mail);
  // the SMTP server records the message before it answers; the mailer marks the row after the answer
  await waitFor('the row to be marked sent', async () => (await row()).status === 'sent');
  current = await row();
  assert.is(current.status, 'sent');
  assert.is(current.text_body, ''); // the live link is not kept once delivered
});

const failed = suite('failed mail is kept, and `wip mail retry` delivers it');
failed.before(async () => {
  smtp = await startTestSmtp();
  server = await startTestServer({ env: { WIP_SMTP_URL: smtp.url, WIP_MAIL_MAX_ATTEMPTS: '1', WIP_MAIL_POLL_INTERVAL: '50ms' } });
});
failed.after(stopBoth);

failed('after mailMaxAttempts the message is `failed` (not lost); retry re-queues and sends it', async () => {
  smtp.refuseNext(1);
  const client = await buildClient(server);
  const user = await buildUser(server, client, { password: null });
  const row = async () =>
    server.deps.db.kysely.selectFrom('outbox').selectAll().where('to_address', '=', user.email).executeTakeFirstOrThrow();
  await waitFor('the message to fail', async () => (await row()).status === 'failed');
  assert.is((await row()).status, 'failed');
  assert.ok((await row()).text_body.includes('/auth/set-password/'));
  const listed = await runCli(['--data-dir', server.dataDir, '--json', 'mail', 'outbox', '--status', 'failed']);
  assert.is(listed.code, 0, listed.stderr);
  assert.ok((JSON.parse(listed.stdout) as { to: string }[]).some((m) => m.to === user.email));
  // asynchronously: the SMTP server answering the CLI runs in this process
  const cli = await execFileAsync(
    process.execPath,
    ['bin/wip', '--data-dir', server.dataDir, '--json', 'mail', 'retry', '--id', String((await row()).id)],
    {
      encoding: 'utf8',
      env: { ...process.env, WIP_SMTP_URL: smtp.url },
    },
  );
  assert.equal(JSON.parse(cli.stdout), { requeued: 1 }, cli.stderr);
  const mail = await mailTo(user.email, 'invitation');
  assert.ok(linkToken(mail, 'set-password'));
  assert.is((await row()).status, 'sent');
});

invite.run();
forgot.run();
change.run();
outbox.run();
retry.run();
failed.run();
