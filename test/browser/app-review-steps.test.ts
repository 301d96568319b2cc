import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, waitInPage } from '../helpers/browser';
import { APP_WIDTHS, checkPage, openApp, startAppServer, waitForPage, type AppTeam } from '../helpers/app-browser';
import { buildUser } from '../helpers/factories';
import { createJob, publishedTemplate } from '../helpers/domain';
import { gql } from '../helpers/graphql';
import { solidPng } from '../helpers/images';
import { ok, CREATE_DRAFT, UPDATE_DRAFT } from '../helpers/templates';
import { upload } from '../helpers/upload';
import type { TestServer } from '../helpers/server';

// Reviewing steps, through the pages only: an approver sees each step of a version in review as the operator
// will (its picture loaded, its field with unit and limits, its sign-off rule) and, in the diff, the picture that was
// replaced (the old one and the new one); reads the template's page (versions, states, who approved and published);
// and a person who recorded a step of a completed job is told on review by exception, before any comment or password,
// that another approver must review it — the sign button disabled. Every width, English and German, with axe-core and
// screenshots (test-output/app/review-steps-*.png, review-template-*.png, review-exceptions-blocked-*.png).

let browser: Browser;
let wip: TestServer;
let team: AppTeam;
/** an operator who is an approver too, and the completed job whose step they recorded */
let both: { email: string; password: string; token: string };
let jobTitle = '';

const sealStep = (media: number[]) => ({
  stepId: 'seal',
  title: 'Check the seal',
  body: 'Compare the seal with the picture.',
  media,
  fields: [{ key: 'gap', label: 'Seal gap', type: 'NUMBER', unit: 'mm', min: 0.1, max: 0.4, required: true }],
  signoff: { performer: true },
});
const content = (media: number[]) => ({ sections: [{ sectionId: 'main', title: 'Seal', steps: [sealStep(media)] }] });
const CREATE = `mutation ($input: CreateTemplateInput!) { createTemplate(input: $input) { template { id databaseId latestVersion { id } } } }`;
const SUBMIT = `mutation ($id: ID!) { submitVersion(input: { versionId: $id }) { version { id } } }`;
const APPROVE = `mutation ($id: ID!, $p: String) { approveVersion(input: { versionId: $id, password: $p }) { version { id } } }`;
const PUBLISH = `mutation ($id: ID!, $p: String) { publishVersion(input: { versionId: $id, password: $p }) { version { id } } }`;

const setup = suite('setup');
setup('a server, a team; version 1 with a picture published, version 2 with another picture in review; a completed job', async () => {
  browser = await launchChromium();
  ({ wip, team } = await startAppServer());
  const { author, approver, publisher } = team;
  const files = await upload(wip, author.token, [
    { name: 'seal-old.png', data: solidPng(64, 48, [200, 30, 30]) },
    { name: 'seal-new.png', data: solidPng(80, 60, [30, 30, 200]) },
  ]);
  assert.is(files.status, 201, files.text);
  const [oldPicture, newPicture] = (files.body.data.files as { id: number }[]).map((f) => f.id);
  const created = ok(await gql(wip, author.token, CREATE, { input: { title: 'Seal check', content: content([oldPicture]) } }))
    .createTemplate.template;
  ok(await gql(wip, author.token, SUBMIT, { id: created.latestVersion.id }));
  ok(await gql(wip, approver.token, APPROVE, { id: created.latestVersion.id, p: approver.password }));
  ok(await gql(wip, publisher.token, PUBLISH, { id: created.latestVersion.id, p: publisher.password }));
  const draft = ok(await gql(wip, author.token, CREATE_DRAFT, { id: created.id })).createDraft.version;
  ok(await gql(wip, author.token, UPDATE_DRAFT, { id: draft.id, content: content([newPicture]) }));
  ok(await gql(wip, author.token, SUBMIT, { id: draft.id }));

  // a job recorded by an operator who is an approver too: the server will not let them review it
  const user = await buildUser(wip, team.client, { roles: ['operator', 'approver'] });
  both = { email: user.email, password: user.password, token: user.token! };
  const simple = await publishedTemplate(
    wip,
    team.client,
    { sections: [{ id: 'main', title: 'Main', steps: [{ id: 'look', title: 'Look at the pump', fields: [] }] }] },
    'Pump walk-round',
  );
  jobTitle = 'Walk round pump 3';
  const job = await createJob(wip, team.supervisor.token, { templateId: simple.templateId, title: jobTitle, assigneeIds: [user.id] });
  const jobId = `Job:${job.id}`;
  ok(
    await gql(wip, both.token, 'mutation($i: RecordStepInput!) { recordStep(input: $i) { revision } }', {
      i: { jobId, stepId: 'look', status: 'DONE', values: [] },
    }),
  );
  ok(await gql(wip, both.token, 'mutation($j: ID!) { completeJob(input: { jobId: $j }) { job { state } } }', { j: jobId }));
  const refused = await gql(wip, both.token, 'mutation($i: ReviewJobInput!) { reviewJob(input: $i) { job { state } } }', {
    i: { jobId, password: both.password },
  });
  assert.equal(refused.codes, ['SEPARATION_OF_DUTIES'], 'the server refuses them: the page must say so first');
});
setup.run();

