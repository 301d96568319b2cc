import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, waitInPage } from '../helpers/browser';
import { checkPage, openApp, startAppServer, waitForPage, type AppTeam, type Member } from '../helpers/app-browser';
import type { TestServer } from '../helpers/server';
import { gql, gid } from '../helpers/graphql';
import { advance, ok } from '../helpers/templates';
import { createJob } from '../helpers/domain';
import { solidPng } from '../helpers/images';
import { upload } from '../helpers/upload';
import { appTexts, type AppLanguage } from '../../src/lib/app-texts';

// Shared devices, through the pages only (Debian's Chromium): an operator signs out of a tablet while
// it is offline, with a change still waiting. The app locks at once, and what it kept of theirs to read (jobs,
// version documents, cached media) is gone; the network back, the first request is the sign-out, and the
// browser's cookie no longer opens a session. The next person signs in and finds none of the first one's jobs,
// online or offline; the first operator signs in again and their waiting change is sent, in their name.
// At 390 px in English and 820 px in German; axe-core and screenshots (test-output/app/shared-device-*).

let browser: Browser;
let wip: TestServer;
let team: AppTeam;
let templateId = 0;

const LOCK = 'wip.app.signOutPending';
const SECRET = 'Plate reads A-77-SECRET';

const setup = suite('shared device: set-up');
setup('a server, a team, a published template with a picture; Chromium', async () => {
  ({ wip, team } = await startAppServer());
  const picture = await upload(wip, team.author.token, [{ name: 'plate.png', data: solidPng(64, 32, [20, 90, 200]), type: 'image/png' }]);
  assert.is(picture.status, 201, picture.text);
  const fileId: number = picture.body.data.files[0].id;
  const created = ok(
    await gql(
      wip,
      team.author.token,
      `mutation($i: CreateTemplateInput!) { createTemplate(input: $i) { template { databaseId latestVersion { id } } } }`,
      {
        i: {
          title: 'Name plate check',
          content: {
            sections: [
              {
                sectionId: 'main',
                title: 'Plate',
                steps: [
                  {
                    stepId: 'plate',
                    title: 'Read the name plate',
                    media: [fileId],
                    fields: [{ key: 'plate', label: 'Plate text', type: 'TEXT' }],
                  },
                  { stepId: 'done', title: 'Tidy up', fields: [{ key: 'tidy', label: 'Tidy', type: 'PASS_FAIL' }] },
                ],
              },
            ],
          },
        },
      },
    ),
  ).createTemplate.template;
  templateId = created.databaseId;
  await advance(wip, team, created.latestVersion.id, 'PUBLISHED');
  browser = await launchChromium();
});
setup.run();

/** The app's own text of `key` in `language`, `{n}` filled in. */
function text(language: AppLanguage, key: string, values: Record<string, string | number> = {}): string {
  const found = appTexts(language)[key] ?? appTexts('en')[key];
  if (!found) throw new Error(`no text ${key}`);
  return found.replace(/\{(\w+)\}/g, (_, name: string) => String(values[name]));
}

async function jobFor(member: Member, title: string): Promise<{ id: string; databaseId: number }> {
  const job = await createJob(wip, team.supervisor.token, { templateId, title, assigneeIds: [member.id] });
  return { id: gid('Job', job.id), databaseId: job.id };
}

async function signInThroughPage(page: Page, language: AppLanguage, member: Member): Promise<void> {
  await page.getByRole('heading', { level: 1, name: text(language, 'shell.signIn.title') }).waitFor();
  await page.getByLabel(text(language, 'shell.signIn.email')).fill(member.email);
  await page.getByLabel(text(language, 'shell.signIn.password')).fill(member.password);
  await page.getByRole('button', { name: text(language, 'shell.signIn.submit'), exact: true }).click();
  await page.getByRole('banner').getByText(`${member.firstName} ${member.lastName}`).waitFor();
}

