import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, waitInPage } from '../helpers/browser';
import { APP_WIDTHS, checkPage, openApp, smallTargets, startAppServer, waitForPage, type AppTeam } from '../helpers/app-browser';
import { buildUser } from '../helpers/factories';
import { createJob, publishedTemplate } from '../helpers/domain';
import { gql } from '../helpers/graphql';
import { solidPng } from '../helpers/images';
import { upload } from '../helpers/upload';
import type { TestServer } from '../helpers/server';

// The job record through the pages only: a supervisor (operator + approver) opens a job from the
// board, from deviations and from review by exception, and sees every step's values against their limits, the
// operator's comment, the photo (through the authenticated file URL) and both times of the record — captured on the
// device and received by the server. A publisher + approver (who got "Page not found" before) reads it too; a job
// that is not there says so. The job's hand-offs (Olga to Otto, declined, with a note) show in their place and in the
// history. Every width, English and German, with axe-core and screenshots (test-output/app/jobs-record-*.png).

let browser: Browser;
let wip: TestServer;
let team: AppTeam;
let templateId = 0;
let supervisor: { email: string; password: string };
let reader: { email: string; password: string };

const CONTENT = {
  sections: [
    {
      id: 'main',
      title: 'Pump',
      steps: [
        {
          id: 'pressure',
          title: 'Inlet pressure',
          fields: [
            { key: 'p_in', label: 'Inlet pressure', type: 'NUMBER', unit: 'bar', min: 0.5, max: 2 },
            { key: 'gauge', label: 'Gauge photo', type: 'PHOTO' },
          ],
        },
        { id: 'close', title: 'Close the cover', fields: [] },
      ],
    },
  ],
};

const COMMENT = 'Gauge reads high, re-tested twice';

const HAND_OFF_NOTE = 'Shift ends, pump still warm';

interface MadeJob {
  id: number;
  title: string;
  capturedAt: string;
  receivedAt: string;
  handOff: { createdAt: string; decidedAt: string };
}

/** A running job: p_in 2.6 bar (out of limits, commented), a photo, captured on the device 50 s before it reached the server. */
async function runningJob(title: string): Promise<MadeJob> {
  const operator = team.operators[0];
  const job = await createJob(wip, team.supervisor.token, { templateId, title, assigneeIds: [operator.id] });
  const photo = await upload(wip, operator.token, [{ name: 'gauge.png', data: solidPng(64, 48, [20, 160, 20]) }]);
  assert.is(photo.status, 201, photo.text);
  wip.clock.advance(60_000);
  const recorded = await gql(wip, operator.token, 'mutation($i: RecordStepInput!) { recordStep(input: $i) { revision } }', {
    i: {
      jobId: `Job:${job.id}`,
      stepId: 'pressure',
      status: 'DONE',
      values: [
        { key: 'p_in', value: 2.6 },
        { key: 'gauge', value: [photo.body.data.files[0].id] },
      ],
      comment: COMMENT,
      // by the server's clock (a test server's stands still unless moved): captured 10 s after the job was created,
      // received 50 s later — the machine's own clock would make it "in the future" on a slow run
      capturedAt: new Date(wip.clock.now().getTime() - 50_000).toISOString(),
    },
  });
  assert.equal(recorded.codes, [], JSON.stringify(recorded.errors));
  const read = await gql(wip, operator.token, 'query($id: ID!) { job(id: $id) { records { capturedAt receivedAt } } }', {
    id: `Job:${job.id}`,
  });
  const [{ capturedAt, receivedAt }] = read.data.job.records;
  // Olga hands the job to Otto, who declines: the job stays Olga's
  const work = (token: string, body: Record<string, unknown>) => wip.request('POST', '/api/client/workingTogether', { token, body });
  const offered = await work(operator.token, { action: 'HAND_OFF', jobId: job.id, toUserId: team.operators[1].id, note: HAND_OFF_NOTE });
  assert.is(offered.status, 200, offered.text);
  const declined = await work(team.operators[1].token, { action: 'DECLINE', jobId: job.id, handOffId: offered.body.data.handOff.id });
  assert.is(declined.status, 200, declined.text);
  const { createdAt, decidedAt } = declined.body.data.handOff;
  return { id: job.id, title, capturedAt, receivedAt, handOff: { createdAt, decidedAt } };
}

async function complete(job: MadeJob): Promise<void> {
  const done = await gql(wip, team.operators[0].token, 'mutation($i: JobTransitionInput!) { completeJob(input: $i) { revision } }', {
    i: { jobId: `Job:${job.id}` },
  });
  assert.equal(done.codes, [], JSON.stringify(done.errors));
}

/** The time as the page writes it: to the second, in the page's language and the browser's time zone. */
function shownTime(page: Page, iso: string): Promise<string> {
  return page.evaluate<string>(
    `new Intl.DateTimeFormat(document.documentElement.lang, { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(${JSON.stringify(iso)}))`,
  );
}

/** A date with its time to the minute, as the page's lists write it (formatDate). */
function shownDate(page: Page, iso: string): Promise<string> {
  return page.evaluate<string>(
    `new Intl.DateTimeFormat(document.documentElement.lang, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(${JSON.stringify(iso)}))`,
  );
}

