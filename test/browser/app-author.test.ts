import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import {
  APP_WIDTHS,
  checkPage,
  openApp,
  smallTargets,
  startAppServer,
  type AppTeam,
  type Member,
  draftSaved,
  stepRegion,
} from '../helpers/app-browser';
import type { TestServer } from '../helpers/server';
import { PASSWORD, uniqueEmail } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { noisyPng } from '../helpers/images';
import { advance, ok } from '../helpers/templates';

// The authors' screens, through the pages only (Debian's Chromium,
// headless): an author creates a three-step template — a number field with
// limits, a pass/fail field, a photo field — uploads a photo with its
// progress, reorders steps with the keyboard alone, sees a server validation
// error at its input, meets a second author's save as a conflict (two browser
// contexts), and submits; then starts the next draft from the published
// version. axe-core on every page at 390, 820 and 1280 px, screenshots in
// test-output/app/author-<page>-<width>.png. What is stored is checked through
// the API, never through the page that wrote it.

let browser: Browser;
let wip: TestServer;
let team: AppTeam;
let author: Member;
let second: Member;

const setup = suite('app author: set-up');
setup('a server, a client with its team and a second author; Chromium', async () => {
  ({ wip, team } = await startAppServer());
  author = team.author;
  const email = uniqueEmail('author2');
  const made = await wip.request('POST', '/api/admin/user', {
    token: team.client.owner.token,
    body: { email, password: PASSWORD, roles: ['author'], licenseType: 'full', firstName: 'Bo', lastName: 'Second' },
  });
  assert.is(made.status, 201, made.text);
  const signedIn = await wip.request('POST', '/api/client/auth/sign-in', { body: { email, password: PASSWORD } });
  second = {
    id: made.body.data.id,
    email,
    password: PASSWORD,
    firstName: 'Bo',
    lastName: 'Second',
    roles: ['author'],
    token: signedIn.body.data.token,
  };
  browser = await launchChromium();
});
setup.run();

const checked = (page: Page, name: string, width: number) => checkPage(page, 'author', name, width);

const saved = draftSaved;

async function readVersion(token: string, templateId: number) {
  return ok(
    await gql(
      wip,
      token,
      `query ($id: ID!) { template(id: $id) { latestVersion { databaseId number state revision content { sections { title steps { stepId title body media fields { key label type required unit min max } } } } } } }`,
      { id: `Template:${templateId}` },
    ),
  ).template.latestVersion;
}

const journey = suite('app author: write, upload, reorder, conflict, submit');
let templateId = 0;
let page: Page;

journey.before(async () => {
  page = await openApp(browser, wip, author, { width: 1280, path: '/app/templates' });
});
journey.after(async () => page?.context().close());

journey('the library: a new template opens in the editor', async () => {
  await page.getByRole('heading', { level: 1, name: 'Templates' }).waitFor();
  await page.getByRole('button', { name: 'New template' }).click();
  await page.getByLabel('Title', { exact: true }).fill('Pump quarterly check');
  await page.getByLabel('Description', { exact: true }).fill('Isolate, measure, photograph.');
  await page.getByLabel('Tags', { exact: true }).fill('pump, quarterly');
  await page.getByRole('button', { name: 'Create and edit' }).click();
  await page.getByRole('heading', { level: 1, name: 'Draft of version 1' }).waitFor();
  templateId = Number(/\/app\/templates\/(\d+)\/edit/.exec(page.url())![1]);
  assert.ok(templateId > 0);
});