/** The picture `name` in `scope` has loaded (scrolled to first: images load lazily), `width` pixels wide. */
async function pictureLoaded(page: Page, scope: string, name: string, width: number): Promise<void> {
  const selector = `${scope} img[alt="${name}"]`;
  await page.locator(selector).first().scrollIntoViewIfNeeded();
  await waitInPage(page, `[...document.querySelectorAll('${selector}')].some((img) => img.complete && img.naturalWidth === ${width})`);
}

async function switchLanguage(page: Page, language: 'de' | 'en', heading: string): Promise<void> {
  await page.locator('label.language select').selectOption(language);
  await page.locator(`html[lang="${language}"]`).waitFor();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await waitForPage(page);
}

const test = suite('an approver sees the steps and the replaced picture; the template page; review by exception says who may not sign');
for (const width of APP_WIDTHS) {
  test(`at ${width} px, English and German`, async () => {
    const page = await openApp(browser, wip, team.approver, { width, path: '/app/reviews' });
    await page.getByRole('link', { name: 'Seal check, version 2' }).click();
    await page.getByRole('heading', { level: 1, name: 'Seal check, version 2' }).waitFor();
    await waitForPage(page);
    // the step as the operator will see it: the new picture loaded, the field with unit and limits, the sign-off
    // located by CSS: the same locators hold in German
    const steps = page.locator('section.review-version-steps');
    await steps.locator('h2', { hasText: 'The steps as operators will see them' }).waitFor();
    const step = steps.locator('article.step-view', { hasText: 'Check the seal' });
    const text = await step.innerText();
    assert.match(text, 'Compare the seal with the picture.');
    assert.match(text, /Seal gap/);
    assert.match(text, /0[.,]1–0[.,]4 mm/, "the limits in the page's language");
    assert.match(text, /sign/i);
    // the diff: the old picture removed, the new one added, both shown
    const changed = page.locator('section.review-changes').locator('article.diff-changed', { hasText: 'Check the seal' });
    await page.locator('section.review-changes h2', { hasText: 'Changes since version 1 (published)' }).waitFor();
    const diff = await changed.innerText();
    assert.match(diff, /Removed \(1\)\s+seal-old\.png\s+Added \(1\)\s+seal-new\.png/);
    // the pictures themselves, loaded: the one the operator will see, and both sides of the diff
    await pictureLoaded(page, '.review-version-steps', 'seal-new.png', 80);
    await pictureLoaded(page, '.review-changes .diff-before', 'seal-old.png', 64);
    await pictureLoaded(page, '.review-changes .diff-after', 'seal-new.png', 80);
    await checkPage(page, 'review', 'steps', width);
    await switchLanguage(page, 'de', 'Seal check, Version 2');
    await steps.locator('h2', { hasText: 'Die Schritte, wie der Werker sie sieht' }).waitFor();
    assert.match(await changed.innerText(), /Entfernt \(1\)\s+seal-old\.png\s+Hinzugefügt \(1\)\s+seal-new\.png/);
    await checkPage(page, 'review', 'steps-de', width);
    await switchLanguage(page, 'en', 'Seal check, version 2');

    // the template's page, read-only, linked from the version: who approved and who published version 1
    await page.getByRole('link', { name: 'All versions of “Seal check”' }).click();
    await page.getByRole('heading', { level: 1, name: 'Seal check' }).waitFor();
    await waitForPage(page);
    const versions = await page.locator('.review-versions').innerText();
    assert.match(versions, /Review version 2\s+In review\s+Last edited by Ada Author\./);
    assert.match(
      versions,
      /Review version 1\s+Published\s+Last edited by Ada Author\.\s+Approved by Alan Approver\.\s+Published by Pia Publisher\./,
    );
    await checkPage(page, 'review', 'template', width);
    await page.getByRole('link', { name: 'Review version 2' }).click();
    await page.getByRole('heading', { level: 1, name: 'Seal check, version 2' }).waitFor();
    await page.context().close();

    // review by exception for the one who recorded a step: said up front, the signature not offered
    const exceptions = await openApp(browser, wip, both, { width, path: '/app/exceptions' });
    await exceptions.getByRole('heading', { level: 1, name: 'Review by exception' }).waitFor();
    const card = exceptions.getByRole('region', { name: new RegExp(`^${jobTitle}`) });
    await card.getByText('You recorded step 1 (Look at the pump) of this job: another approver must review it.').first().waitFor();
    const sign = card.getByRole('button', { name: 'Review job' });
    assert.ok(await sign.isDisabled(), 'the sign button is disabled');
    // the button is described by the reason, so a screen reader says why it cannot be pressed
    const reason = await exceptions.locator(`#${await sign.getAttribute('aria-describedby')}`).innerText();
    assert.match(reason, /another approver must review it/);
    await card.getByRole('link', { name: new RegExp(jobTitle) }).waitFor();
    await checkPage(exceptions, 'review', 'exceptions-blocked', width);
    await switchLanguage(exceptions, 'de', 'Prüfung nach Ausnahmen');
    await card
      .getByText('Sie haben Schritt 1 (Look at the pump) dieses Auftrags erfasst: Ein anderer Freigeber muss den Auftrag prüfen.')
      .first()
      .waitFor();
    await checkPage(exceptions, 'review', 'exceptions-blocked-de', width);
    await switchLanguage(exceptions, 'en', 'Review by exception');
    await exceptions.context().close();
  });
}
test.after(async () => {
  await browser?.close();
  await wip?.stop();
});
test.run();
