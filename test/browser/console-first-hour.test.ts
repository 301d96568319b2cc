import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { assertAccessible, launchChromium, openConsolePage } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';
import { issueTestLicense } from '../helpers/licenses';
import { upsertLockout } from '#repos/auth-failures';
import { userAccount } from '#services/lockout';

// The admin console's first hour, in a real browser
// (Debian's Chromium, headless) at a phone's 390 px and a desktop's 1280 px,
// axe-core on every page. Each width starts its own daemon on a fresh data
// directory with a generated admin password and NO mail server, and walks the
// first hour: sign in as admin with the one identifier field → a client with
// seats of both types → the owner invites a user → the link is copied once →
// the user sets a password (rules listed up front, success confirmed) → signs
// in. Then one test per item, and every page measured against the phone.

const SCREENSHOTS = path.resolve(__dirname, '..', '..', '..', 'test-output', 'console-first-hour');
const OWNER = { email: 'owner@acme.test', password: 'Tr1cky-Horse-Battery' };
const WORKER = { email: 'worker@acme.test', password: 'Blue-Staple-Orbit-77' };

const ADMIN_PAGES: [string, string][] = [
  ['overview', 'Overview'],
  ['clients', 'Clients'],
  ['licenses', 'Licenses'],
  ['license-key', 'License key'],
  ['agreements', 'Agreements'],
  ['logs', 'Logs'],
  ['security-events', 'Security events'],
  ['mail', 'Mail outbox'],
  ['backups', 'Backups'],
  ['translations', 'Translations'],
  ['password', 'Change password'],
];
const SECURITY_ADMIN_PAGES: [string, string][] = [
  ['users', 'Users'],
  ['seats', 'Seats'],
  ['security', 'Security settings'],
  ['msa', 'MSA'],
];

let browser: Browser;
const launched = suite('launch');
launched('Chromium is there', async () => {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  browser = await launchChromium();
});
launched.run();

