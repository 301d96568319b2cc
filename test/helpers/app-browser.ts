import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { assertAccessible, waitInPage } from './browser';
import { buildClient, PASSWORD, uniqueEmail, type BuiltClient } from './factories';
import { startTestServer, type TestServer } from './server';

/**
 * The floor app's browser tests: a server with a client and a team
 * of each role, and the app opened in Chromium as one of them at a width.
 *
 *   const { wip, team } = await startAppServer();
 *   const page = await openApp(browser, wip, team.supervisor, { width: 820, path: '/app/board' });
 *   await checkPage(page, 'supervisor', 'board', 820);   // axe + test-output/app/supervisor-board-820.png
 *
 * Roles (src/policies/roles.ts) have no "supervisor": a supervisor is whoever
 * may create and assign jobs (PERMISSIONS.createJob: admin, operator,
 * publisher) — here an operator who also publishes, titled "Shift supervisor".
 */

export const APP_WIDTHS = [390, 820, 1280] as const;

export const APP_SCREENSHOTS = path.resolve(__dirname, '..', '..', '..', 'test-output', 'app');

export interface Member {
  id: number;
  email: string;
  password: string;
  firstName: string;
  lastName: string;
  roles: string[];
  /** a bearer token of the member's own session (for API calls of the test; the browser has its own) */
  token: string;
}

export interface AppTeam {
  client: BuiltClient;
  author: Member;
  approver: Member;
  publisher: Member;
  supervisor: Member;
  operators: [Member, Member];
}

/** Who each member of the team is. */
const TEAM: Record<
  'author' | 'approver' | 'publisher' | 'supervisor' | 'operator1' | 'operator2',
  { firstName: string; lastName: string; roles: string[]; title?: string }
> = {
  author: { firstName: 'Ada', lastName: 'Author', roles: ['author'] },
  approver: { firstName: 'Alan', lastName: 'Approver', roles: ['approver'] },
  publisher: { firstName: 'Pia', lastName: 'Publisher', roles: ['publisher'] },
  supervisor: { firstName: 'Sam', lastName: 'Supervisor', roles: ['operator', 'publisher'], title: 'Shift supervisor' },
  operator1: { firstName: 'Olga', lastName: 'Operator', roles: ['operator'] },
  operator2: { firstName: 'Otto', lastName: 'Operator', roles: ['operator'] },
};

/** A server and a client (`clientName`) with an author, an approver, a publisher, a supervisor and two operators. */
export async function startAppServer(
  options: { clientName?: string; env?: Record<string, string> } = {},
): Promise<{ wip: TestServer; team: AppTeam }> {
  // many sign-ins (each browser context signs its member in): the sign-in budget must not end a test
  const wip = await startTestServer({ env: { WIP_SIGN_IN_RATE_LIMIT_MAX: '100000', ...options.env } });
  return { wip, team: await buildAppTeam(wip, options.clientName) };
}

/** The client "Acme Pumps" (or `clientName`) and its team, on any server (a spawned daemon too: daemonAsServer). */
export async function buildAppTeam(wip: TestServer, clientName?: string): Promise<AppTeam> {
  const client = await buildClient(wip, { name: clientName ?? 'Acme Pumps', seats: { full: 20, connect: 20 } });
  const member = (key: keyof typeof TEAM) => addMember(wip, client, TEAM[key], key);
  const team: AppTeam = {
    client,
    author: await member('author'),
    approver: await member('approver'),
    publisher: await member('publisher'),
    supervisor: await member('supervisor'),
    operators: [await member('operator1'), await member('operator2')],
  };
  return team;
}

/** A new user of `client` holding `who.roles`, signed in (a bearer token for the test's API calls). */
export async function addMember(
  wip: TestServer,
  client: BuiltClient,
  who: { firstName: string; lastName: string; roles: string[]; title?: string },
  key = who.firstName.toLowerCase(),
): Promise<Member> {
  const email = uniqueEmail(key);
  const made = await wip.request('POST', '/api/admin/user', {
    token: client.owner.token,
    body: {
      email,
      password: PASSWORD,
      roles: who.roles,
      licenseType: 'full',
      firstName: who.firstName,
      lastName: who.lastName,
      ...(who.title && { title: who.title }),
    },
  });
  if (made.status !== 201) throw new Error(`creating ${key}: ${made.status} ${made.text}`);
  const signedIn = await wip.request('POST', '/api/client/auth/sign-in', { body: { email, password: PASSWORD } });
  if (signedIn.status !== 200) throw new Error(`signing ${key} in: ${signedIn.status} ${signedIn.text}`);
  return {
    id: made.body.data.id,
    email,
    password: PASSWORD,
    firstName: who.firstName,
    lastName: who.lastName,
    roles: who.roles,
    token: signedIn.body.data.token,
  };
}

