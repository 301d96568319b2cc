import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import {
  addMember,
  APP_WIDTHS,
  checkPage,
  openApp,
  smallTargets,
  startAppServer,
  waitForPage,
  type AppTeam,
  type Member,
} from '../helpers/app-browser';
import { createAsset, publishedTemplate } from '../helpers/domain';
import { gid, gql } from '../helpers/graphql';
import type { TestServer } from '../helpers/server';

// The schedule builder, through the pages only: a shift lead holding exactly operator + approver — the least
// privileged supervisor (docs/guides/supervisor.md) — builds a schedule in the app with the recurrence builder and the
// server's preview (a refused rule shown at its field), sees its first jobs under it and on the board, edits, pauses,
// resumes and deletes it; then does the rest of a supervisor's work: a new job, its page from the board, Deviations,
// and review by exception signed with their password. The new pages at 390, 820 and 1280 px with axe-core, in
// German; screenshots test-output/app/supervisor-schedule-*.png.

let browser: Browser;
let wip: TestServer;
let team: AppTeam;
let lead: Member;
let templateId = 0;
let assetId = 0;

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

/** A member of the team's client holding exactly `roles`. */
const member = (firstName: string, lastName: string, roles: string[]) =>
  addMember(wip, team.client, { firstName, lastName, roles, title: 'Shift lead' });

/** Tomorrow on the test's clock, YYYY-MM-DD (the form's default first day: the browser runs on the same machine). */
function tomorrow(): string {
  const day = new Date(Date.now() + 86_400_000);
  return `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, '0')}-${String(day.getDate()).padStart(2, '0')}`;
}

const schedulesOf = async () =>
  (
    await gql(
      wip,
      lead.token,
      '{ schedules { nodes { databaseId title state recurrence startsAt dueOffsetMinutes missedOccurrences asset { name } assignees { databaseId } } } }',
    )
  ).data.schedules.nodes;

const test = suite('a shift lead (operator + approver) plans recurring work and supervises in the app');
test.before(async () => {
  browser = await launchChromium();
  ({ wip, team } = await startAppServer({ clientName: 'Acme Pumps' }));
  ({ templateId } = await publishedTemplate(wip, team.client, CONTENT, 'Pump inspection'));
  assetId = await createAsset(wip, team.client.owner.token, 'Pump 7');
  lead = await member('Lena', 'Lead', ['operator', 'approver']);
});
test.after(async () => {
  await browser?.close();
  await wip?.stop();
});

test('a schedule built in the app: preview before saving, a refused rule at its field, its first jobs under it and on the board', async () => {
  const page = await openApp(browser, wip, lead, { width: 1280, path: '/app/schedules' });
  await page.getByRole('heading', { level: 1, name: 'Schedules' }).waitFor();
  await page.getByRole('link', { name: 'New schedule' }).click();
  await page.getByRole('heading', { level: 1, name: 'New schedule' }).waitFor();
  await waitForPage(page);
  await page.getByLabel('Published template').selectOption({ label: 'Pump inspection (version 1)' });
  assert.is(await page.getByLabel(/^Title of its jobs/).inputValue(), 'Pump inspection', 'the title follows the template');
  await page.getByLabel(/^Title of its jobs/).fill('Daily pump round');
  await page.getByLabel(/^For/).selectOption({ value: `asset:${assetId}` });

  // a rule written by hand that the server refuses: its words at the field, before saving
  await page.getByLabel('Repeats').selectOption({ label: 'Advanced: an RRULE written by hand' });
  assert.is(await page.getByLabel(/^RRULE/).inputValue(), 'FREQ=DAILY', 'it starts from the rule built so far');
  await page.getByLabel(/^RRULE/).fill('FREQ=MINUTELY');
  await page
    .getByText(/recurs at most hourly/)
    .first()
    .waitFor();
  assert.is(await page.getByLabel(/^RRULE/).getAttribute('aria-invalid'), 'true');

  // every day at 07:00 from tomorrow: the preview is the server's, in this browser's locale and zone
  await page.getByLabel('Repeats').selectOption({ label: 'Every day' });
  assert.is(await page.getByLabel(/^First day/).inputValue(), tomorrow());
  await page.getByLabel(/^At/).fill('07:00');
  const preview = page.getByRole('region', { name: 'Next occurrences' });
  await preview.locator('time').nth(4).waitFor();
  const shown = await preview.locator('time').evaluateAll((times) => times.map((time) => time.getAttribute('datetime')));
  const expected = await gql(
    wip,
    lead.token,
    'query($s: String!) { schedulePreview(recurrence: "FREQ=DAILY", startsAt: $s) { occurrences } }',
    {
      s: `${tomorrow()}T07:00`,
    },
  );
  assert.equal(shown, expected.data.schedulePreview.occurrences);
  assert.is(shown[0], `${tomorrow()}T07:00:00.000Z`, "the client's zone is UTC until set");
  await preview.getByText(/time zone, UTC/).waitFor();

  await page.getByLabel(/^Due after/).fill('8');
  await page.getByLabel(/^Occurrences missed/).selectOption({ label: 'Skip them' });
  await page.getByLabel('Olga Operator').check();
  await checkPage(page, 'supervisor', 'schedule-new', 1280);
  await page.getByRole('button', { name: 'Create schedule' }).click();
  await page.getByRole('status').getByText('Schedule “Daily pump round” created.').waitFor();
  await page.getByRole('heading', { level: 1, name: 'Daily pump round' }).waitFor();
  const [saved] = await schedulesOf();
  assert.equal(saved, {
    databaseId: saved.databaseId,
    title: 'Daily pump round',
    state: 'ACTIVE',
    recurrence: 'FREQ=DAILY',
    startsAt: `${tomorrow()}T07:00`,
    dueOffsetMinutes: 480,
    missedOccurrences: 'SKIP',
    asset: { name: 'Pump 7' },
    assignees: [{ databaseId: team.operators[0].id }],
  });
  assert.is(new URL(page.url()).pathname, `/app/schedules/${saved.databaseId}`);

  // the worker's round after the save (the daemon's timer does the same): every occurrence within the horizon
  // (7 days) is a job; the page lists them with links to their records
  await wip.deps.schedules.tick();
  await page.reload();
  await waitForPage(page);
  await page.getByText('Every day at 07:00').first().waitFor();
  const jobs = page.getByRole('region', { name: 'Occurrences and the jobs they became' }).getByRole('link', { name: /Daily pump round/ });
  await jobs.first().waitFor();
  const count = await jobs.count();
  assert.ok(count >= 6 && count <= 7, `${count} jobs for the days within the horizon`);
  await checkPage(page, 'supervisor', 'schedule', 1280);
  const href = (await jobs.first().getAttribute('href'))!;
  assert.match(href, /^\/app\/jobs\/\d+\/record$/);
  await jobs.first().click();
  await page.waitForURL(`${wip.url}${href}`);
  await page.getByRole('heading', { level: 1, name: 'Daily pump round' }).waitFor();

  await page.goto(`${wip.url}/app/board`);
  await waitForPage(page);
  assert.is(await page.getByRole('link', { name: 'Daily pump round' }).count(), count, 'on the board');
  await page.context().close();
});