for (const width of [390, 1280]) {
  const test = suite(`the console's first hour at ${width} px`);
  let wip: TestServer;
  let page: Page;
  let generated = '';
  let adminPassword = '';
  let clientId = 0;

  test.before(async () => {
    // no WIP_ADMIN_PASSWORD (the first start generates one) and no mail server, as on a fresh install
    wip = await startTestServer({
      license: 'evaluation',
      env: { WIP_ADMIN_PASSWORD: undefined as unknown as string, WIP_SMTP_URL: '', WIP_PUBLIC_URL: '' },
    });
    generated = fs.readFileSync(path.join(wip.dataDir, 'initial-admin-password'), 'utf8').trim();
    adminPassword = generated;
    const context = await browser.newContext({ viewport: { width, height: 860 } });
    page = await context.newPage();
    page.setDefaultTimeout(8000);
  });
  test.after(async () => {
    await page?.context().close();
    await wip?.stop();
  });

  const shot = (name: string) => page.screenshot({ path: path.join(SCREENSHOTS, `${width}-${name}.png`), fullPage: true });

  const accessible = (where: string) => assertAccessible(page, `${where} at ${width} px`);

  /** The page is no wider than the viewport: no horizontal scrolling (a wide table scrolls in its own box, or stacks). */
  async function fits(where: string): Promise<void> {
    const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
    assert.ok(scrollWidth <= width, `${where} is ${scrollWidth} px wide at a ${width} px viewport`);
  }

  async function checked(where: string, screenshot?: string): Promise<void> {
    await fits(where);
    await accessible(where);
    if (screenshot) await shot(screenshot);
  }

  const open = (hash: string, heading: string | RegExp) => openConsolePage(page, wip.url, hash, heading);

  async function signIn(identifier: string, password: string, heading: string): Promise<void> {
    await page.getByLabel('Email or administrator user name').fill(identifier);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    await page.locator('.loading').waitFor({ state: 'detached' });
  }

  async function signOut(): Promise<void> {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the wip console' }).waitFor();
  }

  async function asAdmin(): Promise<string> {
    const res = await wip.request('POST', '/api/admin/auth/sign-in', { body: { username: 'admin', password: adminPassword } });
    assert.is(res.status, 200, res.text);
    return res.body.data.token;
  }

  // ── the journey ────────────────────────────────────────────────────────────

  test('item 3: on a fresh install the administrator signs in with "admin" in the one identifier field', async () => {
    await page.goto(`${wip.url}/`);
    await page.getByRole('heading', { name: 'Sign in to the wip console' }).waitFor();
    assert.is(await page.getByLabel('Email or administrator user name').getAttribute('autocomplete'), 'username');
    assert.match(await page.locator('main').innerText(), 'after installation: admin');
    await checked('sign-in', '01-sign-in');
    await signIn('admin', generated, 'Overview');
    assert.match(await page.locator('header').innerText(), 'admin (system administrator)');
    await checked('overview', '02-overview');
    // and a client user with an email: a wrong password is refused by the client sign-in, beside nothing else
    await signOut();
    await page.getByLabel('Email or administrator user name').fill('nobody@acme.test');
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Invalid email or password').waitFor();
    await signIn('admin', generated, 'Overview');
  });

  test('item 4: creating a client explains full and connect seats; the client is named on its users page', async () => {
    await open('clients', 'Clients');
    const create = page.locator('section', { has: page.getByRole('heading', { name: 'Create a client' }) });
    const explained = await create.innerText();
    assert.match(explained, /Full seat\s+— any role/);
    assert.match(explained, /Connect seat\s+— shop-floor people who run jobs or read instructions: the operator and viewer roles only/);
    assert.match(
      await page.locator(`#${(await page.getByLabel('Connect seats').getAttribute('aria-describedby'))!.split(' ')[0]}`).innerText(),
      'operator and viewer',
    );
    await page.getByLabel('Client name').fill('Acme');
    await page.getByLabel('Owner email (Security Administrator)').fill(OWNER.email);
    await page.getByLabel('Owner password').fill(OWNER.password);
    await page.getByLabel('Full seats').fill('3');
    await page.getByLabel('Connect seats').fill('0');
    await page.getByRole('button', { name: 'Create client' }).click();
    await page.getByText('Client Acme created.').waitFor();
    await checked('clients', '03-clients');
    clientId = (await wip.request('GET', '/api/admin/client', { token: await asAdmin() })).body.data.items[0].id;

    await page.getByRole('link', { name: 'Users' }).last().click();
    await page.getByRole('heading', { level: 1, name: 'Users of Acme' }).waitFor();
    await page.locator('.loading').waitFor({ state: 'detached' });
    assert.is(await page.getByText(`Users of client ${clientId}`).count(), 0);
    await page.getByRole('cell', { name: OWNER.email }).waitFor();
    await checked('users of a client', '04-client-users');
  });

  test('item 4: the Licenses page names the client and adds an allocation of a type the client had none of', async () => {
    await open('licenses', 'Licenses');
    await page.getByRole('cell', { name: 'Acme', exact: true }).first().waitFor();
    const rows = page.locator('table.cards tbody tr');
    assert.is(await rows.count(), 1, 'only the full seats: the client was created with 0 connect seats');
    const add = page.getByRole('form', { name: 'Add seats to a client' });
    await add.getByLabel('Client').selectOption({ label: 'Acme' });
    await add.getByLabel('Seat type').selectOption('connect');
    await add.getByLabel('Seats').fill('4');
    await add.getByRole('button', { name: 'Add seats' }).click();
    await page.getByText('4 connect seats added to Acme.').waitFor();
    await page.locator('table.cards tbody tr', { hasText: 'connect' }).waitFor();
    assert.match(await page.locator('table.cards tbody tr', { hasText: 'connect' }).innerText(), /Acme[\s\S]*connect[\s\S]*4/);
    await checked('licenses', '05-licenses');
    const seats = (await wip.request('GET', `/api/admin/license?clientId=${clientId}`, { token: await asAdmin() })).body.data.items;
    assert.equal(seats.map((l: any) => [l.licenseType, l.seats]).sort(), [
      ['connect', 4],
      ['full', 3],
    ]);
    await signOut();
  });

  test('items 8 and 5: without SMTP the invitation truthfully waits in the outbox; the owner copies its link once', async () => {
    await signIn(OWNER.email, OWNER.password, 'Users');
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(WORKER.email);
    await page.getByLabel('First name').last().fill('Wendy');
    await page.getByLabel('operator').last().check();
    await page.getByLabel('viewer').last().check();
    await page.getByLabel('License type').last().selectOption('connect');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    const truth = `Mail is not configured on this appliance: the invitation to ${WORKER.email} is waiting in the outbox`;
    await page.getByText(truth).first().waitFor();
    assert.is(await page.getByText(`Invitation sent to ${WORKER.email}`).count(), 0, 'not "sent"');
    await page.getByRole('cell', { name: WORKER.email }).waitFor();
    await checked('users after an invitation', '06-users-invited');

    await page.getByRole('button', { name: 'Show the invitation link' }).click();
    const field = page.getByRole('textbox', { name: 'Invitation link' });
    await field.waitFor();
    const link = await field.inputValue();
    assert.match(link, new RegExp(`^${wip.url}/auth/set-password/[A-Za-z0-9_-]{20,}$`));
    assert.is(await page.getByRole('button', { name: 'Show the invitation link' }).count(), 0, 'shown once');
    await page.getByRole('button', { name: 'Copy link' }).click();
    await page.getByText(/Copied\.|Press Ctrl\+C/).waitFor();
    await checked('the invitation link', '07-invitation-link');
    // once: the API refuses a second time
    const again = await page.evaluate<number>(`(async () => {
      const csrf = decodeURIComponent(/wip_csrf=([^;]+)/.exec(document.cookie)[1]);
      const users = await (await fetch('/api/admin/user?search=worker', { headers: { accept: 'application/json' } })).json();
      const answer = await fetch('/api/admin/user/' + users.data.items[0].id + '/invitation-link', { method: 'POST', headers: { 'x-csrf-token': csrf } });
      return answer.status;
    })()`);
    assert.is(again, 409);
    (globalThis as any)[`link${width}`] = link;

    // item 5: the owner's own row (and the client's only Security Administrator) offers no Disable or Delete, nor Unlock or Reset 2FA
    const ownerRow = page.locator('table.cards tbody tr', { hasText: OWNER.email });
    const ownerActions = await ownerRow.getByRole('button').allInnerTexts();
    assert.equal(ownerActions, ['Edit']);
    const workerActions = await page.locator('table.cards tbody tr', { hasText: WORKER.email }).getByRole('button').allInnerTexts();
    assert.equal(workerActions, ['Edit', 'Resend invitation', 'Disable', 'Delete']);
    await signOut();
  });

  test('item 9: the invitation link opens a page listing the password rules; success is confirmed; the user signs in', async () => {
    const link: string = (globalThis as any)[`link${width}`];
    await page.goto(link);
    await page.getByRole('heading', { level: 1, name: 'Set your password' }).waitFor();
    const rules = page.locator('section.rules');
    await rules.waitFor();
    const text = await rules.innerText();
    assert.match(text, 'At least 12 characters');
    assert.match(text, 'Not your email address, nor the part of it before the @');
    assert.match(await page.locator('main').innerText(), WORKER.email);
    await checked('set password', '08-set-password');
    await page.getByLabel('New password').fill('worker-is-my-name-42');
    await page.getByRole('button', { name: 'Save password' }).click();
    await page.getByText('must not contain your email address').waitFor();
    await page.getByLabel('New password').fill(WORKER.password);
    await page.getByRole('button', { name: 'Save password' }).click();
    await page.getByText('Your password is set: your account is active.').waitFor();
    await checked('password set', '09-password-set');
    await page.getByRole('button', { name: 'Continue to sign in' }).click();
    await page.getByRole('heading', { name: 'Sign in to the wip console' }).waitFor();
    await signIn(WORKER.email, WORKER.password, 'Nothing to administer');
    assert.match(await page.locator('header').innerText(), WORKER.email);
    await fits('nothing to administer');
    await signOut();
    // the link's page again: used, said plainly
    await page.goto(link);
    await page.getByText('This link has expired or was used already.').waitFor();
    await accessible('a used link');
  });

  test('item 8: the hand-over is a security event naming the Security Administrator, without the token', async () => {
    const token = await asAdmin();
    const events = (await wip.request('GET', `/api/admin/logs?category=security&event=auth.invitation_link_revealed`, { token })).body.data
      .items;
    assert.is(events.length, 1);
    const owner = (await wip.request('GET', `/api/admin/user?clientId=${clientId}&search=owner`, { token })).body.data.items[0];
    assert.is(events[0].userId, owner.id);
    const link: string = (globalThis as any)[`link${width}`];
    assert.not.match(JSON.stringify(events), link.split('/').pop()!);
  });

  test('item 10: the Security events page shows each administrative step of the journey with its actor', async () => {
    await page.goto(`${wip.url}/console/`);
    await signIn('admin', adminPassword, 'Overview');
    await open('security-events', 'Security events');
    const whoOf = async (event: string, hasText?: string) => {
      const row = page.locator('tbody tr', { has: page.getByRole('cell', { name: event, exact: true }), hasText }).first();
      await row.waitFor();
      return (await row.locator('td[data-label="Who"]').innerText()).trim();
    };
    assert.is(await whoOf('auth.admin_sign_in'), 'System administrator admin');
    assert.is(await whoOf('client.created', 'Acme'), 'System administrator admin');
    assert.is(await whoOf('license.seats_allocated', 'connect'), 'System administrator admin');
    assert.match(await whoOf('user.created', WORKER.email), OWNER.email);
    assert.match(await whoOf('auth.invitation_link_revealed'), OWNER.email);
    await checked('security events after the first hour', '10-security-events');
    await signOut();
  });

  // ── one test per remaining item ─────────────────────────────────────────────

  test('item 5: Unlock only for a locked user, Reset 2FA only where a second factor is on', async () => {
    const users = (await wip.request('GET', `/api/admin/user?clientId=${clientId}&limit=50`, { token: await asAdmin() })).body.data.items;
    const worker = users.find((u: any) => u.email === WORKER.email);
    const now = wip.clock.now();
    await upsertLockout(
      wip.deps.db.kysely,
      userAccount(WORKER.email).key,
      new Date(now.getTime() + 3_600_000).toISOString(),
      now.toISOString(),
    );
    await page.goto(`${wip.url}/console/`);
    await signIn(OWNER.email, OWNER.password, 'Users');
    // a second user with a second factor on (written as enrolment leaves it)
    const ownerToken = (await wip.request('POST', '/api/client/auth/sign-in', { body: { email: OWNER.email, password: OWNER.password } }))
      .body.data.token;
    const second = await wip.request('POST', '/api/admin/user', {
      token: ownerToken,
      body: { email: 'second@acme.test', roles: ['author'], licenseType: 'full', password: 'Quiet-Harbor-Lamp-31' },
    });
    assert.is(second.status, 201, second.text);
    await wip.deps.db.kysely
      .insertInto('user_two_factor')
      .values({
        client_id: clientId,
        user_id: second.body.data.id,
        secret: 'sealed',
        enabled_at: now.toISOString(),
        last_used_step: 0,
        recovery_codes: '[]',
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      })
      .execute();
    await page.reload();
    await page.locator('.loading').waitFor({ state: 'detached' });
    const row = (email: string) => page.locator('table.cards tbody tr', { hasText: email });
    await row('second@acme.test').waitFor();
    assert.equal(await row(worker.email).getByRole('button').allInnerTexts(), ['Edit', 'Unlock', 'Disable', 'Delete']);
    assert.equal(await row('second@acme.test').getByRole('button').allInnerTexts(), ['Edit', 'Reset 2FA', 'Disable', 'Delete']);
    assert.equal(await row(OWNER.email).getByRole('button').allInnerTexts(), ['Edit']);
    await checked('users with actions that apply', '10-users-actions');
    await row(worker.email).getByRole('button', { name: 'Unlock' }).click();
    await page.getByText(`${worker.email} unlocked.`).waitFor();
    await row(worker.email).getByRole('button', { name: 'Disable' }).waitFor();
    assert.equal(await row(worker.email).getByRole('button').allInnerTexts(), ['Edit', 'Disable', 'Delete']);
  });

  test('item 5: an error message is gone after navigating away and back', async () => {
    await open('users', 'Users');
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(WORKER.email);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    const error = page.getByText('A user with this email already exists in the client');
    await error.waitFor();
    await page.getByRole('link', { name: 'Seats' }).click();
    await page.getByRole('heading', { level: 1, name: 'Seats' }).waitFor();
    assert.is(await error.count(), 0, 'not on the next page');
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await page.locator('.loading').waitFor({ state: 'detached' });
    await page.locator('table.cards tbody tr').first().waitFor();
    assert.is(await error.count(), 0, 'not when coming back');
    assert.is(await page.locator('.notice.error, .form-status.error').count(), 0);

    // the link of the page already shown: no hash changes, the page is drawn anew all the same
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(WORKER.email);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await error.waitFor();
    await page.getByRole('link', { name: 'Users' }).click();
    await error.waitFor({ state: 'detached' });

    // away to another document (the health answer: light, so a loaded machine is no matter) and back with the browser's Back button
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(WORKER.email);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await error.waitFor();
    await page.goto(`${wip.url}/healthz`, { waitUntil: 'domcontentloaded' });
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await page.locator('table.cards tbody tr').first().waitFor();
    assert.is(await error.count(), 0, 'not after Back either');
  });

  test('item 5: every Security Administrator page fits the screen', async () => {
    for (const [hash, heading] of SECURITY_ADMIN_PAGES) {
      await open(hash, heading);
      await checked(heading, `11-sa-${hash}`);
    }
    await signOut();
  });

  test('item 6: the Translations page says what it is for; the administrator adds an entry and edits it', async () => {
    await signIn('admin', adminPassword, 'Overview');
    await open('translations', 'Translations');
    const about = page.locator('section', { has: page.getByRole('heading', { name: 'What translations are for' }) });
    assert.match(await about.innerText(), 'error messages the API answers');
    const add = page.getByRole('form', { name: 'Add a translation' });
    await add.getByLabel('Language').fill('de');
    await add.getByLabel('Namespace').fill('errors');
    await add.getByLabel('Key').fill('NOT_FOUND');
    await add.getByLabel('Text').fill('Nicht gefunden');
    await add.getByLabel('For').selectOption({ label: 'Acme only' });
    await add.getByRole('button', { name: 'Add translation' }).click();
    await page.getByText('Translation added.').waitFor();
    const row = page.locator('table.cards tbody tr', { hasText: 'NOT_FOUND' });
    await row.waitFor();
    assert.match(await row.innerText(), /Nicht gefunden[\s\S]*Acme/);
    await row.getByRole('button', { name: 'Edit de errors NOT_FOUND' }).click();
    const edit = page.getByRole('form', { name: 'Edit a translation' });
    await edit.getByLabel('Text').fill('Nicht vorhanden');
    await edit.getByRole('button', { name: 'Save text' }).click();
    await page.getByText('Text of errors.NOT_FOUND (de) saved.').waitFor();
    await page.locator('table.cards tbody tr', { hasText: 'Nicht vorhanden' }).waitFor();
    // the same entry again: said plainly
    await add.getByLabel('Language').fill('de');
    await add.getByLabel('Namespace').fill('errors');
    await add.getByLabel('Key').fill('NOT_FOUND');
    await add.getByLabel('Text').fill('Doppelt');
    await add.getByLabel('For').selectOption({ label: 'Acme only' });
    await add.getByRole('button', { name: 'Add translation' }).click();
    await page.getByText('This entry exists already: edit it in the list above.').waitFor();
    await checked('translations', '12-translations');
  });

  test('item 5: every system administrator page fits the screen', async () => {
    for (const [hash, heading] of ADMIN_PAGES) {
      await open(hash, heading);
      await checked(heading, `13-admin-${hash}`);
    }
    await open(`clients/${clientId}/users`, 'Users of Acme');
    await fits('users of a client');
  });

  test.run();
}