/**
 * The session cookies of a fresh sign-in of `member` (the wip_session cookie,
 * its signature and the CSRF cookie), as the app's own sign-in page would get
 * them: the browser starts signed in without typing.
 */
export async function sessionCookies(
  wip: TestServer,
  member: { email: string; password: string },
): Promise<Parameters<BrowserContext['addCookies']>[0]> {
  const response = await fetch(`${wip.url}/api/client/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: wip.url },
    body: JSON.stringify({ email: member.email, password: member.password }),
  });
  if (response.status !== 200) throw new Error(`sign-in of ${member.email}: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
  return response.headers.getSetCookie().map((header) => {
    const [pair] = header.split(';');
    const at = pair.indexOf('=');
    return { name: pair.slice(0, at), value: pair.slice(at + 1), url: wip.url };
  });
}

export interface OpenOptions {
  width: number;
  /** the page to open; default /app/ */
  path?: string;
  height?: number;
  /** an existing context to add the page to (a second tab, or one already set offline) */
  context?: BrowserContext;
}

/** A new browser context at `width` (× 900, or `height`), signed in as `member` (null: signed out), on `path`, its first heading shown. */
export async function openApp(
  browser: Browser,
  wip: TestServer,
  member: { email: string; password: string } | null,
  options: OpenOptions,
): Promise<Page> {
  const context =
    options.context ?? (await browser.newContext({ viewport: { width: options.width, height: options.height ?? 900 }, locale: 'en-GB' }));
  if (member) await context.addCookies(await sessionCookies(wip, member));
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${wip.url}${options.path ?? '/app/'}`);
  await waitForPage(page);
  return page;
}

/**
 * The page's h1 is shown and nothing is loading any more. After a click that moves to another page, the old
 * page is still on screen, its h1 too: the address changes at once, and the old page stays until the new one's
 * code has loaded (preact-iso keeps the old route meanwhile). So say which page is awaited:
 *  - `path`, after a move within the app (a link, Enter on one): the address is that path and the app has moved
 *    the focus to the new page's heading, which it does once the new page is shown (src/app/shell/focus.ts);
 *  - `heading`, where there is no such move (the sign-in page giving way to the app): the new page's h1 by name.
 */
export async function waitForPage(page: Page, expected: { path?: string; heading?: string | RegExp } = {}): Promise<void> {
  if (expected.path !== undefined)
    await waitInPage(
      page,
      `location.pathname === ${JSON.stringify(expected.path)} && document.activeElement?.matches('main h1, #main') === true`,
    );
  await (
    expected.heading === undefined ? page.locator('h1').first() : page.getByRole('heading', { level: 1, name: expected.heading })
  ).waitFor();
  // every loading part of the page (several cards may load at once): none left
  await page.locator('.loading').first().waitFor({ state: 'detached' });
}

/** axe-core finds no serious or critical violation, the page is no wider than the viewport, and a screenshot is kept. */
export async function checkPage(page: Page, area: string, name: string, width: number): Promise<void> {
  await assertAccessible(page, `${area} ${name} at ${width} px`);
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
  if (overflow > 1) throw new Error(`${area} ${name} at ${width} px: the page is ${overflow} px wider than the viewport`);
  fs.mkdirSync(APP_SCREENSHOTS, { recursive: true });
  // a whole-page picture from the top: scrolled, the sticky header would be drawn across the middle of it
  const scrolled = await page.evaluate<number>('window.scrollY');
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: path.join(APP_SCREENSHOTS, `${area}-${name}-${width}.png`), fullPage: true });
  await page.evaluate(`window.scrollTo(0, ${scrolled})`);
}

/** Every interactive element of the page is at least 44 × 44 px (touch targets; inline links in text excepted). */
export async function smallTargets(page: Page): Promise<string[]> {
  // a string, not a function: this file is type-checked without the DOM's types
  return page.evaluate<string[]>(`(() => {
    const small = [];
    for (const element of document.querySelectorAll('button, a[href], input:not([type=hidden]), select, textarea, [role=tab]')) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue; // not shown
      if (element.closest('p') && element.tagName === 'A' && !element.classList.contains('btn')) continue; // a link in a sentence
      if (element.matches('input[type=checkbox], input[type=radio]')) continue; // its row is the target (the label)
      if (box.height < 43.5 || box.width < 43.5) small.push(element.tagName.toLowerCase() + ' "' + (element.textContent || element.getAttribute('aria-label') || '').trim().slice(0, 40) + '" ' + Math.round(box.width) + 'x' + Math.round(box.height));
    }
    return small;
  })()`);
}

/** The author's editor says every change is saved (its autosave status line). */
export const draftSaved = (page: Page): Promise<void> =>
  page
    .getByRole('status')
    .filter({ hasText: /All changes saved/ })
    .waitFor();

/** Step `number` of the author's editor (its region is named "Step 3: …"). */
export const stepRegion = (page: Page, number: number) => page.getByRole('region', { name: new RegExp(`^Step ${number}:`) });
