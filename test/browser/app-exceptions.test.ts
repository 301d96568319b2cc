import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { APP_WIDTHS, checkPage, openApp, smallTargets, startAppServer, waitForPage, type AppTeam } from '../helpers/app-browser';
import { publishedTemplate } from '../helpers/domain';
import { gid, gql } from '../helpers/graphql';
import type { TestServer } from '../helpers/server';

// Review by exception through the pages only: an approver opens /app/exceptions, sees the completed
// job with the deviations the server recorded (a value out of limits, a fault), acknowledges each with a comment
// (an empty one refused next to the field), then signs the job REVIEWED in the e-signature dialog (a wrong password
// refused with the server's answer). Every width with axe-core and screenshots (test-output/app/review-exceptions-*.png).

let browser: Browser;
let wip: TestServer;
let team: AppTeam;
let templateId = 0;

const CONTENT = {
  sections: [
    {
      id: 'main',
      title: 'Pump',
      steps: [
        {
          id: 'pressure',
          title: 'Pressure test',
          fields: [{ key: 'bar', label: 'Pressure', type: 'NUMBER', unit: 'bar', min: 1, max: 2 }],
        },
        { id: 'close', title: 'Close the cover', fields: [] },
      ],
    },
  ],
};

/** A completed job with an out-of-limits value (commented) and a fault: two deviations to acknowledge. */
async function completedJob(title: string): Promise<string> {
  const operator = team.operators[0];
  const made = await gql(wip, team.supervisor.token, 'mutation($i: CreateJobInput!) { createJob(input: $i) { job { databaseId } } }', {
    i: { templateId: gid('Template', templateId), title },
  });
  assert.equal(made.codes, [], JSON.stringify(made.errors));
  const jobId = gid('Job', made.data.createJob.job.databaseId);
  const run = async (query: string, i: Record<string, unknown>) => assert.equal((await gql(wip, operator.token, query, { i })).codes, []);
  await run('mutation($i: RecordStepInput!) { recordStep(input: $i) { revision } }', {
    jobId,
    stepId: 'pressure',
    status: 'DONE',
    values: [{ key: 'bar', value: 2.6 }],
    comment: 'Gauge reads high',
  });
  await run('mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { id } } }', {
    jobId,
    stepId: 'close',
    description: 'Cover hinge cracked',
    severity: 'HIGH',
  });
  await run('mutation($i: RecordStepInput!) { recordStep(input: $i) { revision } }', {
    jobId,
    stepId: 'close',
    status: 'DONE',
    values: [],
  });
  await run('mutation($i: JobTransitionInput!) { completeJob(input: $i) { revision } }', { jobId });
  return jobId;
}

const test = suite('review by exception in the floor app');
test.before(async () => {
  browser = await launchChromium();
  ({ wip, team } = await startAppServer({ clientName: 'Acme Pumps' }));
  ({ templateId } = await publishedTemplate(wip, team.client, CONTENT, 'Pump pressure'));
});
test.after(async () => {
  await browser?.close();
  await wip?.stop();
});

test('acknowledge each deviation with a comment, then sign the job REVIEWED (a wrong password refused first)', async () => {
  const jobId = await completedJob('Pump 7 pressure');
  const page = await openApp(browser, wip, team.approver, { width: 820, path: '/app/exceptions' });
  await page.getByRole('heading', { level: 1, name: 'Review by exception' }).waitFor();
  const card = page.getByRole('region', { name: /Pump 7 pressure/ });
  await card.getByText('2 deviations, 2 to acknowledge.').waitFor();
  assert.match((await card.textContent()) ?? '', 'bar = 2.6');
  assert.match((await card.textContent()) ?? '', 'Cover hinge cracked');
  const review = card.getByRole('button', { name: 'Review job' });
  assert.ok(await review.isDisabled(), 'not before every deviation is acknowledged');
  await checkPage(page, 'review', 'exceptions-open', 820);

  const items = card.getByRole('listitem');
  // an empty comment is refused next to the field, nothing sent
  await items.nth(0).getByRole('button', { name: 'Acknowledge' }).click();
  await items.nth(0).getByText('A comment is required.').waitFor();
  await items
    .nth(0)
    .getByLabel(/^Your comment/)
    .fill('Gauge recalibrated');
  await items.nth(0).getByRole('button', { name: 'Acknowledge' }).click();
  await card.getByText('2 deviations, 1 to acknowledge.').waitFor();
  await items
    .nth(1)
    .getByLabel(/^Your comment/)
    .fill('Hinge replaced, work order 77');
  await items.nth(1).getByRole('button', { name: 'Acknowledge' }).click();
  await card.getByText('2 deviations, 0 to acknowledge.').waitFor();
  assert.match((await card.textContent()) ?? '', 'By Alan Approver');

  await review.click();
  const dialog = page.getByRole('dialog', { name: 'Sign the review' });
  await dialog.waitFor();
  assert.match((await dialog.textContent()) ?? '', 'Reviewed');
  assert.match((await dialog.textContent()) ?? '', '2 deviations, each acknowledged');
  await dialog.getByLabel(/^Comment on the review/).fill('Released for service');
  await dialog.getByLabel(/^Password/).fill('not-my-password');
  await dialog.getByRole('button', { name: 'Sign as reviewed' }).click();
  await dialog
    .getByRole('alert')
    .getByText(/^Not signed:/)
    .waitFor();
  await checkPage(page, 'review', 'exceptions-sign', 820);
  await dialog.getByLabel(/^Password/).fill(team.approver.password);
  await dialog.getByRole('button', { name: 'Sign as reviewed' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await page.getByRole('status').getByText('“Pump 7 pressure” is reviewed.').first().waitFor();
  await card.waitFor({ state: 'detached' });

  const job = await gql(
    wip,
    team.approver.token,
    'query($id: ID!) { job(id: $id) { state review { signerName comment } deviations { acknowledged comment } } }',
    { id: jobId },
  );
  assert.equal(job.data.job, {
    state: 'REVIEWED',
    review: { signerName: 'Alan Approver', comment: 'Released for service' },
    deviations: [
      { acknowledged: true, comment: 'Gauge recalibrated' },
      { acknowledged: true, comment: 'Hinge replaced, work order 77' },
    ],
  });
  await page.context().close();
});

for (const width of APP_WIDTHS) {
  test(`the exceptions page at ${width} px: axe, no horizontal scrolling, touch targets, screenshots`, async () => {
    await completedJob(`Inspection at ${width}`);
    const page = await openApp(browser, wip, team.approver, { width, path: '/app/exceptions' });
    await page.getByRole('heading', { level: 1, name: 'Review by exception' }).waitFor();
    await waitForPage(page);
    await page.getByRole('region', { name: new RegExp(`Inspection at ${width}`) }).waitFor();
    await checkPage(page, 'review', 'exceptions', width);
    assert.equal(await smallTargets(page), [], `exceptions at ${width}`);
    await page.context().close();
  });
}

test.run();
