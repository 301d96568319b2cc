import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, waitInPage } from '../helpers/browser';
import { APP_SCREENSHOTS, checkPage, openApp, waitForPage } from '../helpers/app-browser';
import { buildClient, buildUser } from '../helpers/factories';
import { createJob, DOMAIN_TEST_ENV, publishedTemplate } from '../helpers/domain';
import { edited, finishedJob } from '../helpers/records';
import { startTestServer, type TestServer } from '../helpers/server';

// The shell on a phone, through the pages only: on a phone (360 and 390 px) the bottom bar holds four
// pages and "More" for a user who holds every role, nothing of it or of the sync state cut off, and "More" reaches
// every page by pointer and by keyboard (the current page marked under it too); the sync state in words with its own
// icon per state; no console error on /app/ before sign-in; the "Offline: showing what this device holds" banner
// gone once the server answers again; a long client name wrapped, not cut. Item 3 (record part): a finished job's
// signed record downloaded from its record page (Playwright's download event), verified there, and a tampered copy
// refused. 360/390/820/1280 px, axe-core, English and German; screenshots in test-output/app/.

const LONG_NAME = 'Stadtwerke Musterstadt Wasserversorgung und Abwasserbeseitigung GmbH';
const ALL_ROLES = ['admin', 'user_admin', 'author', 'operator', 'approver', 'publisher', 'viewer'];

let browser: Browser;
let wip: TestServer;
let everyone: { email: string; password: string };
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-shell-phone-'));

