import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { APP_WIDTHS, checkPage, openApp, startAppServer, waitForPage, type AppTeam } from '../helpers/app-browser';
import type { TestServer } from '../helpers/server';
import { gql, gid } from '../helpers/graphql';
import { contentInput, publishedTemplate, publishNewVersion } from '../helpers/domain';

/**
 * The execution rules in the author's editor and the reviewer's diff, through the pages only: a step's
 * condition written with the builder (read back as a sentence), a CALCULATED field's formula (a syntax error shown
 * as typed, a reference to a later step refused by the server's autosave at its input), a step's sign-off with its
 * verifier roles; the preview says all of it; the version diff shows a changed condition, formula and sign-off in
 * words. What is stored is checked through the API.
 */
let wip: TestServer;
let team: AppTeam;
let browser: Browser;
const author = suite('floor app: execution rules in the editor and the diff');
author.before(async () => {
  ({ wip, team } = await startAppServer());
  browser = await launchChromium();
});
author.after(async () => {
  await browser?.close();
  await wip?.stop();
});

const DRAFT = {
  sections: [
    {
      id: 'checks',
      title: 'Checks',
      steps: [
        { id: 'seal', title: 'Check the seal', fields: [{ key: 'ok', label: 'Seal intact', type: 'PASS_FAIL', required: true }] },
        { id: 'replace', title: 'Replace the seal', fields: [{ key: 'part', label: 'Part used', type: 'TEXT' }] },
        {
          id: 'pressure',
          title: 'Pressure test',
          fields: [
            { key: 'p_in', label: 'Inlet pressure', type: 'NUMBER', unit: 'bar' },
            { key: 'p_out', label: 'Outlet pressure', type: 'NUMBER', unit: 'bar' },
          ],
        },
        { id: 'report', title: 'Report', fields: [{ key: 'note', label: 'Note', type: 'TEXT' }] },
      ],
    },
  ],
};

const saved = (page: Page) =>
  page
    .getByRole('status')
    .filter({ hasText: /All changes saved/ })
    .waitFor();
const stepRegion = (page: Page, number: number) => page.getByRole('region', { name: new RegExp(`^Step ${number}:`) });

async function draftContent(templateId: number): Promise<any> {
  const data = await gql(
    wip,
    team.author.token,
    `query($id: ID!) { template(id: $id) { latestVersion { content { sections { steps { stepId when signoff { performer verifier { roles } } fields { key type expression unit min max } } } } } } }`,
    { id: gid('Template', templateId) },
  );
  return data.data.template.latestVersion.content.sections[0].steps;
}