journey('three steps: a pass/fail field, a number field with unit and limits, a photo field', async () => {
  await stepRegion(page, 1).getByLabel('Step title').fill('Isolate the pump');
  await stepRegion(page, 1)
    .getByRole('textbox', { name: 'Instructions', exact: true })
    .fill('Lock out **both** breakers.\n\n- main\n- auxiliary');
  await stepRegion(page, 1).getByLabel('New field type').selectOption('PASS_FAIL');
  await stepRegion(page, 1)
    .getByRole('button', { name: /^Add field/ })
    .click();
  await stepRegion(page, 1).getByRole('group', { name: 'Field field' }).getByLabel('Label').fill('Breakers locked');
  await stepRegion(page, 1).getByRole('group', { name: 'Field Breakers locked' }).getByLabel('Required').check();

  await page.getByRole('button', { name: /^Add step to / }).click();
  await stepRegion(page, 2).getByLabel('Step title').fill('Read the pressure');
  await stepRegion(page, 2).getByLabel('New field type').selectOption('NUMBER');
  await stepRegion(page, 2)
    .getByRole('button', { name: /^Add field/ })
    .click();
  const pressure = stepRegion(page, 2).getByRole('group', { name: 'Field field' });
  await pressure.getByLabel('Label').fill('Pressure');
  const field = stepRegion(page, 2).getByRole('group', { name: 'Field Pressure' });
  await field.getByLabel('Unit').fill('bar');
  await field.getByLabel('Lower limit').fill('1');
  await field.getByLabel('Upper limit').fill('3');
  await field.getByLabel('Required').check();

  await page.getByRole('button', { name: /^Add step to / }).click();
  await stepRegion(page, 3).getByLabel('Step title').fill('Photograph the gauge');
  await stepRegion(page, 3).getByLabel('New field type').selectOption('PHOTO');
  await stepRegion(page, 3)
    .getByRole('button', { name: /^Add field/ })
    .click();
  await stepRegion(page, 3).getByRole('group', { name: 'Field field' }).getByLabel('Label').fill('Gauge photo');
  await saved(page);

  const version = await readVersion(author.token, templateId);
  const steps = version.content.sections[0].steps;
  assert.equal(
    steps.map((s: any) => [s.title, s.fields.map((f: any) => [f.label, f.type, f.required, f.unit, f.min, f.max])]),
    [
      ['Isolate the pump', [['Breakers locked', 'PASS_FAIL', true, null, null, null]]],
      ['Read the pressure', [['Pressure', 'NUMBER', true, 'bar', 1, 3]]],
      ['Photograph the gauge', [['Gauge photo', 'PHOTO', false, null, null, null]]],
    ],
  );
  assert.is(steps[0].body, 'Lock out **both** breakers.\n\n- main\n- auxiliary');
});

journey('the step text previews as the PDF renders it', async () => {
  await stepRegion(page, 1).getByRole('button', { name: 'Preview text' }).click();
  const preview = stepRegion(page, 1).getByRole('region', { name: /Preview of the instructions/ });
  assert.is(await preview.locator('strong').innerText(), 'both');
  assert.equal(await preview.locator('li').allInnerTexts(), ['main', 'auxiliary']);
  await stepRegion(page, 1).getByRole('button', { name: 'Write' }).click();
});

journey('a photo uploads with its progress shown, and joins the step', async () => {
  // slow the upload down so the progress bar is there to see
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 20, downloadThroughput: -1, uploadThroughput: 256 * 1024 });
  const photo = noisyPng(400, 400);
  await stepRegion(page, 3).getByLabel('Add photo or video').setInputFiles({ name: 'gauge.png', mimeType: 'image/png', buffer: photo });
  const progress = stepRegion(page, 3).getByRole('progressbar', { name: 'Uploading gauge.png' });
  await progress.waitFor();
  const seen = Number(await progress.getAttribute('value'));
  assert.ok(seen >= 0 && seen < 100, `progress while uploading: ${seen}`);
  await progress.waitFor({ state: 'detached', timeout: 30_000 });
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  await stepRegion(page, 3).getByText('gauge.png').waitFor();
  await saved(page);
  const version = await readVersion(author.token, templateId);
  const [fileId] = version.content.sections[0].steps[2].media;
  assert.ok(fileId > 0);
  // the bytes stored are the bytes chosen
  const stored = await fetch(`${wip.url}/api/client/files/${fileId}`, { headers: { authorization: `Bearer ${author.token}` } });
  assert.is(stored.status, 200);
  assert.ok(Buffer.from(await stored.arrayBuffer()).equals(photo));
});

journey('the keyboard alone moves step 3 up to second place, announced, and the order is saved', async () => {
  const handle = page.getByRole('button', { name: 'Move Step 3: Photograph the gauge', exact: true });
  await handle.focus();
  await page.keyboard.press('Space');
  assert.is(await handle.getAttribute('aria-pressed'), 'true');
  await page.keyboard.press('ArrowUp');
  await page
    .getByTestId('author-announcer')
    .filter({ hasText: /moved to position 2 of 3/ })
    .waitFor();
  await page.keyboard.press('Space');
  await page
    .getByTestId('author-announcer')
    .filter({ hasText: /dropped at position 2 of 3/ })
    .waitFor();
  assert.is(
    await page.evaluate<string | null>('document.activeElement?.getAttribute("aria-label") ?? null'),
    'Move Step 2: Photograph the gauge',
  );
  await saved(page);
  const version = await readVersion(author.token, templateId);
  assert.equal(
    version.content.sections[0].steps.map((s: any) => s.title),
    ['Isolate the pump', 'Photograph the gauge', 'Read the pressure'],
  );
});

