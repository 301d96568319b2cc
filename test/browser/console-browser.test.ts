import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { assertAccessible, launchChromium, openConsolePage } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp';
import { issueTestLicense } from '../helpers/licenses';

// The admin console in a real browser (Debian's Chromium, headless) against a
// real daemon on loopback with a fresh data directory and a generated admin
// password, mail going to an in-process SMTP peer. One journey, in order:
// first sign-in → change the generated password → create a client with an
// owner → the owner signs in → invites a user → the user sets a password
// from the mail's link and signs in; a license key changes the seats; field
// errors beside their fields; a CSRF-less form post refused; every request
// stays on 127.0.0.1; axe-core finds no serious or critical violation.

const SCREENSHOTS = path.resolve(__dirname, '..', '..', '..', 'test-output', 'console');

let wip: TestServer;
let smtp: TestSmtp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const requests: string[] = [];
const NEW_ADMIN_PASSWORD = 'a-new-admin-password-42';
const OWNER = { email: 'owner@acme.test', password: 'Tr1cky-Horse-Battery' };
const INVITED = { email: 'worker@acme.test', password: 'Blue-Staple-Orbit-77' };

const test = suite('the admin console in a browser');
test.before(async () => {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  smtp = await startTestSmtp();
  // no WIP_ADMIN_PASSWORD: the first run generates one, as a real install does
  wip = await startTestServer({
    license: 'evaluation',
    env: { WIP_ADMIN_PASSWORD: undefined as unknown as string, WIP_SMTP_URL: smtp.url, WIP_PUBLIC_URL: '' },
  });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.on('request', (request) => requests.push(request.url()));
  page = await context.newPage();
  page.setDefaultTimeout(8000);
});
test.after(async () => {
  await browser?.close();
  await wip?.stop();
  await smtp?.stop();
});

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

const accessible = (where: string) => assertAccessible(page, where);
const open = (hash: string, heading: string) => openConsolePage(page, wip.url, hash, heading);

test('GET / redirects to the console, served with its CSP and hashed, long-cached files', async () => {
  const root = await wip.request('GET', '/');
  assert.is(root.status, 302);
  assert.is(root.headers.get('location'), '/console/');
  const index = await wip.request('GET', '/console/');
  assert.is(index.status, 200);
  const csp = index.headers.get('content-security-policy') ?? '';
  assert.match(csp, "script-src 'self'");
  assert.not.match(csp, 'unsafe-inline');
  assert.is(index.headers.get('cache-control'), 'no-cache');
  const script = /src="(\/console\/main-[A-Z0-9]+\.js)"/.exec(index.text)?.[1];
  assert.ok(script, index.text);
  assert.not.match(index.text, /<script>(?!<)/, 'no inline script');
  const asset = await wip.request('GET', script);
  assert.is(asset.status, 200);
  assert.match(asset.headers.get('cache-control') ?? '', 'immutable');
  assert.is((await wip.request('GET', '/console/manifest.json')).status, 404);
});

