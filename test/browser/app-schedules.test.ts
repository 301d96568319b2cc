import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { APP_WIDTHS, checkPage, openApp, smallTargets, startAppServer, waitForPage, type AppTeam } from '../helpers/app-browser';
import { createAsset, createJob, publishedTemplate } from '../helpers/domain';
import { gid, gql } from '../helpers/graphql';
import type { TestServer } from '../helpers/server';

// Recurring jobs in the floor app: the supervisor lists the schedules of recurring jobs (next occurrences, pause and
// resume) and creates a follow-up job from an open fault under Deviations. Every page at 390, 820 and 1280 px
// with axe-core and screenshots (test-output/app/supervisor-schedules-*.png, supervisor-follow-up-*.png).

let browser: Browser;
let wip: TestServer;
let team: AppTeam;
let faultId = 0;

const test = suite("the supervisor's schedules and follow-up jobs");
test.before(async () => {
  browser = await launchChromium();
  ({ wip, team } = await startAppServer({ clientName: 'Acme Pumps' }));
  const { templateId } = await publishedTemplate(wip, team.client, undefined, 'Pump inspection');
  await publishedTemplate(wip, team.client, undefined, 'Seal repair');
  const asset = await createAsset(wip, team.client.owner.token, 'Pump 7');
  const made = await gql(
    wip,
    team.supervisor.token,
    'mutation($i: CreateScheduleInput!) { createSchedule(input: $i) { schedule { id } } }',
    {
      i: {
        title: 'Weekly pump inspection',
        templateId: gid('Template', templateId),
        assetId: gid('Asset', asset),
        recurrence: 'FREQ=WEEKLY;BYDAY=MO',
        startsAt: '2030-01-07T07:00',
        assigneeIds: [gid('User', team.operators[0].id)],
      },
    },
  );
  assert.equal(made.codes, [], JSON.stringify(made.errors));
  const job = await createJob(wip, team.supervisor.token, { templateId, title: 'Inspection with a leak' });
  const fault = await gql(
    wip,
    team.operators[0].token,
    'mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { databaseId } } }',
    {
      i: { jobId: gid('Job', job.id), description: 'Seal leaks at the flange', severity: 'HIGH' },
    },
  );
  assert.equal(fault.codes, [], JSON.stringify(fault.errors));
  faultId = fault.data.raiseFault.fault.databaseId;
});
test.after(async () => {
  await browser?.close();
  await wip?.stop();
});

test('the schedules page lists a schedule with its recurrence and next occurrences; pause and resume', async () => {
  const page = await openApp(browser, wip, team.supervisor, { width: 1280, path: '/app/schedules' });
  await page.getByRole('heading', { level: 1, name: 'Schedules' }).waitFor();
  const card = page.getByRole('listitem').filter({ hasText: 'Weekly pump inspection' });
  await card.waitFor();
  const text = (await card.textContent()) ?? '';
  assert.match(text, 'Every week on Monday at 07:00', 'the rule in words');
  assert.match(text, 'Pump 7');
  assert.match(text, 'Olga Operator');
  assert.match(text, 'Active');
  assert.match(text, /2030/);
  assert.not.match(text, 'None in the next two years', 'a schedule starting later lists its first occurrences');
  const next = await gql(wip, team.supervisor.token, '{ schedules { nodes { nextOccurrences(first: 2) } } }');
  assert.equal(next.data.schedules.nodes[0].nextOccurrences, ['2030-01-07T07:00:00.000Z', '2030-01-14T07:00:00.000Z']);
  await checkPage(page, 'supervisor', 'schedules', 1280);
  await card.getByRole('button', { name: 'Pause' }).click();
  await page.getByRole('status').getByText('“Weekly pump inspection” paused.').waitFor();
  await card.getByText('Paused').first().waitFor();
  await card.getByText('None while paused').waitFor();
  await card.getByRole('button', { name: 'Resume' }).click();
  await card.getByRole('button', { name: 'Pause' }).waitFor();
  const state = await gql(wip, team.supervisor.token, '{ schedules { nodes { state revision } } }');
  assert.equal(state.data.schedules.nodes, [{ state: 'ACTIVE', revision: 3 }]);
  await page.context().close();
});

test('a follow-up job from an open fault under Deviations: linked to the fault, closing it when completed', async () => {
  const page = await openApp(browser, wip, team.supervisor, { width: 820, path: '/app/deviations' });
  await page.getByRole('heading', { level: 1, name: 'Deviations' }).waitFor();
  await page.getByRole('link', { name: 'Follow-up job for “Seal leaks at the flange”' }).click();
  await page.waitForURL(`${wip.url}/app/faults/${faultId}/follow-up`);
  await page.getByRole('heading', { level: 1, name: 'Follow-up job' }).waitFor();
  await waitForPage(page);
  await page.getByRole('button', { name: 'Create follow-up job' }).click();
  await page.getByText('Choose a template.').waitFor();
  await page.getByLabel('Published template').selectOption({ label: 'Seal repair (version 1)' });
  await checkPage(page, 'supervisor', 'follow-up', 820);
  await page.getByRole('button', { name: 'Create follow-up job' }).click();
  await page.waitForURL(`${wip.url}/app/board`);
  await page
    .getByRole('status')
    .getByText(/Follow-up job \d+ created\./)
    .waitFor();
  const linked = await gql(
    wip,
    team.supervisor.token,
    'query($f: ID!) { node(id: $f) { ... on Fault { followUpJobs { title priority closesFault followUpOf { databaseId } } } } }',
    { f: gid('Fault', faultId) },
  );
  assert.equal(linked.data.node.followUpJobs, [
    { title: 'Follow-up: Seal leaks at the flange', priority: 'HIGH', closesFault: true, followUpOf: { databaseId: faultId } },
  ]);
  await page.context().close();
});

for (const width of APP_WIDTHS) {
  test(`the schedules and follow-up pages at ${width} px: axe, no horizontal scrolling, touch targets, screenshots`, async () => {
    const page = await openApp(browser, wip, team.supervisor, { width, path: '/app/schedules' });
    for (const [path, heading, name] of [
      ['/app/schedules', 'Schedules', 'schedules'],
      [`/app/faults/${faultId}/follow-up`, 'Follow-up job', 'follow-up'],
      ['/app/deviations', 'Deviations', 'deviations-follow-up'],
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

test.run();
