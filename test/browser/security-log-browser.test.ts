import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { assertAccessible, launchChromium, openConsolePage } from '../helpers/browser';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/server';
import { adminToken, uniqueEmail } from '../helpers/factories';

// In a browser: the console's log pages say who did what —
// the system administrator's sign-in, a client created, its seats changed,
// each with a "Who" column naming the actor (not an id) and the changed
// fields — at a phone's width (390 px) and a desktop's (1280 px), with no
// serious or critical axe-core violation.

const SCREENSHOTS = path.resolve(__dirname, '..', '..', '..', 'test-output', 'console');

let wip: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const CLIENT_NAME = 'Logged Works';

const test = suite('the console log pages show who');
test.before(async () => {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  wip = await startTestServer();
  // the changes, made through the API as any administrator would
  const token = await adminToken(wip);
  const created = await wip.request('POST', '/api/admin/client', {
    token,
    body: { name: CLIENT_NAME, owner: { email: uniqueEmail('owner') }, seats: { full: 2 } },
  });
  assert.is(created.status, 201, created.text);
  const seats = await wip.request('POST', '/api/admin/license', {
    token,
    body: { clientId: created.body.data.id, licenseType: 'connect', seats: 3 },
  });
  assert.is(seats.status, 201, seats.text);
  assert.is((await wip.request('PUT', `/api/admin/license/${seats.body.data.id}`, { token, body: { seats: 4 } })).status, 200);

  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(8000);
  // the console's session: signed in through the API in the browser's own cookie jar
  // (the sign-in form itself is another test's subject)
  const signIn = await context.request.post(`${wip.url}/api/admin/auth/sign-in`, { data: { username: 'admin', password: ADMIN_PASSWORD } });
  assert.is(signIn.status(), 200);
});
test.after(async () => {
  await browser?.close();
  await wip?.stop();
});

const accessible = (where: string) => assertAccessible(page, where);
const open = (hash: string, heading: string) => openConsolePage(page, wip.url, hash, heading);

/** The table row of an event; its "Who" cell names the actor and is on screen once scrolled to. */
async function whoOf(event: string): Promise<string> {
  const row = page.locator('tbody tr', { has: page.getByRole('cell', { name: event, exact: true }) }).first();
  await row.waitFor();
  const who = row.locator('td[data-label="Who"]');
  await who.scrollIntoViewIfNeeded();
  const box = await who.boundingBox();
  const width = page.viewportSize()!.width;
  assert.ok(
    box && box.x >= 0 && box.x + Math.min(box.width, 40) <= width,
    `the Who cell of ${event} is on screen at ${width} px: ${JSON.stringify(box)}`,
  );
  return who.innerText();
}

for (const width of [390, 1280]) {
  test(`${width} px: the security events page names who signed in and who changed clients and seats, with what changed`, async () => {
    await page.setViewportSize({ width, height: 900 });
    await open('security-events', 'Security events');
    assert.ok(await page.getByRole('columnheader', { name: 'Who' }).isVisible());
    assert.is(await whoOf('auth.admin_sign_in'), 'System administrator admin');
    assert.is(await whoOf('client.created'), 'System administrator admin');
    assert.is(await whoOf('license.seats_changed'), 'System administrator admin');
    const seats = page.locator('tbody tr', { has: page.getByRole('cell', { name: 'license.seats_changed', exact: true }) }).first();
    assert.match(await seats.innerText(), 'seats: 3 → 4');
    const client = page.locator('tbody tr', { has: page.getByRole('cell', { name: 'client.created', exact: true }) }).first();
    assert.match(await client.innerText(), `name: — → ${CLIENT_NAME}`);
    await accessible(`security events at ${width} px`);
    await page.screenshot({ path: path.join(SCREENSHOTS, `security-events-who-${width}.png`), fullPage: true });
  });

  test(`${width} px: the logs page has the same Who column`, async () => {
    await page.setViewportSize({ width, height: 900 });
    await open('logs', 'Logs');
    assert.ok(await page.getByRole('columnheader', { name: 'Who' }).isVisible());
    assert.is(await whoOf('client.created'), 'System administrator admin');
    await accessible(`logs at ${width} px`);
    await page.screenshot({ path: path.join(SCREENSHOTS, `logs-who-${width}.png`), fullPage: true });
  });
}

test.run();