/** What the page can read of the device's stores: IndexedDB's offline database, Cache Storage, localStorage. */
interface DeviceStores {
  jobs: { user: string; jobId: string }[];
  versions: number;
  blobs: number;
  items: { user: string; jobId: string }[];
  caches: { name: string; urls: string[] }[];
  session: string | null;
  /** every stored value as text, to search for what was typed */
  dump: string;
}
const READ_STORES = `(async () => {
  const db = await new Promise((resolve, reject) => {
    const open = indexedDB.open('wip-offline');
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
  const all = (store) => new Promise((resolve) => {
    if (!db.objectStoreNames.contains(store)) return resolve([]);
    const request = db.transaction(store).objectStore(store).getAll();
    request.onsuccess = () => resolve(request.result);
  });
  const [jobs, versions, blobs, items, uploads, resolutions] = await Promise.all(['jobs', 'versions', 'blobs', 'items', 'uploads', 'resolutions'].map(all));
  db.close();
  const cacheList = [];
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    cacheList.push({ name, urls: (await cache.keys()).map((r) => new URL(r.url).pathname) });
  }
  return {
    jobs: jobs.map((r) => ({ user: r.user, jobId: r.jobId })),
    versions: versions.length,
    blobs: blobs.length,
    items: items.map((r) => ({ user: r.user, jobId: r.jobId })),
    caches: cacheList,
    session: localStorage.getItem('wip.app.session'),
    dump: JSON.stringify({ jobs, versions, uploads, resolutions }),
  };
})()`;
const readStores = (page: Page) => page.evaluate<DeviceStores>(READ_STORES);

/** axe, no overflow and a screenshot at the phone's and the tablet's width, back at `width` after. */
async function checkWidths(page: Page, name: string, width: number): Promise<void> {
  for (const each of [390, 820].filter((w) => w !== width).concat(width)) {
    await page.setViewportSize({ width: each, height: 900 });
    await checkPage(page, 'shared-device', name, each);
  }
}

const meStatus = (page: Page) => page.evaluate<number>("fetch('/api/client/auth/me').then((r) => r.status)");

const SIGN_OUT = 'POST /api/client/auth/sign-out';
const SIGNED_OUT = '(the server ended the session)';

/** The app's API requests in a context, in order (its service worker's too), and when a sign-out was answered. */
function requestLog(context: BrowserContext): string[] {
  const log: string[] = [];
  context.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/api/')) log.push(`${request.method()} ${url.pathname}`);
  });
  context.on('response', (response) => {
    const request = response.request();
    if (`${request.method()} ${new URL(request.url()).pathname}` === SIGN_OUT && response.status() < 500) log.push(SIGNED_OUT);
  });
  return log;
}

const flow = suite('shared device: sign-out offline, the next person, the first one back');