const test = suite('the floor app on a phone: bottom bar, More, sync words, record download');
test.before(async () => {
  browser = await launchChromium();
  wip = await startTestServer({ env: DOMAIN_TEST_ENV });
  const client = await buildClient(wip, { name: LONG_NAME, seats: { full: 20, connect: 20 } });
  everyone = await buildUser(wip, client, { roles: ALL_ROLES });
});
test.after(async () => {
  await browser?.close();
  await wip?.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

interface Box {
  name: string;
  left: number;
  right: number;
  top: number;
  bottom: number;
  clipped: boolean;
}

/** The shown nav items, the sync indicator and the client's name: their boxes, and whether their text overflows them. */
async function shownBoxes(page: Page): Promise<Box[]> {
  return page.evaluate<Box[]>(`(() => {
    const out = [];
    const parts = [...document.querySelectorAll('.app-nav > ul > li > a, .app-nav > ul > li .nav-more-button, .sync, .brand-name')];
    for (const element of parts) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      const clipped = [element, ...element.querySelectorAll('span')].some((e) => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1);
      out.push({ name: (element.textContent || '').trim(), left: box.left, right: box.right, top: box.top, bottom: box.bottom, clipped });
    }
    return out;
  })()`);
}

/** The user's language, through the header's select (saved with the user: the next page opens in it too). */
async function useLanguage(page: Page, code: 'en' | 'de'): Promise<void> {
  await page.getByLabel(/Language|Sprache/).selectOption(code);
  await page.getByRole('navigation', { name: code === 'de' ? 'Hauptnavigation' : 'Main' }).waitFor();
}

async function assertNothingCutOff(page: Page, width: number): Promise<void> {
  const boxes = await shownBoxes(page);
  const height = page.viewportSize()!.height;
  for (const box of boxes) {
    assert.ok(
      box.left >= 0 && box.right <= width + 0.5 && box.top >= 0 && box.bottom <= height + 0.5,
      `${box.name} outside the ${width} px viewport: ${JSON.stringify(box)}`,
    );
    assert.not.ok(box.clipped, `${box.name} is cut off at ${width} px`);
  }
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
  assert.ok(overflow <= 1, `${overflow} px of horizontal overflow at ${width} px`);
}

test('before sign-in, /app/ logs no console error (no 401 asked for)', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 800 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${wip.url}/app/`);
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  await page.getByLabel('Email').fill(everyone.email);
  await page.getByLabel('Password').fill(everyone.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await waitForPage(page, { heading: /^Hello, / });
  assert.equal(errors, []);
  await context.close();
});

test('an all-roles user at 360 and 390 px: four pages and More in the bar, nothing cut off, More reaches every page', async () => {
  for (const width of [360, 390]) {
    const page = await openApp(browser, wip, everyone, { width, height: 780 });
    const nav = page.getByRole('navigation', { name: 'Main' });
    const bar = nav.locator('> ul > li:visible');
    assert.is(await bar.count(), 5);
    await assertNothingCutOff(page, width);
    // the header: the whole client name (wrapped), the sync state in words
    assert.is(await page.locator('.brand-name').innerText(), LONG_NAME);
    assert.match(
      await page
        .getByRole('status')
        .filter({ has: page.locator('.sync-text') })
        .innerText(),
      /Online/,
    );

    const more = nav.getByRole('button', { name: 'More' });
    await more.click();
    const list = page.getByRole('list', { name: 'More pages' });
    await list.waitFor();
    const hidden = await list.getByRole('link').allInnerTexts();
    assert.equal(hidden, ['New job', 'Deviations', 'Schedules', 'Templates', 'Reviews', 'Review by exception', 'To verify', 'Skills']);
    await assertNothingCutOff(page, width);
    if (width === 390) await checkPage(page, 'shell', 'more-open', width);
    // every page under More: reached, its heading shown, the More button marked as the current place
    for (const name of hidden) {
      if (!(await list.isVisible())) await more.click();
      const link = list.getByRole('link', { name, exact: true });
      const href = (await link.getAttribute('href')) ?? '';
      await link.click();
      // the router moves at once, but the list closes on the next render: wait for that (a list that
      // never closes fails here after the timeout), then for the new page itself
      await list.waitFor({ state: 'hidden' });
      assert.is(await page.evaluate('location.pathname'), href, 'choosing a page goes there');
      await waitForPage(page, { path: href });
      assert.is(await more.getAttribute('class'), 'nav-more-button is-current');
      assert.match(await more.innerText(), new RegExp(`More\\s*\\(now: ${name}\\)`));
      await more.click();
      assert.is(await list.getByRole('link', { name, exact: true }).getAttribute('aria-current'), 'page');
      await more.click();
    }
    // a page in the bar: marked there, More is not
    await nav.getByRole('link', { name: 'Home' }).click();
    await waitForPage(page, { path: '/app/' });
    assert.is(await nav.getByRole('link', { name: 'Home' }).getAttribute('aria-current'), 'page');
    assert.is(await more.getAttribute('class'), 'nav-more-button');
    await checkPage(page, 'shell', 'phone-bar', width);

    // by keyboard: Enter opens and focuses the first page, Tab walks the list, Escape closes it back onto More
    await more.focus();
    await page.keyboard.press('Enter');
    await list.waitFor();
    await waitInPage(page, "document.activeElement.closest('.nav-more-list') !== null");
    assert.is(await page.evaluate<string>('document.activeElement.textContent'), hidden[0]);
    await page.keyboard.press('Tab');
    assert.is(await page.evaluate<string>('document.activeElement.textContent'), hidden[1]);
    await page.keyboard.press('Escape');
    assert.not.ok(await list.isVisible());
    assert.is(await page.evaluate<string>('document.activeElement.className'), 'nav-more-button');
    await page.keyboard.press('Space');
    await list.waitFor();
    await waitInPage(page, "document.activeElement.closest('.nav-more-list') !== null");
    await page.keyboard.press('Enter');
    await waitForPage(page, { path: '/app/jobs/new' });
    await page.context().close();
  }
});

test('German at 360 and 390 px, tablet and desktop: no More on the side rail, every page listed, axe clean', async () => {
  for (const width of [360, 390]) {
    const page = await openApp(browser, wip, everyone, { width, height: 780 });
    await useLanguage(page, 'de');
    await assertNothingCutOff(page, width);
    await page.getByRole('button', { name: 'Mehr' }).click();
    await page.getByRole('list', { name: 'Weitere Seiten' }).waitFor();
    await assertNothingCutOff(page, width);
    await checkPage(page, 'shell', 'more-open-de', width);
    await page.context().close();
  }
  for (const width of [820, 1280]) {
    const page = await openApp(browser, wip, everyone, { width });
    await useLanguage(page, 'en');
    const nav = page.getByRole('navigation', { name: 'Main' });
    assert.not.ok(await nav.getByRole('button', { name: 'More' }).isVisible());
    assert.is(await nav.getByRole('link').filter({ visible: true }).count(), 12);
    await checkPage(page, 'shell', 'side-rail', width);
    await page.context().close();
  }
});

test('the sync state in words and a different icon per state; the stale offline banner goes when the server answers', async () => {
  const operatorClient = await buildClient(wip, { name: 'Acme Pumps', seats: { full: 20, connect: 20 } });
  const operator = await buildUser(wip, operatorClient, { roles: ['operator'] });
  const { templateId } = await publishedTemplate(wip, operatorClient, {
    sections: [
      {
        id: 's',
        title: 'Check',
        steps: [{ id: 'look', title: 'Look at the seal', fields: [{ key: 'note', label: 'Note', type: 'TEXT' }] }],
      },
    ],
  });
  const job = await createJob(wip, operatorClient.owner.token, { templateId, title: 'Seal check', assigneeIds: [operator.id] });
  const page = await openApp(browser, wip, operator, { width: 390, path: `/app/jobs/${job.id}` });
  await page.getByText('Available offline on this device').waitFor();
  // the service worker holds the app's pages: moving between them offline needs no network
  await page.evaluate('navigator.serviceWorker.ready.then(() => true)');
  const sync = page.locator('[data-sync]');
  await page.locator('[data-sync="online"][data-waiting="0"]').waitFor();
  const seen = new Map<string, { text: string; icon: string }>();
  const note = async (state: string) => {
    await page.locator(`[data-sync="${state}"]`).waitFor({ timeout: 20_000 });
    seen.set(state, { text: await sync.innerText(), icon: (await sync.locator('svg path').getAttribute('d')) ?? '' });
  };
  await note('online');
  assert.is(seen.get('online')!.text, 'Online · all sent');
  await assertNothingCutOff(page, 390);

  // offline: the page moves on within the app (no reload) and shows the device's copy
  await page.context().setOffline(true);
  await note('offline');
  assert.is(seen.get('offline')!.text, 'Offline');
  const nav = page.getByRole('navigation', { name: 'Main' });
  const openJobFromList = async () => {
    await nav.getByRole('link', { name: 'Jobs' }).click();
    await waitForPage(page, { path: '/app/jobs' });
    await page.getByRole('link', { name: 'Seal check' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Seal check' }).waitFor();
  };
  await openJobFromList();
  await page.getByText('Offline: showing what this device holds.').waitFor();

  // a step recorded offline waits on the device: "Offline · 1 waiting"
  await page.getByRole('link', { name: 'Run job' }).click();
  await page.getByRole('textbox', { name: 'Note' }).fill('Seal dry');
  await page.getByRole('button', { name: 'Save and review' }).click();
  await page.locator('[data-sync="offline"][data-waiting="1"]').waitFor();
  seen.set('offline-waiting', { text: await sync.innerText(), icon: (await sync.locator('svg path').getAttribute('d')) ?? '' });
  assert.is(seen.get('offline-waiting')!.text, 'Offline · 1 waiting');
  await checkPage(page, 'operator', 'sync-offline-waiting', 390);
  await openJobFromList();
  await page.getByText('Offline: showing what this device holds.').waitFor();

  // the network returns: the item is sent, and the page is the server's again (the banner gone, unasked)
  await page.context().setOffline(false);
  await page.locator('[data-sync="online"][data-waiting="0"]').waitFor({ timeout: 30_000 });
  await page.getByText('Offline: showing what this device holds.').waitFor({ state: 'detached', timeout: 20_000 });
  await page.getByText('Available offline on this device').waitFor();

  const texts = [...seen.values()].map((s) => s.text);
  assert.is(new Set(texts).size, texts.length, texts.join(' | '));
  assert.is(new Set([seen.get('online')!.icon, seen.get('offline')!.icon]).size, 2);
  await page.context().close();
});

test("a finished job's signed record: downloaded from its record page, verified there, a tampered copy refused", async () => {
  const { client, job } = await finishedJob(wip);
  const reader = await buildUser(wip, client, { roles: ['operator', 'approver'] });
  for (const [width, language] of [
    [1280, 'en'],
    [390, 'en'],
    [820, 'de'],
  ] as const) {
    const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'en-GB', acceptDownloads: true });
    const page = await openApp(browser, wip, reader, { width, path: `/app/jobs/${job.id}/record`, context });
    await useLanguage(page, language);
    if (language === 'de') await page.getByRole('heading', { level: 2, name: 'Signierter Nachweis' }).waitFor();
    const words =
      language === 'de'
        ? {
            download: 'Nachweis herunterladen',
            verify: 'Prüfen',
            file: 'Zu prüfende Nachweisdatei',
            valid: /^Gültig: /,
            invalid: /^Ungültig: /,
          }
        : { download: 'Download record', verify: 'Verify', file: 'Record file to verify', valid: /^Valid: /, invalid: /^Not valid: / };
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: words.download }).click()]);
    assert.is(download.suggestedFilename(), `job-${job.id}-record.json`);
    const saved = path.join(work, `${width}-${download.suggestedFilename()}`);
    await download.saveAs(saved);
    const text = fs.readFileSync(saved, 'utf8');
    assert.is(JSON.parse(text).format, 'wip-record-bundle');

    // the file just downloaded, verified in place
    await page.getByRole('button', { name: words.verify, exact: true }).click();
    const verdict = page.locator('#verification-verdict');
    await verdict.waitFor();
    assert.match(await verdict.innerText(), words.valid);
    assert.is(await page.locator('[data-verdict]').getAttribute('data-verdict'), 'VERIFIED');
    await checkPage(page, 'jobs', `record-verified-${language}`, width);
    if (width === 1280)
      await page.locator('.record-bundle').screenshot({ path: path.join(APP_SCREENSHOTS, 'jobs-record-bundle-1280.png') });

    // a copy with one value changed: refused, the failure named
    const tampered = path.join(work, `${width}-tampered.json`);
    fs.writeFileSync(
      tampered,
      edited(text, (p) => (p.steps[0].values[0].value = 11)),
    );
    await page.getByLabel(words.file).setInputFiles(tampered);
    await page.getByRole('button', { name: words.verify, exact: true }).click();
    await page.locator('[data-verdict="NOT_VERIFIED"]').waitFor();
    assert.match(await verdict.innerText(), words.invalid);
    assert.match(await page.locator('.verification .problems').innerText(), /the signature does not verify/);
    await checkPage(page, 'jobs', `record-tampered-${language}`, width);
    await context.close();
  }
});

test('an unfinished job says when its record can be downloaded', async () => {
  const { client, job } = await finishedJob(wip, { complete: false });
  const reader = await buildUser(wip, client, { roles: ['operator', 'approver'] });
  const page = await openApp(browser, wip, reader, { width: 390, path: `/app/jobs/${job.id}/record` });
  await page.getByText('The signed record can be downloaded once the job is completed or cancelled').waitFor();
  assert.is(await page.getByRole('button', { name: 'Download record' }).count(), 0);
  await page.context().close();
});

test.run();