/** The record page of `job` is open: its values, comment, photo and both times are there. */
async function seesRecord(page: Page, job: MadeJob, language: 'en' | 'de' = 'en'): Promise<void> {
  await page.waitForURL(`${wip.url}/app/jobs/${job.id}/record`);
  await page.getByRole('heading', { level: 1, name: job.title }).waitFor();
  await waitForPage(page);
  const step = page.getByRole('region', { name: language === 'en' ? 'Step 1: Inlet pressure' : 'Schritt 1: Inlet pressure' });
  const text = (await step.textContent()) ?? '';
  assert.match(text, language === 'en' ? '2.6 bar' : '2,6 bar');
  assert.match(text, language === 'en' ? 'Outside the limits' : 'Außerhalb der Grenzwerte');
  assert.match(text, language === 'en' ? '0.5–2 bar' : '0,5–2 bar');
  assert.match(text, COMMENT);
  assert.match(text, `${language === 'en' ? 'Captured on the device' : 'Erfasst auf dem Gerät'}${await shownTime(page, job.capturedAt)}`);
  assert.match(text, `${language === 'en' ? 'Received by the server' : 'Beim Server eingegangen'}${await shownTime(page, job.receivedAt)}`);
  assert.not.equal(await shownTime(page, job.capturedAt), await shownTime(page, job.receivedAt), 'two different times');
  // the hand-off, in its place and in the history, its times in the page's language
  const handOffs = page.getByRole('region', { name: language === 'en' ? 'Hand-offs (1)' : 'Übergaben (1)' });
  const handOffText = (await handOffs.textContent()) ?? '';
  assert.match(
    handOffText,
    language === 'en'
      ? 'Declined Olga Operator handed the job to Otto Operator'
      : 'Abgelehnt Olga Operator hat den Auftrag an Otto Operator übergeben',
    handOffText,
  );
  assert.match(handOffText, HAND_OFF_NOTE);
  assert.match(handOffText, await shownDate(page, job.handOff.createdAt));
  const history = (await page.locator('ol.record-history').textContent()) ?? '';
  assert.match(
    history,
    `${await shownTime(page, job.handOff.createdAt)} ${language === 'en' ? 'Olga Operator handed the job to Otto Operator' : 'Olga Operator hat den Auftrag an Otto Operator übergeben'}`,
  );
  assert.match(
    history,
    `${await shownTime(page, job.handOff.decidedAt)} ${language === 'en' ? 'Otto Operator declined the hand-off from Olga Operator' : 'Otto Operator hat die Übergabe von Olga Operator abgelehnt'}`,
  );
  // the photo's bytes came through the user's session (the authenticated file URL)
  const photo = step.getByRole('img', { name: /gauge\.png/ });
  await photo.waitFor();
  // polled through DevTools (waitInPage): the app's CSP refuses the eval() that page.waitForFunction would run
  await waitInPage(page, `[...document.querySelectorAll('img[alt*="gauge.png"]')].some((img) => img.complete && img.naturalWidth === 64)`);
}

const test = suite('the job record in the floor app');
test.before(async () => {
  browser = await launchChromium();
  ({ wip, team } = await startAppServer({ clientName: 'Acme Pumps' }));
  ({ templateId } = await publishedTemplate(wip, team.client, CONTENT, 'Pump pressure'));
  supervisor = await buildUser(wip, team.client, { roles: ['operator', 'approver'] });
  reader = await buildUser(wip, team.client, { roles: ['publisher', 'approver'] });
});
test.after(async () => {
  await browser?.close();
  await wip?.stop();
});

test('a supervisor opens the job from the board, from deviations and from review by exception', async () => {
  const job = await runningJob('Pump 7 pressure');
  const page = await openApp(browser, wip, supervisor, { width: 820, path: '/app/board' });
  await page.getByRole('link', { name: job.title }).click();
  await seesRecord(page, job);
  await checkPage(page, 'jobs', 'record-from-board', 820);

  await page.goto(`${wip.url}/app/deviations`);
  await waitForPage(page);
  await page.locator('table').getByRole('link', { name: job.title }).first().click();
  await seesRecord(page, job);

  await complete(job);
  await page.goto(`${wip.url}/app/exceptions`);
  await waitForPage(page);
  await page.getByRole('link', { name: `Open the record of “${job.title}”` }).click();
  await seesRecord(page, job);
  await page.context().close();
});

test('a publisher + approver reads the record too; a job that is not there says so', async () => {
  const job = await runningJob('Compressor 3 pressure');
  const page = await openApp(browser, wip, reader, { width: 820, path: `/app/jobs/${job.id}/record` });
  await seesRecord(page, job);
  // the operator who ran it reaches the same record from their job page
  const own = await openApp(browser, wip, team.operators[0], { width: 390, path: `/app/jobs/${job.id}` });
  await own.getByRole('link', { name: 'Open the job record' }).click();
  await seesRecord(own, job);
  await own.context().close();
  await page.goto(`${wip.url}/app/jobs/999999/record`);
  await page.getByText("There is no such job, or it is not one of your organisation's.").waitFor();
  await checkPage(page, 'jobs', 'record-not-found', 820);
  await page.context().close();
});

const GERMAN = 'de';
for (const width of APP_WIDTHS) {
  test(`the job record at ${width} px, English and German: axe, no horizontal scrolling, touch targets, screenshots`, async () => {
    const job = await runningJob(`Inspection at ${width}`);
    const page = await openApp(browser, wip, supervisor, { width, path: `/app/jobs/${job.id}/record` });
    await seesRecord(page, job);
    await checkPage(page, 'jobs', 'record-en', width);
    assert.equal(await smallTargets(page), [], `record at ${width}`);
    await page.locator('label.language select').selectOption(GERMAN);
    await page.locator(`html[lang="${GERMAN}"]`).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Verlauf' }).waitFor();
    await seesRecord(page, job, GERMAN);
    await checkPage(page, 'jobs', 'record-de', width);
    // back to English for the next test (the choice is the user's, saved on the server)
    await page.locator('label.language select').selectOption('en');
    await page.locator('html[lang="en"]').waitFor();
    await page.getByRole('heading', { level: 2, name: 'History' }).waitFor();
    await page.context().close();
  });
}

test.run();