journey("the server's validation error shows at the input it names", async () => {
  const field = stepRegion(page, 3).getByRole('group', { name: 'Field Pressure' });
  await field.getByLabel('Lower limit').fill('5');
  const min = field.getByLabel('Lower limit');
  await page.getByText('Not saved: fix the problems marked below').waitFor();
  assert.is(await min.getAttribute('aria-invalid'), 'true');
  const describedBy = (await min.getAttribute('aria-describedby'))!;
  assert.match(await page.locator(`#${describedBy}`).innerText(), 'min is greater than max');
  await checked(page, 'editor-invalid', 1280);
  await min.fill('1');
  await saved(page);
  assert.is(await min.getAttribute('aria-invalid'), null);
});

journey('two authors on one draft: the later save is a conflict shown with both versions, never a silent overwrite', async () => {
  const other = { page: await openApp(browser, wip, second, { width: 1280, path: `/app/templates/${templateId}/edit` }) };
  try {
    await other.page.getByRole('heading', { level: 1, name: 'Draft of version 1' }).waitFor();
    // the second author saves first
    await stepRegion(other.page, 1).getByLabel('Step title').fill('Isolate the pump (both breakers)');
    await saved(other.page);
    // the first author, still on the revision they opened, edits the same step
    await stepRegion(page, 1).getByLabel('Step title').fill('Isolate the pump and wait');
    const dialog = page.getByRole('dialog', { name: 'Someone else changed this draft' });
    await dialog.waitFor();
    await dialog.getByText('Isolate the pump (both breakers)').waitFor();
    assert.match(await dialog.innerText(), 'Isolate the pump and wait');
    assert.match(await dialog.innerText(), 'saved this draft at');
    // nothing of the first author reached the server
    let stored = await readVersion(author.token, templateId);
    assert.is(stored.content.sections[0].steps[0].title, 'Isolate the pump (both breakers)');
    await checked(page, 'conflict', 1280);
    // the first author keeps theirs, knowingly
    await dialog.getByRole('button', { name: 'Keep mine, replacing theirs' }).click();
    await saved(page);
    stored = await readVersion(author.token, templateId);
    assert.is(stored.content.sections[0].steps[0].title, 'Isolate the pump and wait');
    // and now the second author is the one behind: they see the conflict and take the first author's version
    await stepRegion(other.page, 2).getByLabel('Step title').fill('Photograph the gauge, close');
    const theirDialog = other.page.getByRole('dialog', { name: 'Someone else changed this draft' });
    await theirDialog.waitFor();
    await theirDialog.getByRole('button', { name: 'Use their version' }).click();
    await saved(other.page).catch(() => undefined);
    assert.is(await stepRegion(other.page, 1).getByLabel('Step title').inputValue(), 'Isolate the pump and wait');
    stored = await readVersion(author.token, templateId);
    assert.equal(
      stored.content.sections[0].steps.map((s: any) => s.title),
      ['Isolate the pump and wait', 'Photograph the gauge', 'Read the pressure'],
    );
  } finally {
    await other.page.context().close();
  }
});

journey('the preview shows the draft as operators see it, with feedback on limits', async () => {
  await page.getByRole('button', { name: 'Preview', exact: true }).click();
  const frame = page.getByRole('region', { name: 'Operator preview' });
  await frame.getByRole('heading', { name: 'Isolate the pump and wait' }).waitFor();
  await frame.getByRole('button', { name: 'Next step' }).click();
  await frame.getByRole('button', { name: 'Next step' }).click();
  await frame.getByRole('heading', { name: 'Read the pressure' }).waitFor();
  // typed as an operator types it: "2,5" is 2.5, within 1–3 (it once read as 25); "1,234" is ambiguous
  await frame.getByLabel(/Pressure/).fill('1,234');
  await frame.getByText('Type the number without thousands separators, e.g. 2.5.').waitFor();
  await frame.getByLabel(/Pressure/).fill('2,5');
  await frame.getByText('Allowed: 1–3 bar').waitFor();
  assert.is(await frame.getByText(/Out of limits|thousands separators/).count(), 0, '2,5 is 2.5: within the limits');
  await frame.getByLabel(/Pressure/).fill('5');
  await frame.getByText('Out of limits (1–3 bar)').waitFor();
  await checked(page, 'preview', 1280);
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
});