for (const [width, language, locale] of [
  [390, 'en', 'en-GB'],
  [820, 'de', 'de-DE'],
] as const) {
  flow(`${width} px, ${language}: offline sign-out locks, clears and ends the session first; the queue waits for its user`, async () => {
    const [first, next] = team.operators;
    const firstJob = await jobFor(first, `Plate check ${width} for ${first.firstName}`);
    const nextJob = await jobFor(next, `Plate check ${width} for ${next.firstName}`);
    const context = await browser.newContext({ viewport: { width, height: 900 }, locale });
    const log = requestLog(context);
    const page = await openApp(browser, wip, first, { width, path: `/app/jobs/${firstJob.databaseId}`, context });
    await page.getByText(text(language, 'operator.job.offlineReady')).waitFor();
    await page.evaluate('navigator.serviceWorker.ready.then(() => true)');
    await waitInPage(page, "caches.open('wip-job-media').then((c) => c.keys()).then((k) => k.length > 0)");
    // a second tab of the app, on the user's job list
    const otherTab = await context.newPage();
    await otherTab.goto(`${wip.url}/app/jobs`);
    await waitForPage(otherTab);
    const before = await readStores(page);
    assert.ok(
      before.jobs.some((j) => j.jobId === firstJob.id),
      'the job is kept for offline use',
    );
    assert.ok(before.versions > 0);

    // ── offline: a change recorded, then sign-out with it still waiting ──────────────────────────────────────
    await context.setOffline(true);
    await page.goto(`${wip.url}/app/jobs/${firstJob.databaseId}/run`).catch(() => undefined);
    await waitForPage(page);
    await page.getByRole('textbox', { name: 'Plate text' }).fill(SECRET);
    await page.getByRole('button', { name: text(language, 'operator.run.next') }).click();
    await page.getByRole('heading', { name: 'Tidy up' }).waitFor();
    await page.locator('[data-sync][data-waiting="1"]').waitFor();

    await page
      .getByRole('banner')
      .getByRole('button', { name: text(language, 'shell.signOut') })
      .click();
    const warning = page.getByRole('dialog', { name: text(language, 'shell.signOutWaiting.title') });
    await warning.getByText(text(language, 'shell.signOutWaiting.body', { n: 1 })).waitFor();
    await checkWidths(page, `warning-${language}`, width);
    const sentBeforeSignOut = log.length;
    await warning.getByRole('button', { name: text(language, 'shell.signOutWaiting.confirm') }).click();

    // locked at once: the sign-in page (a new page, from the service worker), nothing of the user's readable
    await page.getByRole('heading', { level: 1, name: text(language, 'shell.signIn.title') }).waitFor();
    await waitForPage(page);
    assert.is(new URL(page.url()).pathname, '/app/signin');
    const after = await readStores(page);
    assert.equal(after.jobs, [], 'no job documents left');
    assert.is(after.versions, 0, 'no version documents left');
    assert.is(after.blobs, 0);
    assert.equal(
      after.caches.filter((c) => c.name === 'wip-job-media' && c.urls.length > 0),
      [],
      'no cached media of the job left',
    );
    assert.is(after.session, null, 'the remembered session is gone');
    assert.not.match(after.dump, 'Name plate check', 'no trace of the job in the stores the app reads');
    assert.not.match(after.dump, SECRET);
    assert.ok(await page.evaluate<boolean>(`localStorage.getItem('${LOCK}') !== null`), 'the sign-out waits for the network');
    await page.getByRole('status').getByText(text(language, 'shell.signIn.signOutPending')).waitFor();
    await otherTab.getByRole('heading', { level: 1, name: text(language, 'shell.signIn.title') }).waitFor();
    assert.is(new URL(otherTab.url()).pathname, '/app/signin', "the other tab left the user's page too");
    await otherTab.close();
    // the waiting change: still on the device, bound to its user (listed and sent for nobody else)
    assert.equal(after.items, [{ user: `${team.client.id}:${first.id}`, jobId: firstJob.id }]);
    // back to a page of the user's: the sign-in page again
    await page.goto(`${wip.url}/app/jobs/${firstJob.databaseId}`).catch(() => undefined);
    await page.getByRole('heading', { level: 1, name: text(language, 'shell.signIn.title') }).waitFor();
    assert.is(new URL(page.url()).search, '', "the next person does not land on the previous user's page after signing in");
    assert.not.ok(await page.getByText('Name plate check').count(), "the job's title is nowhere on the page");
    await checkWidths(page, `signed-out-offline-${language}`, width);

    // ── the network returns: the sign-out goes first, and the cookie opens no session any more ───────────────
    await context.setOffline(false);
    await waitInPage(page, `localStorage.getItem('${LOCK}') === null`, 30_000);
    await page.getByText(text(language, 'shell.signIn.signOutPending')).waitFor({ state: 'detached' });
    // from the lock on (the sign-out's first attempt is sent as it is set): sign-out attempts only, until the server
    // has ended the session
    const sinceSignOut = log.slice(log.indexOf(SIGN_OUT, sentBeforeSignOut));
    const ended = sinceSignOut.indexOf(SIGNED_OUT);
    assert.ok(
      ended > 0 && log.indexOf(SIGN_OUT, sentBeforeSignOut) >= 0,
      `the sign-out reached the server: ${JSON.stringify(sinceSignOut)}`,
    );
    assert.equal(
      [...new Set(sinceSignOut.slice(0, ended))],
      [SIGN_OUT],
      `no request but the sign-out before the server ended the session: ${JSON.stringify(sinceSignOut)}`,
    );
    assert.is(await meStatus(page), 401, 'GET /api/client/auth/me from this browser');
    assert.is((await page.request.get(`${wip.url}/api/client/auth/me`)).status(), 401);
    let server = (
      await gql(wip, team.supervisor.token, 'query($id: ID!) { job(id: $id) { revision records { stepId } } }', { id: firstJob.id })
    ).data.job;
    assert.equal(server.records, [], 'the waiting change was not sent on sign-out');

    // ── the next person: their own jobs only, online and offline ─────────────────────────────────────────────
    await signInThroughPage(page, language, next);
    await page.goto(`${wip.url}/app/jobs`);
    await waitForPage(page);
    await page.getByRole('link', { name: `Plate check ${width} for ${next.firstName}` }).waitFor();
    assert.is(await page.getByRole('link', { name: `Plate check ${width} for ${first.firstName}` }).count(), 0);
    await page.getByRole('link', { name: `Plate check ${width} for ${next.firstName}` }).click();
    await page.getByText(text(language, 'operator.job.offlineReady')).waitFor();
    await context.setOffline(true);
    await page.goto(`${wip.url}/app/jobs`).catch(() => undefined);
    await waitForPage(page);
    await page.getByRole('link', { name: `Plate check ${width} for ${next.firstName}` }).waitFor();
    assert.is(
      await page.getByRole('link', { name: `Plate check ${width} for ${first.firstName}` }).count(),
      0,
      "offline: not the first user's job",
    );
    await page.locator('[data-sync][data-waiting="0"]').waitFor();
    await checkWidths(page, `next-person-offline-${language}`, width);
    await page.goto(`${wip.url}/app/jobs/${firstJob.databaseId}`).catch(() => undefined);
    await waitForPage(page);
    assert.not.ok(await page.getByText(SECRET).count(), "the first user's answer is nowhere on the page");
    assert.not.ok(await page.getByText('Read the name plate').count(), "the first user's job document is not shown");
    const nextStores = await readStores(page);
    assert.equal(
      nextStores.jobs.map((j) => j.jobId),
      [nextJob.id],
      "the device keeps the next person's job, and only theirs",
    );
    assert.not.match(nextStores.dump, SECRET);
    await context.setOffline(false);
    await page.goto(`${wip.url}/app/`);
    await waitForPage(page);
    server = (
      await gql(wip, team.supervisor.token, 'query($id: ID!) { job(id: $id) { revision records { stepId } } }', { id: firstJob.id })
    ).data.job;
    assert.equal(server.records, [], "nothing sent in the next person's session");

    // ── the next person signs out (nothing waiting: no warning); the first one signs in again ────────────────
    await page
      .getByRole('banner')
      .getByRole('button', { name: text(language, 'shell.signOut') })
      .click();
    await page.getByRole('heading', { level: 1, name: text(language, 'shell.signIn.title') }).waitFor();
    await waitInPage(page, `localStorage.getItem('${LOCK}') === null`);
    assert.is(await meStatus(page), 401);
    await signInThroughPage(page, language, first);
    await page.goto(`${wip.url}/app/jobs`);
    await waitForPage(page);
    await page.locator('[data-sync="online"][data-waiting="0"]').waitFor({ timeout: 30_000 });
    server = (
      await gql(
        wip,
        team.supervisor.token,
        'query($id: ID!) { job(id: $id) { records { stepId values { key value } recordedBy { databaseId } } } }',
        { id: firstJob.id },
      )
    ).data.job;
    assert.equal(
      server.records.map((r: any) => [r.stepId, r.values[0].value, r.recordedBy.databaseId]),
      [['plate', SECRET, first.id]],
      'sent once its user signed in again, in their name',
    );
    await context.close();
  });
}

