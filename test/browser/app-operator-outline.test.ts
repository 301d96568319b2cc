import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Locator, Page } from 'playwright-core';
import { launchChromium, waitInPage } from '../helpers/browser';
import { APP_WIDTHS, checkPage, openApp, startAppServer, waitForPage, type AppTeam } from '../helpers/app-browser';
import type { TestServer } from '../helpers/server';
import { gql, gid } from '../helpers/graphql';
import { createJob, publishedTemplate } from '../helpers/domain';
import { PNG, upload } from '../helpers/upload';
import { solidPng } from '../helpers/images';

/**
 * The operator's papercuts, through the pages only: a CALCULATED field shows its value and what it is
 * computed from by label (never the formula); "Save and next" on a step that needs a sign-off stays, says so and
 * opens the sign dialog once the server has the record; a step is never "Done" before the server confirmed it;
 * "N of M steps done" is the same on the job page and the run page (a step a condition takes out not counted); the
 * review before completion shows every step's values, comment, photo, sign-offs and what is missing; an outline
 * to jump to a step (a side column at 1280 px, a compact menu at 390 and 820 px), sections folding, on the run
 * page and the job record. Every width, English and German, with axe and screenshots.
 */
let wip: TestServer;
let team: AppTeam;
let browser: Browser;
const test = suite('floor app: the operator outline, the review before completion, sign-offs asked, one step count');
test.before(async () => {
  ({ wip, team } = await startAppServer());
  browser = await launchChromium();
});
test.after(async () => {
  await browser?.close();
  await wip?.stop();
});

/** Six steps in two sections; "Drain the pump" applies only when the lock failed: five steps count. */
const CONTENT = {
  sections: [
    {
      id: 'prep',
      title: 'Preparation',
      steps: [
        {
          id: 'isolate',
          title: 'Isolate the pump',
          fields: [
            { key: 'locked', label: 'Lock applied', type: 'PASS_FAIL', required: true },
            { key: 'lock_photo', label: 'Photo of the lock', type: 'PHOTO' },
          ],
        },
        {
          id: 'drain',
          title: 'Drain the pump',
          when: { step: 'isolate', field: 'locked', op: 'eq', value: 'FAIL' },
          fields: [{ key: 'litres', label: 'Litres drained', type: 'NUMBER', unit: 'l' }],
        },
      ],
    },
    {
      id: 'test',
      title: 'Pressure test',
      steps: [
        {
          id: 'pressure',
          title: 'Measure the pressure',
          signoff: { performer: true, verifier: null },
          fields: [
            { key: 'p_in', label: 'Pressure in', type: 'NUMBER', unit: 'bar', required: true },
            { key: 'p_out', label: 'Pressure out', type: 'NUMBER', unit: 'bar', required: true },
            {
              key: 'drop',
              label: 'Pressure drop',
              type: 'CALCULATED',
              expression: 'round(p_in - p_out, 2)',
              unit: 'bar',
              min: 0,
              max: 0.5,
            },
          ],
        },
        { id: 'clean', title: 'Clean up', fields: [{ key: 'note', label: 'Notes', type: 'TEXT' }] },
        {
          id: 'torque',
          title: 'Tighten the flange',
          fields: [{ key: 'torque', label: 'Torque', type: 'NUMBER', unit: 'Nm', required: true }],
        },
        { id: 'handback', title: 'Hand the pump back', fields: [{ key: 'runs', label: 'Pump runs', type: 'PASS_FAIL', required: true }] },
      ],
    },
  ],
};

const COMMENT = 'Lock tag 4471 on the breaker';

async function save(page: Page): Promise<void> {
  await page.getByRole('button', { name: /^Save and (next|review)$/ }).click();
}

/** The state a step shows in the outline (rules/progress.ts): done, waiting, unsigned, open, not-applying. */
async function outlineState(page: Page, title: string): Promise<string | null> {
  return page.locator('.step-outline li', { hasText: title }).getAttribute('data-state');
}

/** The element's top edge lies within the viewport, below the shell's sticky header (56 px): it is in view. */
async function inView(page: Page, target: Locator): Promise<boolean> {
  const box = await target.boundingBox();
  const height = page.viewportSize()!.height;
  return box !== null && box.y >= 55 && box.y < height;
}