test('edit the schedule (weekly on Monday and Thursday), pause, resume and delete it', async () => {
  const [schedule] = await schedulesOf();
  const page = await openApp(browser, wip, lead, { width: 820, path: `/app/schedules/${schedule.databaseId}` });
  await page.getByRole('link', { name: 'Edit' }).click();
  await page.getByRole('heading', { level: 1, name: 'Edit schedule' }).waitFor();
  await waitForPage(page);
  assert.is(await page.getByLabel('Repeats').inputValue(), 'daily', 'a saved rule reads back into the builder');
  await page.getByLabel('Repeats').selectOption({ label: 'On chosen weekdays' });
  // no weekday: said at the field, nothing sent
  await page.getByLabel('Monday').uncheck();
  await page.getByText('Choose at least one weekday.').waitFor();
  await page.getByLabel('Monday').check();
  await page.getByLabel('Thursday').check();
  await page.getByLabel(/^At/).fill('06:30');
  await page.getByRole('region', { name: 'Next occurrences' }).locator('time').first().waitFor();
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page
    .getByRole('status')
    .getByText(/Schedule “Daily pump round” saved/)
    .waitFor();
  await page.getByText('Every week on Monday, Thursday at 06:30').waitFor();
  const [edited] = await schedulesOf();
  assert.is(edited.recurrence, 'FREQ=WEEKLY;BYDAY=MO,TH');
  assert.is(edited.startsAt, `${tomorrow()}T06:30`);
  assert.is(edited.dueOffsetMinutes, 480, 'what was not changed stays');

  await page.getByRole('button', { name: 'Pause' }).click();
  await page.getByRole('status').getByText('“Daily pump round” paused.').waitFor();
  await page.getByText('None while paused').waitFor();
  await page.getByRole('button', { name: 'Resume' }).click();
  await page.getByRole('button', { name: 'Pause' }).waitFor();
  assert.is((await schedulesOf())[0].state, 'ACTIVE');

  await page.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete “Daily pump round”?' });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: 'Delete schedule' }).click();
  await page.getByRole('heading', { level: 1, name: 'Schedules' }).waitFor();
  await page.getByRole('status').getByText('Schedule “Daily pump round” deleted.').waitFor();
  await page.getByText('No schedules yet').waitFor();
  assert.equal(await schedulesOf(), []);
  await page.context().close();
});