test('first sign-in with the generated password shows the banner; changing the password makes it go', async () => {
  const generated = fs.readFileSync(path.join(wip.dataDir, 'initial-admin-password'), 'utf8').trim();
  const response = await page.goto(`${wip.url}/`);
  assert.match(response?.headers()['content-security-policy'] ?? '', "default-src 'none'");
  assert.is(page.url(), `${wip.url}/console/`);
  await page.getByRole('heading', { name: 'Sign in to the wip console' }).waitFor();
  await accessible('sign-in');
  await shot('01-sign-in');
  // one identifier field: an email signs a client user in, a user name a system administrator
  assert.is(await page.getByLabel('Email or administrator user name').getAttribute('autocomplete'), 'username');
  assert.is(await page.getByLabel('Password').getAttribute('autocomplete'), 'current-password');
  await page.getByLabel('Email or administrator user name').fill('admin');
  await page.getByLabel('Password').fill(generated);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  await page.locator('#first-run').waitFor();
  const storage = await page.evaluate<string>('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })');
  assert.is(storage, '{}{}', 'no token in web storage');
  await page.locator('.loading').waitFor({ state: 'detached' });
  await accessible('overview');
  // the appliance says what it runs on: the Node.js of the server and its line's end of life (GET /api/client/version)
  const runtime = await page.locator('dt:text-is("Runtime") + dd').innerText();
  assert.match(runtime, new RegExp(`^Node\\.js ${process.versions.node.replace(/\./g, '\\.')}, supported until \\d{4}-\\d{2}-\\d{2}$`));
  await shot('02-overview-first-run');

  await page.getByRole('link', { name: 'Change it now' }).click();
  await page.getByRole('heading', { level: 1, name: 'Change password' }).waitFor();
  await page.getByLabel('Current password').fill(generated);
  await page.getByLabel('New password').fill('short');
  await page.getByRole('button', { name: 'Change password' }).click();
  // the server's field error, beside its field
  const error = page.locator(
    `#${await page
      .getByLabel('New password')
      .getAttribute('aria-describedby')
      .then((ids) => ids!.split(' ').pop())}`,
  );
  await error.waitFor();
  assert.match(await error.innerText(), 'at least 8 characters');
  assert.is(await page.getByLabel('New password').getAttribute('aria-invalid'), 'true');
  await shot('03-field-error');
  await page.getByLabel('New password').fill(NEW_ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.getByText('Password changed').waitFor();
  await open('overview', 'Overview');
  assert.is(await page.locator('#first-run').count(), 0, 'the banner is gone');
  assert.is(fs.existsSync(path.join(wip.dataDir, 'initial-admin-password')), false, 'the stale generated password is removed');
});

test('a CSRF-less form post with the admin cookie is refused', async () => {
  const status = await page.evaluate(`(async () => {
    const attempt = await fetch('/api/admin/client', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'forged', owner: { email: 'x@forged.test' } }) });
    return { status: attempt.status, code: (await attempt.json()).error.code };
  })()`);
  assert.equal(status, { status: 403, code: 'CSRF_FAILED' });
  // The native form post navigates away: it gets a page of its own (same cookies), so the
  // next test's navigation can never race this one.
  const forger = await page.context().newPage();
  await forger.goto(`${wip.url}/console/`);
  const [answer] = await Promise.all([
    forger.waitForResponse((r) => r.url() === `${wip.url}/api/admin/client` && r.request().method() === 'POST'),
    forger.evaluate(`(() => {
      const form = document.createElement('form');
      form.method = 'post';
      form.action = '/api/admin/client';
      const input = document.createElement('input');
      input.name = 'name';
      input.value = 'forged';
      form.append(input);
      document.body.append(form);
      form.submit();
    })()`),
  ]);
  assert.is(answer.status(), 403);
  await forger.waitForURL(`${wip.url}/api/admin/client`);
  await forger.close();
  const clients = await wip.request('GET', '/api/admin/client', {
    token: (await wip.request('POST', '/api/admin/auth/sign-in', { body: { username: 'admin', password: NEW_ADMIN_PASSWORD } })).body.data
      .token,
  });
  assert.equal(clients.body.data.items, [], 'nothing was created');
});

test('the admin creates a client with an owner; a license key, checked then installed, changes the seats', async () => {
  await open('clients', 'Clients');
  await page.getByLabel('Client name').fill('Acme');
  await page.getByLabel('Owner email (Security Administrator)').fill('not-an-email');
  await page.getByRole('button', { name: 'Create client' }).click();
  const emailError = page.locator('.field-error:not([hidden])');
  await emailError.first().waitFor();
  assert.is(await page.getByLabel('Owner email (Security Administrator)').getAttribute('aria-invalid'), 'true');
  await page.getByLabel('Owner email (Security Administrator)').fill(OWNER.email);
  await page.getByLabel('Owner password').fill(OWNER.password);
  await page.getByLabel('Full seats').fill('5');
  await page.getByRole('button', { name: 'Create client' }).click();
  await page.getByText('Client Acme created.').waitFor();
  await page.getByRole('cell', { name: 'Acme', exact: true }).waitFor();
  await accessible('clients');
  await shot('04-clients');

  await open('license-key', 'License key');
  const seatsBefore = await page.locator('table.seats tr[data-type="full"] td').first().innerText();
  const key = issueTestLicense({ seats: { full: 77, connect: 5 }, maxClients: 10 }, { now: wip.clock.now() });
  await page.getByRole('textbox', { name: 'License key' }).fill(key);
  await page.getByRole('button', { name: 'Check the key' }).click();
  await page.getByRole('heading', { name: 'Terms of this key' }).waitFor();
  assert.match(await page.locator('dl.facts').last().innerText(), '77');
  await accessible('license key preview');
  await shot('05-license-preview');
  await page.getByRole('button', { name: 'Install this key' }).click();
  await page.getByText('License key installed.').waitFor();
  const seatsAfter = await page.locator('table.seats tr[data-type="full"] td').first().innerText();
  assert.is(seatsAfter, '77');
  assert.is.not(seatsBefore, seatsAfter);

  for (const [hash, heading] of [
    ['licenses', 'Licenses'],
    ['agreements', 'Agreements'],
    ['logs', 'Logs'],
    ['translations', 'Translations'],
  ]) {
    await open(hash, heading);
    await accessible(heading);
    await shot(`06-${hash}`);
  }
});

test('operations: a backup started in the console shows progress and is listed; the overview shows it; outbox, security events, live tail and export', async () => {
  await open('backups', 'Backups');
  await accessible('backups');
  await page.getByRole('button', { name: 'Start a backup' }).click();
  // the progress bar appears (the backup may finish before the next poll on a tiny database)
  await page.locator('.progress:not([hidden])').waitFor();
  await page.getByText(/^Backup wip-backup-.*\.tar\.gz written\.$/).waitFor({ timeout: 15_000 });
  assert.match(await page.locator('.progress-text').innerText(), /Done: wip-backup-/);
  const link = page.getByRole('link', { name: /^wip-backup-.*\.tar\.gz$/ });
  await link.waitFor();
  assert.match((await link.getAttribute('href')) ?? '', /^\/api\/admin\/backups\/wip-backup-.*\/download$/);
  await shot('09-backups');

  await open('overview', 'Overview');
  const storage = page.locator('section', { has: page.getByRole('heading', { name: 'Storage and backups' }) });
  assert.match(await storage.innerText(), /Database size\s+\d/);
  assert.not.match(await storage.innerText(), 'none yet', 'the last backup is shown');

  // a failed sign-in is a security event
  await wip.request('POST', '/api/admin/auth/sign-in', { body: { username: 'admin', password: 'not-the-password' } });
  await open('security-events', 'Security events');
  await page.getByRole('cell', { name: 'auth.admin_sign_in_failed' }).first().waitFor();
  await accessible('security events');
  await shot('10-security-events');

  await open('mail', 'Mail outbox');
  await accessible('mail outbox');
  await shot('11-mail-outbox');

  await open('logs', 'Logs');
  await page.getByRole('button', { name: 'Start live tail' }).click();
  await page.getByText('Live: new entries appear at the top.').waitFor();
  await wip.request('POST', '/api/admin/auth/sign-in', { body: { username: 'admin', password: 'tail-this-attempt' } });
  await page.locator('ol.tail li', { hasText: 'auth.admin_sign_in_failed' }).waitFor();
  await accessible('logs with live tail');
  await shot('12-logs-live-tail');
  await page.getByRole('button', { name: 'Stop live tail' }).click();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export' }).click()]);
  assert.match(download.suggestedFilename(), /^wip-logs-.*\.ndjson$/);
  await page.getByText(/^Exported \d+ rows as wip-logs-/).waitFor();
  assert.match(await page.locator('.progress-text').innerText(), /\d+ rows exported\./);
  const exported = fs.readFileSync(await download.path(), 'utf8');
  assert.match(exported, 'auth.admin_sign_in_failed');
  assert.not.match(exported, NEW_ADMIN_PASSWORD);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to the wip console' }).waitFor();
});

test('the owner signs in, invites a supervisor (the preset: operator + approver) who sets a password from the mail and signs in', async () => {
  await page.getByLabel('Email or administrator user name').fill(OWNER.email);
  await page.getByLabel('Password').fill(OWNER.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
  await page.locator('.loading').waitFor({ state: 'detached' });
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill(INVITED.email);
  await page.getByLabel('First name').last().fill('Wendy');
  // a shift lead gets the least-privileged pair that does a supervisor's work (docs/guides/supervisor.md), not publisher
  const invite = page.getByRole('form', { name: 'Invite a user' });
  await invite.getByRole('button', { name: 'Supervisor: operator + approver' }).click();
  const ticked = await invite.locator('input[name="roles"]:checked').evaluateAll((boxes) => boxes.map((box) => box.getAttribute('value')));
  assert.equal(ticked, ['operator', 'approver']);
  await page.getByRole('button', { name: 'Send invitation' }).click();
  // mail goes to the SMTP peer: the console says it was handed to the mail server
  await page.getByText(`Invitation to ${INVITED.email} handed to the mail server.`).waitFor();
  await page.getByRole('cell', { name: INVITED.email }).waitFor();
  await page
    .getByRole('row', { name: new RegExp(INVITED.email) })
    .getByRole('cell', { name: 'operator, approver' })
    .waitFor();
  await accessible('users');
  await shot('07-users');
  for (const [hash, heading] of [
    ['seats', 'Seats'],
    ['security', 'Security settings'],
    ['msa', 'MSA'],
  ]) {
    await open(hash, heading);
    await accessible(heading);
    await shot(`08-${hash}`);
  }
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to the wip console' }).waitFor();

  const mail = await smtp.waitFor((m) => m.to.includes(INVITED.email), 10_000);
  const token = /\/auth\/set-password\/([A-Za-z0-9_-]+)/.exec(mail.text)?.[1];
  assert.ok(token, mail.text);
  await page.goto(`${wip.url}/auth/set-password/${token}`);
  await page.getByRole('heading', { name: 'Set your password' }).waitFor();
  await page.locator('section.rules').waitFor();
  await accessible('set password');
  await page.getByLabel('New password').fill(INVITED.password);
  await page.getByRole('button', { name: 'Save password' }).click();
  await page.getByRole('button', { name: 'Continue to sign in' }).click();
  await page.getByRole('heading', { name: 'Sign in to the wip console' }).waitFor();
  await page.getByLabel('Email or administrator user name').fill(INVITED.email);
  await page.getByLabel('Password').fill(INVITED.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Nothing to administer' }).waitFor();
  assert.match(await page.locator('header').innerText(), INVITED.email);
  // their work is in the floor app
  assert.is(await page.getByRole('link', { name: 'open the floor app' }).getAttribute('href'), '/app/');
});

test('no request of the whole journey left 127.0.0.1', async () => {
  assert.ok(requests.length > 20, `${requests.length} requests`);
  const foreign = requests.filter((url) => !url.startsWith(`${wip.url}/`) && !url.startsWith('data:'));
  assert.equal(foreign, []);
});

test.run();
