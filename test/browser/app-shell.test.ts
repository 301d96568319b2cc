import { Secret, TOTP } from 'otpauth';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { assertAccessible, launchChromium, waitInPage } from '../helpers/browser';
import {
  APP_WIDTHS,
  checkPage,
  openApp,
  smallTargets,
  startAppServer,
  waitForPage,
  type AppTeam,
  type Member,
} from '../helpers/app-browser';
import { adminToken, buildClient, buildUser } from '../helpers/factories';
import { solidPng } from '../helpers/images';
import { upload } from '../helpers/upload';
import type { TestServer } from '../helpers/server';

// The floor app's shell in Debian's Chromium — sign-in with a password and with a second factor,
// a deep link that survives the sign-in, the client's branding, the language switch to German, keyboard-only
// use, the shell reloaded offline from the service worker, and every shell page at 390, 820 and 1280 px
// (axe-core, no horizontal scrolling, touch targets, screenshots in test-output/app/).

let browser: Browser;
let wip: TestServer;
let team: AppTeam;

const test = suite('the floor app shell');
test.before(async () => {
  browser = await launchChromium();
  ({ wip, team } = await startAppServer({ clientName: 'Acme Pumps' }));
  // the client's logo: a system file the system administrator sets as the client's
  const admin = await adminToken(wip);
  const logo = await upload(wip, admin, [{ name: 'logo.png', data: solidPng(96, 48, [200, 30, 30]) }], { path: '/api/admin/upload' });
  assert.is(logo.status, 201, logo.text);
  const put = await wip.request('PUT', `/api/admin/client/${team.client.id}`, {
    token: admin,
    body: { logoFileId: logo.body.data.files[0].id },
  });
  assert.is(put.status, 200, put.text);
});
test.after(async () => {
  await browser?.close();
  await wip?.stop();
});

/** Resolves once a service worker controls the page (its precache installed). */
const CONTROLLED = `new Promise((resolve) => {
  if (navigator.serviceWorker.controller) resolve();
  else navigator.serviceWorker.addEventListener('controllerchange', () => resolve());
})`;

async function signInThroughPage(page: Page, member: Member): Promise<void> {
  await page.getByLabel('Email').fill(member.email);
  await page.getByLabel('Password').fill(member.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

test('signed out, a deep link shows the sign-in page and leads back after a password sign-in; the branding shows', async () => {
  const page = await openApp(browser, wip, null, { width: 820, path: '/app/board' });
  await page.waitForURL(/\/app\/signin\?next=/);
  assert.is(new URL(page.url()).pathname, '/app/signin');
  assert.is(new URL(page.url()).searchParams.get('next'), '/app/board');
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  await checkPage(page, 'shell', 'signin', 820);

  // a wrong password: said in the page, the fields keep what was typed
  await page.getByLabel('Email').fill(team.supervisor.email);
  await page.getByLabel('Password').fill('not-the-password');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('alert').filter({ hasText: 'The email or the password is wrong.' }).waitFor();
  assert.is(await page.getByLabel('Email').inputValue(), team.supervisor.email);

  await signInThroughPage(page, team.supervisor);
  await page.waitForURL(`${wip.url}/app/board`);
  await page.getByRole('heading', { level: 1, name: 'Board of open jobs' }).waitFor();
  // the client's name and logo in the header (the logo loaded: not a broken image)
  const banner = page.getByRole('banner');
  assert.match((await banner.textContent()) ?? '', 'Acme Pumps');
  assert.match((await banner.textContent()) ?? '', 'Sam Supervisor');
  await page.locator('img.brand-logo').waitFor();
  await waitInPage(page, "document.querySelector('img.brand-logo').complete");
  const logoWidth = await page.evaluate<number>("document.querySelector('img.brand-logo').naturalWidth");
  assert.is(logoWidth, 96);
  await page.context().close();
});

test('an account with a second factor: password, then the TOTP code, then the page', async () => {
  const member = team.operators[1];
  const codeAt = (secret: string, at: number) =>
    new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: at });
  const setup = await wip.request('POST', '/api/client/auth/two-factor/setup', {
    token: member.token,
    body: { password: member.password },
  });
  assert.is(setup.status, 200, setup.text);
  const enable = await wip.request('POST', '/api/client/auth/two-factor/enable', {
    token: member.token,
    body: { code: codeAt(setup.body.data.secret, wip.clock.now().getTime()) },
  });
  assert.is(enable.status, 200, enable.text);
  // the next window's code: the one just used is not accepted twice
  wip.clock.advance(30_000);

  const page = await openApp(browser, wip, null, { width: 390, path: '/app/' });
  await signInThroughPage(page, member);
  await page.getByRole('heading', { level: 1, name: 'Second factor' }).waitFor();
  await checkPage(page, 'shell', 'signin-code', 390);
  await page.getByLabel('Code').fill(codeAt(setup.body.data.secret, wip.clock.now().getTime()));
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByRole('heading', { level: 1, name: `Hello, ${member.firstName} ${member.lastName}` }).waitFor();
  assert.is(new URL(page.url()).pathname, '/app/');
  await page.context().close();
});

