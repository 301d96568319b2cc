import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { APP_WIDTHS, checkPage, openApp, smallTargets, startAppServer, waitForPage, type AppTeam } from '../helpers/app-browser';
import { createAsset, publishedTemplate } from '../helpers/domain';
import { gid, gql } from '../helpers/graphql';
import type { TestServer } from '../helpers/server';

// The supervisor's pages through the browser only: a job created from a published template (asset,
// priority, due date, assignees) lands on the board; the board by state and due date; the deviations of the
// last days (a value out of limits, a failed step, an open fault, an overdue job). Every page at 390, 820 and
// 1280 px with axe-core and screenshots (test-output/app/supervisor-*.png).

let browser: Browser;
let wip: TestServer;
let team: AppTeam;
let templateId = 0;

const test = suite("the supervisor's pages");
test.before(async () => {
  browser = await launchChromium();
  ({ wip, team } = await startAppServer({ clientName: 'Acme Pumps' }));
  ({ templateId } = await publishedTemplate(wip, team.client, undefined, 'Pump inspection'));
  await createAsset(wip, team.client.owner.token, 'Pump 7');
});
test.after(async () => {
  await browser?.close();
  await wip?.stop();
});

test('create and assign a job from a published template; it is on the board, assigned, due, with its asset', async () => {
  const page = await openApp(browser, wip, team.supervisor, { width: 820, path: '/app/jobs/new' });
  await page.getByRole('heading', { level: 1, name: 'New job' }).waitFor();
  // nothing chosen: the form says what is missing, next to the field
  await page.getByRole('button', { name: 'Create job' }).click();
  await page.getByText('Choose a template.').waitFor();

  await page.getByLabel('Published template').selectOption({ label: 'Pump inspection (version 1)' });
  assert.is(await page.getByLabel('Job title').inputValue(), 'Pump inspection', 'the title follows the template');
  await page.getByLabel('Job title').fill('Weekly pump inspection');
  await page.getByLabel('Asset').selectOption({ label: 'Pump 7 (SN-1)' });
  await page.getByLabel('Priority').selectOption('HIGH');
  await page.getByLabel('Due').fill('2031-03-04T08:30');
  await page.getByLabel('Olga Operator').check();
  await checkPage(page, 'supervisor', 'new-job', 820);
  await page.getByRole('button', { name: 'Create job' }).click();

  await page.waitForURL(`${wip.url}/app/board`);
  await page
    .getByRole('status')
    .getByText(/Job \d+ created\./)
    .waitFor();
  const open = page.getByRole('region', { name: /Open/ });
  const card = open.getByRole('listitem').filter({ hasText: 'Weekly pump inspection' });
  await card.waitFor();
  const text = (await card.textContent()) ?? '';
  assert.match(text, 'High priority');
  assert.match(text, 'Pump 7');
  assert.match(text, 'Olga Operator');
  assert.match(text, /Due .*2031/);

  // the job as the API has it
  const jobs = await gql(
    wip,
    team.supervisor.token,
    '{ jobs(first: 10) { nodes { title priority dueAt asset { name } assignees { databaseId } template { databaseId } } } }',
  );
  const created = jobs.data.jobs.nodes.find((j: { title: string }) => j.title === 'Weekly pump inspection');
  assert.is(created.priority, 'HIGH');
  assert.is(created.asset.name, 'Pump 7');
  assert.equal(created.assignees, [{ databaseId: team.operators[0].id }]);
  assert.is(created.template.databaseId, templateId);
  assert.is(new Date(created.dueAt).getFullYear(), 2031);
  await page.context().close();
});

test('deviations: a value out of limits, a failed step, an open fault and an overdue job are listed', async () => {
  const operator = team.operators[1];
  const made = await gql(wip, team.supervisor.token, 'mutation($i: CreateJobInput!) { createJob(input: $i) { job { databaseId } } }', {
    i: {
      templateId: gid('Template', templateId),
      title: 'Late inspection',
      assigneeIds: [gid('User', operator.id)],
      dueAt: new Date(wip.clock.now().getTime() + 60_000).toISOString(),
    },
  });
  assert.equal(made.codes, [], JSON.stringify(made.errors));
  const jobId = gid('Job', made.data.createJob.job.databaseId);
  const record = (stepId: string, status: string, values: unknown[], extra = {}) =>
    gql(wip, operator.token, 'mutation($i: RecordStepInput!) { recordStep(input: $i) { revision } }', {
      i: { jobId, stepId, status, values, ...extra },
    });
  assert.equal((await record('measure', 'DONE', [{ key: 'torque', value: 27.5 }])).codes, []);
  assert.equal((await record('check', 'FAILED', [{ key: 'sealOk', value: false }], { comment: 'seal torn' })).codes, []);
  const fault = await gql(wip, operator.token, 'mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { databaseId } } }', {
    i: { jobId, stepId: 'check', description: 'Seal torn at the flange', severity: 'CRITICAL' },
  });
  assert.equal(fault.codes, [], JSON.stringify(fault.errors));
  wip.clock.advance(2 * 60_000);

  // the browser's clock is the machine's; the server's (a manual clock) decides what is overdue
  const page = await openApp(browser, wip, team.supervisor, { width: 1280, path: '/app/deviations' });
  await page.getByRole('heading', { level: 1, name: 'Deviations' }).waitFor();
  const outOfLimits = page.getByRole('region', { name: 'Values out of limits' });
  await outOfLimits.getByRole('cell', { name: /27\.5 Nm/ }).waitFor();
  assert.match((await outOfLimits.textContent()) ?? '', '10–20 Nm');
  assert.match((await page.locator('main').textContent()) ?? '', 'Failed');
  await page.getByText('Seal torn at the flange').waitFor();
  await page.getByRole('heading', { name: 'Overdue jobs (1)' }).waitFor();
  assert.match((await page.locator('main').textContent()) ?? '', 'Late inspection');
  await checkPage(page, 'supervisor', 'deviations', 1280);
  // the period: a day back still has them (they were recorded minutes ago)
  await page.getByLabel('Period').selectOption('1');
  await outOfLimits.getByRole('cell', { name: /27\.5 Nm/ }).waitFor();
  await page.context().close();
});

for (const width of APP_WIDTHS) {
  test(`the supervisor's pages at ${width} px: axe, no horizontal scrolling, touch targets, screenshots`, async () => {
    const page = await openApp(browser, wip, team.supervisor, { width, path: '/app/board' });
    for (const [path, heading, name] of [
      ['/app/board', 'Board of open jobs', 'board'],
      ['/app/jobs/new', 'New job', 'new-job'],
      ['/app/deviations', 'Deviations', 'deviations'],
      ['/app/', 'Hello, Sam Supervisor', 'home'],
    ] as const) {
      await page.goto(`${wip.url}${path}`);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      await waitForPage(page);
      await checkPage(page, 'supervisor', name, width);
      assert.equal(await smallTargets(page), [], `${name} at ${width}`);
    }
    await page.context().close();
  });
}

test('the pages are for those who may create jobs: an author sees no supervisor navigation and no board', async () => {
  const page = await openApp(browser, wip, team.author, { width: 1280, path: '/app/board' });
  await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
  assert.is(await page.getByRole('navigation').getByRole('link', { name: 'Board', exact: true }).count(), 0);
  await page.context().close();
});

test.run();