journey('submit for review: the version is IN_REVIEW, with every step, field and the photo', async () => {
  await page.getByRole('button', { name: 'Submit for review' }).click();
  await page.getByText('Version 1 was submitted for review.').waitFor();
  const version = await readVersion(author.token, templateId);
  assert.is(version.state, 'IN_REVIEW');
  assert.is(version.content.sections[0].steps.length, 3);
  assert.is(version.content.sections[0].steps[1].media.length, 1);
});

journey('after publishing, a new draft starts from the published version', async () => {
  const version = await readVersion(author.token, templateId);
  ok(
    await gql(
      wip,
      team.approver.token,
      `mutation ($id: ID!) { approveVersion(input: { versionId: $id, password: "${PASSWORD}" }) { version { id } } }`,
      { id: `TemplateVersion:${version.databaseId}` },
    ),
  );
  ok(
    await gql(
      wip,
      team.publisher.token,
      `mutation ($id: ID!) { publishVersion(input: { versionId: $id, password: "${PASSWORD}" }) { version { id } } }`,
      { id: `TemplateVersion:${version.databaseId}` },
    ),
  );
  await page.goto(`${wip.url}/app/templates/${templateId}`);
  await page.getByRole('button', { name: 'New draft from version 1' }).click();
  await page.getByRole('heading', { level: 1, name: 'Draft of version 2' }).waitFor();
  assert.is(await stepRegion(page, 1).getByLabel('Step title').inputValue(), 'Isolate the pump and wait');
  const draft = await readVersion(author.token, templateId);
  assert.equal([draft.number, draft.state], [2, 'DRAFT']);
});

journey.run();

// ── every page at every width ─────────────────────────────────────────────

const pages = suite('app author: every page, 390 / 820 / 1280 px, axe-core and screenshots');
pages('library, new template, template, editor and preview', async () => {
  const other = ok(
    await gql(
      wip,
      author.token,
      `mutation { createTemplate(input: { title: "Valve swap", tags: ["valve"], content: { sections: [{ title: "Prepare", steps: [{ title: "Close the valve", body: "# Safety\\nWear **gloves**.", fields: [{ key: "torque", label: "Torque", type: NUMBER, unit: "Nm", min: 10, max: 12, required: true }, { key: "ok", label: "Leak test", type: PASS_FAIL }] }] }] } }) { template { databaseId latestVersion { id } } } }`,
    ),
  ).createTemplate.template;
  await advance(wip, team, other.latestVersion.id, 'IN_REVIEW');
  for (const width of APP_WIDTHS) {
    const p = await openApp(browser, wip, author, { width, path: '/app/templates' });
    try {
      await p
        .getByRole('status')
        .filter({ hasText: /Templates found: \d+/ })
        .waitFor();
      await checked(p, 'library', width);
      await p.getByLabel('Needs my action').check();
      await p.getByRole('status').filter({ hasText: 'Templates found: 1' }).waitFor();
      await p.getByRole('button', { name: 'New template' }).click();
      await checked(p, 'new-template', width);
      await p.goto(`${wip.url}/app/templates/${other.databaseId}`);
      await p.getByRole('heading', { level: 1, name: 'Valve swap' }).waitFor();
      await checked(p, 'template', width);
      await p.goto(`${wip.url}/app/templates/${templateId}/edit`);
      await p.getByRole('heading', { level: 1, name: 'Draft of version 2' }).waitFor();
      await checked(p, 'editor', width);
      // the file inputs are visually hidden: their labels, styled as buttons, are the targets
      assert.equal(
        (await smallTargets(p)).filter((target) => target !== 'input "" 1x1'),
        [],
        `touch targets of the editor at ${width} px`,
      );
      await p.getByRole('button', { name: 'Preview', exact: true }).click();
      await p.getByRole('region', { name: 'Operator preview' }).waitFor();
      await checked(p, 'preview', width);
    } finally {
      await p.context().close();
    }
  }
});
pages.after(async () => {
  await browser?.close();
  await wip?.stop();
});
pages.run();