flow('a session that ended without a sign-out: the next person to sign in finds nothing of it to read', async () => {
  const [first, next] = team.operators;
  const firstJob = await jobFor(first, `Plate check left open for ${first.firstName}`);
  const context = await browser.newContext({ viewport: { width: 820, height: 900 }, locale: 'en-GB' });
  const page = await openApp(browser, wip, first, { width: 820, path: `/app/jobs/${firstJob.databaseId}`, context });
  await page.getByText(text('en', 'operator.job.offlineReady')).waitFor();
  await waitInPage(page, "caches.open('wip-job-media').then((c) => c.keys()).then((k) => k.length > 0)");
  assert.equal(
    (await readStores(page)).jobs.map((j) => j.jobId),
    [firstJob.id],
  );
  // the session ends on the server (as by the idle timeout); nobody signed out on the tablet
  const signedOut = await page.evaluate<number>(
    "fetch('/api/client/auth/sign-out', { method: 'POST', headers: { 'x-csrf-token': decodeURIComponent(document.cookie.match(/wip_csrf=([^;]+)/)[1]) } }).then((r) => r.status)",
  );
  assert.is(signedOut, 200);
  await page.goto(`${wip.url}/app/`);
  await signInThroughPage(page, 'en', next);
  await waitForPage(page);
  const stores = await readStores(page);
  assert.equal(stores.jobs, [], "the first user's job is gone once the next person signed in");
  assert.is(stores.versions, 0);
  assert.equal(
    stores.caches.filter((c) => c.name === 'wip-job-media' && c.urls.length > 0),
    [],
  );
  await context.close();
});

flow.after(async () => {
  await browser?.close();
  await wip?.stop();
});
flow.run();