test('a client that requires a second factor: a user without one enrols first (QR code, first code, recovery codes)', async () => {
  const client = await buildClient(wip, { name: 'Strict Works' });
  const user = await buildUser(wip, client, { roles: ['operator'] });
  const required = await wip.request('PUT', '/api/client/auth/client-security-settings', {
    token: client.owner.token,
    body: { twoFactorRequired: 'all' },
  });
  assert.is(required.status, 200, required.text);
  const page = await openApp(browser, wip, { email: user.email, password: user.password }, { width: 820, path: '/app/deviations' });
  await page.getByRole('heading', { level: 1, name: 'Set up two-factor authentication' }).waitFor();
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
  await checkPage(page, 'shell', 'two-factor-setup', 820);
  const secret = ((await page.locator('main code').first().textContent()) ?? '').trim();
  const code = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({
    timestamp: wip.clock.now().getTime(),
  });
  await page.getByLabel('Code').fill(code);
  await page.getByRole('button', { name: 'Turn on' }).click();
  await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
  assert.is(await page.locator('.recovery-codes li').count(), 10);
  await page.getByRole('button', { name: 'Continue to the app' }).click();
  // the page asked for at first
  await page.getByRole('heading', { level: 1, name: 'Deviations' }).waitFor();
  assert.is(new URL(page.url()).pathname, '/app/deviations');
  await page.context().close();
});

test('the language switch: German everywhere in the shell at once, kept with the account, and after a reload', async () => {
  const member = team.approver;
  const page = await openApp(browser, wip, member, { width: 1280, path: '/app/' });
  await page.getByRole('heading', { level: 1, name: `Hello, ${member.firstName} ${member.lastName}` }).waitFor();
  await page.getByLabel('Language').selectOption('de');
  await page.getByRole('heading', { level: 1, name: `Hallo, ${member.firstName} ${member.lastName}` }).waitFor();
  assert.is(await page.evaluate<string>('document.documentElement.lang'), 'de');
  await page.getByRole('navigation', { name: 'Hauptnavigation' }).getByRole('link', { name: 'Start' }).waitFor();
  await page.getByRole('button', { name: 'Abmelden' }).waitFor();
  await checkPage(page, 'shell', 'home-de', 1280);
  // the account keeps it (the user's one language setting)
  const preferences = await wip.request('GET', '/api/client/account/notification-preferences', { token: member.token });
  assert.is(preferences.body.data.language, 'de');
  await page.reload();
  await page.getByRole('heading', { level: 1, name: `Hallo, ${member.firstName} ${member.lastName}` }).waitFor();
  await page.context().close();
});