test("the rest of a supervisor's work with operator + approver: a new job, its page from the board, deviations, review by exception", async () => {
  const page = await openApp(browser, wip, lead, { width: 1280, path: '/app/jobs/new' });
  await page.getByRole('heading', { level: 1, name: 'New job' }).waitFor();
  await waitForPage(page);
  await page.getByLabel('Published template').selectOption({ label: 'Pump inspection (version 1)' });
  await page.getByLabel(/^Job title/).fill('Pump 7 pressure');
  await page.getByRole('button', { name: 'Create job' }).click();
  await page.waitForURL(`${wip.url}/app/board`);
  await page.getByRole('link', { name: 'Pump 7 pressure' }).click();
  await page.getByRole('heading', { level: 1, name: 'Pump 7 pressure' }).waitFor();
  const jobId = gid('Job', Number(/\/app\/jobs\/(\d+)\/record/.exec(page.url())![1]));

  // the operator runs it: a value out of limits, then completes it (the floor's part, not the lead's)
  const operator = team.operators[0];
  const run = async (query: string, i: Record<string, unknown>) => assert.equal((await gql(wip, operator.token, query, { i })).codes, []);
  await run('mutation($i: RecordStepInput!) { recordStep(input: $i) { revision } }', {
    jobId,
    stepId: 'pressure',
    status: 'DONE',
    values: [{ key: 'bar', value: 2.6 }],
    comment: 'Gauge reads high',
  });
  await run('mutation($i: RecordStepInput!) { recordStep(input: $i) { revision } }', {
    jobId,
    stepId: 'close',
    status: 'DONE',
    values: [],
  });
  await run('mutation($i: JobTransitionInput!) { completeJob(input: $i) { revision } }', { jobId });

  await page.goto(`${wip.url}/app/deviations`);
  await page.getByRole('heading', { level: 1, name: 'Deviations' }).waitFor();
  await waitForPage(page);
  await page.getByRole('link', { name: 'Pump 7 pressure' }).first().waitFor();

  await page.goto(`${wip.url}/app/exceptions`);
  await page.getByRole('heading', { level: 1, name: 'Review by exception' }).waitFor();
  const card = page.getByRole('region', { name: /Pump 7 pressure/ });
  await card
    .getByRole('listitem')
    .first()
    .getByLabel(/^Your comment/)
    .fill('Gauge recalibrated');
  await card.getByRole('listitem').first().getByRole('button', { name: 'Acknowledge' }).click();
  await card.getByText(/0 to acknowledge/).waitFor();
  await card.getByRole('button', { name: 'Review job' }).click();
  const dialog = page.getByRole('dialog', { name: 'Sign the review' });
  await dialog.getByLabel(/^Password/).fill(lead.password);
  await dialog.getByRole('button', { name: 'Sign as reviewed' }).click();
  await page.getByRole('status').getByText('“Pump 7 pressure” is reviewed.').first().waitFor();
  const job = await gql(wip, lead.token, 'query($id: ID!) { job(id: $id) { state review { signerName } } }', { id: jobId });
  assert.equal(job.data.job, { state: 'REVIEWED', review: { signerName: 'Lena Lead' } });
  await page.context().close();
});

async function openSchedulePages(page: Page, scheduleId: number, width: number): Promise<void> {
  for (const [path, heading, name] of [
    ['/app/schedules', 'Zeitpläne', 'schedules-de'],
    ['/app/schedules/new', 'Neuer Zeitplan', 'schedule-new-de'],
    [`/app/schedules/${scheduleId}`, 'Wöchentliche Pumpenrunde', 'schedule-de'],
    [`/app/schedules/${scheduleId}/edit`, 'Zeitplan bearbeiten', 'schedule-edit-de'],
  ] as const) {
    await page.goto(`${wip.url}${path}`);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    await waitForPage(page);
    if (path.endsWith('new') || path.endsWith('edit'))
      await page.getByRole('region', { name: 'Nächste Termine' }).locator('time').first().waitFor();
    if (name === 'schedule-de') await page.getByText('Jede Woche am Montag, Freitag um 06:00').first().waitFor();
    await checkPage(page, 'supervisor', name, width);
    assert.equal(await smallTargets(page), [], `${name} at ${width}`);
  }
}

for (const width of APP_WIDTHS) {
  test(`the schedule pages in German at ${width} px: axe, no horizontal scrolling, touch targets, screenshots`, async () => {
    const german = await member('Jana', 'Schicht', ['operator', 'approver']);
    const language = await wip.request('PUT', '/api/client/account/notification-preferences', {
      token: german.token,
      body: { language: 'de' },
    });
    assert.is(language.status, 200, language.text);
    const made = await gql(
      wip,
      german.token,
      'mutation($i: CreateScheduleInput!) { createSchedule(input: $i) { schedule { databaseId } } }',
      {
        i: {
          title: 'Wöchentliche Pumpenrunde',
          templateId: gid('Template', templateId),
          recurrence: 'FREQ=WEEKLY;BYDAY=MO,FR',
          startsAt: '2030-01-07T06:00',
        },
      },
    );
    assert.equal(made.codes, [], JSON.stringify(made.errors));
    const scheduleId = made.data.createSchedule.schedule.databaseId;
    const page = await openApp(browser, wip, german, { width, path: '/app/schedules' });
    try {
      await openSchedulePages(page, scheduleId, width);
    } finally {
      await gql(wip, german.token, 'mutation($i: DeleteScheduleInput!) { deleteSchedule(input: $i) { deletedScheduleId } }', {
        i: { scheduleId: gid('Schedule', scheduleId) },
      });
    }
    await page.context().close();
  });
}

test.run();