author('a condition, a formula and a sign-off written in the editor; the preview says them', async () => {
  const created = await gql(
    wip,
    team.author.token,
    'mutation($i: CreateTemplateInput!) { createTemplate(input: $i) { template { databaseId } } }',
    {
      i: { title: 'Seal and pressure', description: '', tags: [], content: contentInput(DRAFT) },
    },
  );
  assert.equal(created.codes, []);
  const templateId: number = created.data.createTemplate.template.databaseId;
  const page = await openApp(browser, wip, team.author, { width: 1280, path: `/app/templates/${templateId}/edit` });
  await page.getByRole('heading', { level: 1, name: 'Draft of version 1' }).waitFor();

  // step 2 applies only when the seal check failed: the builder, read back as a sentence
  const replace = stepRegion(page, 2);
  const condition = replace.getByRole('group', { name: 'When does Step 2 apply?' });
  await condition.getByRole('button', { name: 'Only when…' }).click();
  await condition.getByLabel('Reads').selectOption('field');
  await condition.getByLabel('Field').selectOption('ok');
  await condition.getByLabel('Comparison').selectOption('eq');
  await condition.getByLabel('Value').selectOption('FAIL');
  await condition.getByText('Applies only when: “Check the seal” · Seal intact is Fail').waitFor();

  // step 3: a calculated field — a syntax error as typed, then a later step refused by the server at its input
  const pressure = stepRegion(page, 3);
  await pressure.getByLabel('New field type').selectOption('CALCULATED');
  await pressure.getByRole('button', { name: /^Add field/ }).click();
  const formula = pressure.getByRole('textbox', { name: 'Formula', exact: true });
  await formula.fill('eval(1)');
  await pressure.getByText('The formula cannot be read: unknown function "eval"', { exact: false }).waitFor();
  await formula.fill('report.note - p_in');
  await pressure.locator('.field-error', { hasText: /report/ }).waitFor();
  assert.equal(await formula.getAttribute('aria-invalid'), 'true');
  await formula.fill('round(p_out - p_in, 1)');
  await pressure.getByLabel('Unit', { exact: true }).last().fill('bar');
  // the sign-off: performer and a verifier (approver by default)
  await pressure.getByLabel('The person who performs the step signs it (performed)').check();
  await pressure.getByLabel('A second person verifies and signs it (verified)').check();
  await saved(page);
  for (const width of APP_WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await checkPage(page, 'rules', 'author-editor', width);
  }

  const steps = await draftContent(templateId);
  assert.equal(steps[1].when, { step: 'seal', field: 'ok', op: 'eq', value: 'FAIL' });
  assert.equal(steps[2].fields[2], {
    // no label: the key the editor gives (unique in the version; a label would give its own)
    key: 'field',
    type: 'CALCULATED',
    expression: 'round(p_out - p_in, 1)',
    unit: 'bar',
    min: null,
    max: null,
  });
  assert.equal(steps[2].signoff, { performer: true, verifier: { roles: ['approver'] } });

  // the preview says when a step applies and who signs it
  await page.setViewportSize({ width: 820, height: 900 });
  await page.getByRole('button', { name: 'Preview', exact: true }).click();
  await page.getByRole('button', { name: 'Next step' }).click();
  await page.getByText('This step applies only when “Check the seal” · Seal intact is Fail.').waitFor();
  await page.getByRole('button', { name: 'Next step' }).click();
  await page.getByText('Signed by the performer and verified by a second person (approver).').waitFor();
  // the calculated field as operators see it (their app's own component): the fields it reads by label, never the
  // formula's source, and no value until its inputs have one
  await page.getByText(/^Computed from: Outlet pressure.*, Inlet pressure/).waitFor();
  assert.is(await page.getByText('round(p_out - p_in, 1)').count(), 0, 'operators never see the formula');
  await page.getByText('computed once its inputs are entered').waitFor();
  await checkPage(page, 'rules', 'author-preview', 820);
});

author('the version diff names a changed condition, formula and sign-off in words', async () => {
  const v1 = {
    sections: [
      {
        id: 'checks',
        title: 'Checks',
        steps: [
          { id: 'seal', title: 'Check the seal', fields: [{ key: 'ok', label: 'Seal intact', type: 'PASS_FAIL', required: true }] },
          {
            id: 'replace',
            title: 'Replace the seal',
            when: { step: 'seal', field: 'ok', op: 'eq', value: 'FAIL' },
            fields: [{ key: 'part', label: 'Part used', type: 'TEXT' }],
          },
          {
            id: 'pressure',
            title: 'Pressure test',
            fields: [
              { key: 'p_in', label: 'Inlet pressure', type: 'NUMBER', unit: 'bar' },
              { key: 'p_out', label: 'Outlet pressure', type: 'NUMBER', unit: 'bar' },
              { key: 'drop', label: 'Pressure drop', type: 'CALCULATED', expression: 'p_out - p_in', unit: 'bar' },
            ],
          },
        ],
      },
    ],
  };
  const v2 = structuredClone(v1) as any;
  v2.sections[0].steps[1].when = { step: 'seal', status: 'FAILED' };
  v2.sections[0].steps[2].fields[2].expression = 'round(p_out - p_in, 1)';
  v2.sections[0].steps[2].signoff = { performer: true, verifier: { roles: ['approver'] } };
  const template = await publishedTemplate(wip, team.client, v1, 'Diffed rules');
  const versionId = await publishNewVersion(wip, team.client, template, v2).catch(() => 0);
  assert.ok(versionId > 0);
  const page = await openApp(browser, wip, team.approver, { width: 820, path: `/app/reviews/${versionId}` });
  await waitForPage(page);
  const replace = page.getByRole('article', { name: /Replace the seal/ });
  await replace.getByText('“Check the seal” · Seal intact is Fail').waitFor();
  await replace.getByText('“Check the seal” was recorded as failed', { exact: true }).waitFor();
  const pressure = page.getByRole('article', { name: /Pressure test/ });
  await pressure.getByRole('cell', { name: 'round(p_out - p_in, 1)' }).waitFor();
  await pressure.getByText('no sign-off').waitFor();
  await pressure.getByText('signed by the performer · verified by a second person (approver)').waitFor();
  for (const width of APP_WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await checkPage(page, 'rules', 'review-diff', width);
  }
});

author.run();