test('keyboard only: the skip link first, the navigation, focus on the new page heading, focus always visible', async () => {
  const page = await openApp(browser, wip, team.supervisor, { width: 1280, path: '/app/' });
  await page.keyboard.press('Tab');
  assert.is(await page.evaluate<string>('document.activeElement?.textContent'), 'Skip to content');
  const outline = await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle');
  assert.is.not(outline, 'none', 'a visible focus ring');
  await page.keyboard.press('Enter');
  assert.is(await page.evaluate<string>('document.activeElement?.id'), 'main');

  // from the top: tab to the navigation's "Board" link, follow it with Enter
  await page.evaluate('document.activeElement?.blur()');
  let found = false;
  for (let i = 0; i < 30 && !found; i++) {
    await page.keyboard.press('Tab');
    found = await page.evaluate<boolean>(
      "document.activeElement?.closest('nav') !== null && document.activeElement?.textContent === 'Board'",
    );
  }
  assert.ok(found, 'the Board link is reachable with Tab');
  await page.keyboard.press('Enter');
  await page.waitForURL(`${wip.url}/app/board`);
  await waitInPage(page, "document.activeElement?.tagName === 'H1'");
  assert.is(await page.evaluate<string>('document.activeElement?.textContent'), 'Board of open jobs');
  assert.match(await page.title(), /^Board of open jobs · Acme Pumps$/);
  assert.is(await page.getByRole('navigation').getByRole('link', { name: 'Board', exact: true }).getAttribute('aria-current'), 'page');
  await page.context().close();
});

test('offline: once loaded, a reload of the shell and a deep link come from the service worker', async () => {
  const page = await openApp(browser, wip, team.operators[0], { width: 820, path: '/app/' });
  // the worker installed (every file of the shell precached) and controls the page
  await page.evaluate(CONTROLLED);
  await page.context().setOffline(true);
  const reloaded = await page.reload();
  assert.ok(reloaded?.fromServiceWorker(), 'the page came from the service worker');
  await page.getByRole('heading', { level: 1, name: 'Hello, Olga Operator' }).waitFor();
  // the page says there is no connection: "Offline" where the browser knows it, "Server not reachable" where only
  // the failed request tells (Chromium's emulated offline leaves navigator.onLine true after a reload)
  await page
    .getByRole('banner')
    .getByText(/^(Offline|Server not reachable)$/)
    .waitFor();
  // a deep link, offline: the shell, and the page says there is no connection rather than nothing
  await page.goto(`${wip.url}/app/jobs`);
  await waitForPage(page);
  assert.is(new URL(page.url()).pathname, '/app/jobs');
  await page.getByRole('navigation').getByRole('link', { name: 'Home' }).waitFor();
  await page.context().setOffline(false);
  await page.context().close();
});

test('sign out ends the session: the sign-in page, and the API refuses the old cookie', async () => {
  const page = await openApp(browser, wip, team.publisher, { width: 820, path: '/app/' });
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  const status = await page.evaluate<number>("fetch('/api/client/auth/me').then((r) => r.status)");
  assert.is(status, 401);
  await page.context().close();
});

for (const width of APP_WIDTHS) {
  test(`the shell's pages at ${width} px: axe, no horizontal scrolling, touch targets of 44 px, screenshots`, async () => {
    const signIn = await openApp(browser, wip, null, { width, path: '/app/signin' });
    await checkPage(signIn, 'shell', 'signin', width);
    assert.equal(await smallTargets(signIn), [], 'sign-in');
    await signIn.context().close();

    const page = await openApp(browser, wip, team.supervisor, { width, path: '/app/' });
    await page.getByRole('heading', { level: 1, name: 'Hello, Sam Supervisor' }).waitFor();
    await waitForPage(page);
    await checkPage(page, 'shell', 'home', width);
    assert.equal(await smallTargets(page), [], 'home');
    await page.goto(`${wip.url}/app/nowhere`);
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    await checkPage(page, 'shell', 'not-found', width);
    await assertAccessible(page, `not found at ${width}`);
    await page.context().close();
  });
}

test.run();