// ── item 7: a development key on a production appliance ────────────────────────
const production = suite('item 7: a development license key is refused with how to go on');
let prod: TestServer;
production.before(async () => {
  prod = await startTestServer({ license: 'evaluation', env: { WIP_ENV: 'production' } });
});
production.after(async () => {
  await prod?.stop();
  await browser?.close();
});

for (const width of [390, 1280]) {
  production(`at ${width} px`, async () => {
    const context = await browser.newContext({ viewport: { width, height: 860 } });
    const page = await context.newPage();
    page.setDefaultTimeout(8000);
    try {
      await page.goto(`${prod.url}/console/`);
      await page.getByLabel('Email or administrator user name').fill('admin');
      await page.getByLabel('Password').fill('test-admin-password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      await page.goto(`${prod.url}/console/#/license-key`);
      await page.getByRole('heading', { level: 1, name: 'License key' }).waitFor();
      await page.locator('.loading').waitFor({ state: 'detached' });
      await page.getByRole('textbox', { name: 'License key' }).fill(issueTestLicense());
      await page.getByRole('button', { name: 'Check the key' }).click();
      const status = page.locator('.form-status.error');
      await status.waitFor();
      const text = await status.innerText();
      assert.match(text, 'accepted only when the appliance runs with WIP_ENV=development');
      assert.match(text, 'a production appliance needs a license key from the vendor');
      const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
      assert.ok(scrollWidth <= width, `${scrollWidth} px at ${width}`);
      await assertAccessible(page, `the development key's refusal at ${width} px`);
      await page.screenshot({ path: path.join(SCREENSHOTS, `${width}-14-development-key.png`), fullPage: true });
    } finally {
      await context.close();
    }
  });
}

production.run();