async function german(page: Page, language: 'de' | 'en'): Promise<void> {
  await page.locator('label.language select').selectOption(language);
  await page.locator(`html[lang="${language}"]`).waitFor();
}

test('calculated inputs by label, a sign-off asked for, one count, the full review, the outline', async () => {
  const [olga] = team.operators;
  // a tall photo on the first step (a phone's portrait photo): it once made a page of six steps 9,654 px tall
  const tall = await upload(wip, team.client.owner.token, [
    { name: 'breaker.png', data: solidPng(300, 1500, [200, 60, 20]), type: 'image/png' },
  ]);
  assert.is(tall.status, 201, tall.text);
  const content = structuredClone(CONTENT);
  Object.assign(content.sections[0].steps[0], { media: [tall.body.data.files[0].id] });
  const { templateId } = await publishedTemplate(wip, team.client, content, 'Pump seal change');
  const job = await createJob(wip, team.client.owner.token, { templateId, title: 'Pump 3 seal change', assigneeIds: [olga.id] });
  const page = await openApp(browser, wip, olga, { width: 820, path: `/app/jobs/${job.id}` });
  await page.getByText('Available offline on this device').waitFor();
  await page.evaluate('navigator.serviceWorker.ready.then(() => true)');
  assert.is(await page.locator('.job-progress').innerText(), '0 of 5 steps done', 'the drain step applies only when the lock failed');

  // ── step 1: a pass, a photo, a comment ───────────────────────────────────────────────────────────────────────
  await page.getByRole('link', { name: 'Run job' }).click();
  await waitForPage(page, { path: `/app/jobs/${job.id}/run` });
  await page.getByRole('heading', { name: 'Isolate the pump' }).waitFor();
  await page.getByRole('radio', { name: 'Pass' }).check();
  await page.locator('input[type=file]').setInputFiles({ name: 'lock.png', mimeType: 'image/png', buffer: PNG });
  await page.getByRole('img', { name: 'Photo 1 for Photo of the lock' }).waitFor();
  await page.getByRole('textbox', { name: 'Comment' }).fill(COMMENT);
  await save(page);
  // the drain step does not apply (the lock held): on to the pressure test
  await page.getByRole('heading', { name: 'Measure the pressure' }).waitFor();

  // ── a CALCULATED field: the value with its unit, computed from the labelled inputs; no formula ─────────────────
  await page.getByRole('textbox', { name: 'Pressure in' }).fill('2,5');
  await page.getByRole('textbox', { name: 'Pressure out' }).fill('2.2');
  const drop = page.locator('.calculated-field[data-key="drop"]');
  await drop.locator('output', { hasText: '0.3 bar' }).waitFor();
  assert.match(await drop.innerText(), 'Computed from: Pressure in, Pressure out');
  const stepText = await page.locator('.step-form').innerText();
  assert.not.match(stepText, /p_in|p_out|round\(/, 'the formula and its keys never reach the operator');
  for (const width of APP_WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await checkPage(page, 'operator', 'calculated', width);
  }
  await page.setViewportSize({ width: 820, height: 900 });

  // ── "Save and next" on a step that needs a sign-off: it stays, says so, and opens the sign dialog ─────────────
  await save(page);
  const stillNeeded = page.locator('.signoff-still-needed');
  await stillNeeded.getByText('still missing your signature as performer', { exact: false }).waitFor();
  assert.is(await page.getByRole('heading', { name: 'Measure the pressure' }).count(), 1, 'the page did not move on');
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Your password').waitFor();
  // the record reached the server (the dialog opens only then) and the signature is missing: not done
  assert.is(await outlineState(page, 'Measure the pressure'), 'unsigned');
  assert.is((await serverJob(job.id)).records.length, 2);
  await dialog.getByLabel('Your password').fill(olga.password);
  await dialog.getByRole('button', { name: 'Sign', exact: true }).click();
  await page.locator('.signoff-list li[data-meaning="PERFORMED"]', { hasText: 'Olga Operator' }).waitFor();
  await stillNeeded.getByText('Saved and signed.').waitFor();
  assert.is(await outlineState(page, 'Measure the pressure'), 'done');
  assert.is(await page.locator('.run-progress').innerText(), '2 of 5 steps done');
  await page.getByRole('button', { name: 'Next step', exact: true }).click();
  await page.getByRole('heading', { name: 'Clean up' }).waitFor();

  // ── offline: a step saved on the device is "Saved on device", not done, until the server confirms it ──────────
  await page.context().setOffline(true);
  await page.getByRole('textbox', { name: 'Notes' }).fill('Flange wiped, old seal binned');
  await save(page);
  await page.getByRole('heading', { name: 'Tighten the flange' }).waitFor();
  assert.is(await outlineState(page, 'Clean up'), 'waiting');
  assert.match((await page.locator('.step-outline li', { hasText: 'Clean up' }).textContent()) ?? '', 'Saved on device');
  assert.is(await page.locator('.run-progress').innerText(), '2 of 5 steps done', 'a queued step is not done');
  await page.context().setOffline(false);
  await page.locator('[data-sync="online"][data-waiting="0"]').waitFor({ timeout: 20_000 });
  await page.locator('.step-outline li[data-state="done"]', { hasText: 'Clean up' }).waitFor({ state: 'attached' });
  assert.is(await page.locator('.run-progress').innerText(), '3 of 5 steps done');

  // ── the job page says the same as the run page ──────────────────────────────────────────────────────────────
  await page.goto(`${wip.url}/app/jobs/${job.id}`).catch(() => undefined);
  await waitForPage(page);
  assert.is(await page.locator('.job-progress').innerText(), '3 of 5 steps done', 'the job page and the run page count alike');

  // ── the outline at 820 px: a compact menu; to the review through it ─────────────────────────────────────────
  await page.getByRole('link', { name: 'Continue' }).click();
  await waitForPage(page, { path: `/app/jobs/${job.id}/run` });
  const outline = page.locator('.step-outline');
  const outlineNav = outline.locator('nav');
  assert.not.ok(await outlineNav.isVisible(), 'a menu, closed');
  await outline.locator('summary').first().click();
  await outlineNav.getByRole('link', { name: 'Review and complete' }).click();
  await page.getByRole('heading', { name: 'Every step as it will be recorded' }).waitFor();
  assert.not.ok(await outlineNav.isVisible(), 'the menu folds away once a step is chosen');

  // ── the review before completion: values, comment, photo, sign-offs, what is missing ────────────────────────
  const isolate = page.locator('.review-step[data-step="isolate"]');
  assert.match(await isolate.innerText(), COMMENT);
  await isolate.getByRole('img', { name: 'Photo 1 for Photo of the lock' }).waitFor();
  const pressure = page.locator('.review-step[data-step="pressure"]');
  assert.match(await pressure.innerText(), /Pressure drop\s+0.3 bar/);
  assert.match(await pressure.innerText(), 'Performed by Olga Operator');
  assert.is(await page.locator('.review-step[data-step="drain"]').getAttribute('data-state'), 'not-applying');
  assert.match(await page.locator('.review-step[data-step="torque"]').innerText(), 'Still missing: Torque');
  assert.match(await page.locator('.review-step[data-step="handback"]').innerText(), 'Still missing: Pump runs');
  assert.ok(await page.getByRole('button', { name: 'Complete job' }).isDisabled());
  for (const width of APP_WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await checkPage(page, 'operator', 'review-steps', width);
  }
  await german(page, 'de');
  await page.getByRole('heading', { name: 'Alle Schritte, wie sie erfasst werden' }).waitFor();
  assert.match(await page.locator('.review-step[data-step="torque"]').innerText(), 'Fehlt noch: Torque');
  for (const width of APP_WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await checkPage(page, 'operator', 'review-steps-de', width);
  }

  // ── the outline at 1280 px: a side column; a jump puts the step in view; sections fold ──────────────────────
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${wip.url}/app/jobs/${job.id}/run?step=1`).catch(() => undefined);
  await waitForPage(page);
  await outlineNav.waitFor();
  assert.match(await outline.locator('summary').first().innerText(), '3 von 5 Schritten erledigt');
  assert.is(await page.locator('.run-progress').innerText(), '3 von 5 Schritten erledigt');
  await checkPage(page, 'operator', 'outline-de', 1280);
  for (const width of [390, 820]) {
    await page.setViewportSize({ width, height: 900 });
    await outline.locator('summary').first().click();
    await outlineNav.waitFor();
    await checkPage(page, 'operator', 'outline-de', width);
    await outline.locator('summary').first().click();
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await german(page, 'en');
  await outlineNav.getByRole('link', { name: 'Step 6: Hand the pump back' }).click();
  const handBack = page.getByRole('heading', { name: 'Hand the pump back' });
  await handBack.waitFor();
  assert.ok(await inView(page, handBack), 'the step jumped to is in view');
  assert.is(await outlineNav.locator('a[aria-current="step"]').innerText(), 'Step 6: Hand the pump back\nTo do');
  await checkPage(page, 'operator', 'outline', 1280);
  await outlineNav.locator('summary', { hasText: 'Preparation' }).click();
  assert.not.ok(await outlineNav.getByRole('link', { name: 'Step 1: Isolate the pump' }).isVisible(), 'the section folded');
  await outlineNav.locator('summary', { hasText: 'Preparation' }).click();
  assert.ok(await outlineNav.getByRole('link', { name: 'Step 1: Isolate the pump' }).isVisible());

  // ── at 390 px: a compact menu; the page of a step stays short ───────────────────────────────────────────────
  await page.setViewportSize({ width: 390, height: 800 });
  await page.goto(`${wip.url}/app/jobs/${job.id}/run?step=1`).catch(() => undefined);
  await waitForPage(page);
  assert.not.ok(await outlineNav.isVisible(), 'a closed menu on the phone');
  await waitInPage(page, `[...document.images].some((img) => img.alt === 'breaker.png' && img.complete && img.naturalHeight === 1500)`);
  const picture = await page.getByRole('img', { name: 'breaker.png' }).boundingBox();
  assert.ok(picture && picture.height <= 0.6 * 800 + 1, `the step's picture is ${picture?.height} px tall, at most 60% of the screen`);
  const height = await page.evaluate<number>('document.documentElement.scrollHeight');
  assert.ok(height < 2600, `the page of one step is ${height} px tall`);
  await outline.locator('summary').first().click();
  await checkPage(page, 'operator', 'outline-menu', 390);
  await outlineNav.getByRole('link', { name: 'Step 5: Tighten the flange' }).click();
  await page.getByRole('heading', { name: 'Tighten the flange' }).waitFor();
  assert.ok(await inView(page, page.getByRole('heading', { name: 'Tighten the flange' })));
  await checkPage(page, 'operator', 'outline-step', 390);

  // ── the job record: the same outline and count; a jump within the page; sections fold ───────────────────────
  for (const width of APP_WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${wip.url}/app/jobs/${job.id}/record`).catch(() => undefined);
    await waitForPage(page);
    assert.match(await outline.locator('summary').first().innerText(), '3 of 5 steps done');
    assert.is(await outlineState(page, 'Drain the pump'), 'not-applying');
    if (width < 1200) await outline.locator('summary').first().click();
    await outlineNav.getByRole('link', { name: 'Step 5: Tighten the flange' }).click();
    const torque = page.getByRole('region', { name: 'Step 5: Tighten the flange' });
    assert.ok(await inView(page, torque), `the step jumped to is in view at ${width} px`);
    await checkPage(page, 'jobs', 'record-outline', width);
    await german(page, 'de');
    await page.getByRole('region', { name: 'Schritt 5: Tighten the flange' }).waitFor();
    await checkPage(page, 'jobs', 'record-outline-de', width);
    await german(page, 'en');
  }
  await page.locator('.record-section > summary', { hasText: 'Preparation' }).click();
  assert.not.ok(await page.getByRole('region', { name: 'Step 1: Isolate the pump' }).isVisible(), 'the section folded');
  await page.context().close();
});

const JOB = `query($id: ID!) { job(id: $id) { state records { stepId } signoffs { stepId meaning signerName } } }`;

async function serverJob(jobId: number): Promise<any> {
  return (await gql(wip, team.client.owner.token, JOB, { id: gid('Job', jobId) })).data.job;
}

test.run();
