import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { checkPage, openApp, startAppServer, waitForPage, type AppTeam } from '../helpers/app-browser';
import { createJob, publishedTemplate } from '../helpers/domain';
import { gql } from '../helpers/graphql';
import type { TestServer } from '../helpers/server';

// Language and numbers, through the German pages only: an operator types "2,5" and the server gets
// 2.5 (not 25), "1.234" is refused as ambiguous; counts are plurals ("1 offener Auftrag", "2 offene Aufträge");
// a change the server refuses (the job was cancelled meanwhile) is told in German, not in the server's English;
// the job record, the board and review by exception show numbers with a comma, limits "0,5–2 bar", dates
// dd.mm.yyyy with a 24-hour time. Each page is checked with axe-core (test-output/app/language-*.png).

let browser: Browser;
let wip: TestServer;
let team: AppTeam;
let templateId = 0;
/** the job the operator completes in the first test: 2.5 bar out of limits, one deviation to acknowledge */
let done: { databaseId: number; title: string } | undefined;

const CONTENT = {
  sections: [
    {
      id: 'main',
      title: 'Pumpe',
      steps: [
        {
          id: 'pressure',
          title: 'Eingangsdruck messen',
          fields: [{ key: 'p_in', label: 'Eingangsdruck', type: 'NUMBER', unit: 'bar', min: 0.5, max: 2 }],
        },
        { id: 'seal', title: 'Dichtung prüfen', fields: [{ key: 'seal', label: 'Dichtung', type: 'PASS_FAIL' }] },
      ],
    },
  ],
};

/** a due date whose day is the same in any time zone within ±11 h */
const DUE = '2031-03-04T12:06:00.000Z';

/** What the server says in English, which a German page never shows (src/policies/transitions.ts, src/services/jobs.ts …). */
const ENGLISH_SERVER_TEXT =
  /Cannot \w+ in state|is not qualified|The job is [A-Z]|Validation failed|Request failed|outside -?[\d.]+\.\.|Insufficient permissions/;

const test = suite('the German pages');

test.before(async () => {
  ({ wip, team } = await startAppServer());
  browser = await launchChromium();
  templateId = (await publishedTemplate(wip, team.client, CONTENT, 'Pumpenprüfung')).templateId;
});

test.after(async () => {
  await browser?.close();
  await wip?.stop();
});

/** Switches the signed-in user's language to German with the shell's own control (saved on the server for them). */
async function inGerman(page: Page): Promise<void> {
  await page.locator('label.language select').selectOption('de');
  await page.locator('html[lang="de"]').waitFor();
  await waitForPage(page);
}

async function bodyText(page: Page): Promise<string> {
  return (await page.locator('body').innerText()).replace(/\s+/g, ' ');
}

async function serverJob(id: number): Promise<{ state: string; records: { stepId: string; values: { key: string; value: unknown }[] }[] }> {
  const read = await gql(
    wip,
    team.client.owner.token,
    'query($id: ID!) { job(id: $id) { state records { stepId values { key value } } } }',
    {
      id: `Job:${id}`,
    },
  );
  assert.equal(read.codes, [], JSON.stringify(read.errors));
  return read.data.job;
}

test('an operator types numbers the German way, reads plurals, and a refusal in German', async () => {
  const operator = team.operators[0];
  const first = await createJob(wip, team.supervisor.token, { templateId, title: 'Pumpe 7', assigneeIds: [operator.id], dueAt: DUE });
  const page = await openApp(browser, wip, operator, { width: 390 });
  await inGerman(page);
  await page.getByText('1 offener Auftrag ist Ihnen zugewiesen').waitFor();
  const second = await createJob(wip, team.supervisor.token, { templateId, title: 'Pumpe 8', assigneeIds: [operator.id] });
  await page.reload();
  await waitForPage(page);
  await page.getByText('2 offene Aufträge sind Ihnen zugewiesen').waitFor();

  // ── the run page: limits with a comma, "1.234" refused as ambiguous, "2,5" is 2.5 ───────────────────────────
  await page.goto(`${wip.url}/app/jobs/${first.id}/run`);
  await page.getByRole('heading', { name: 'Eingangsdruck messen' }).waitFor();
  await page.getByText('Grenzwerte: 0,5–2 bar').waitFor();
  const pressure = page.getByRole('textbox', { name: 'Eingangsdruck' });
  await pressure.fill('1.234');
  await page.getByText('Die Zahl bitte ohne Tausendertrennzeichen eingeben, z. B. 2,5.').waitFor();
  await pressure.fill('2,5');
  await page.getByText('Außerhalb der Grenzwerte (0,5–2 bar): Der Wert wird erfasst und markiert.').waitFor();
  assert.is(await page.getByText('ohne Tausendertrennzeichen').count(), 0, 'the ambiguity is gone once the number is clear');
  await page.getByRole('textbox', { name: 'Kommentar' }).fill('Manometer zeigt zu hoch, zweimal nachgemessen');
  await checkPage(page, 'language', 'run-de', 390);
  await page.getByRole('button', { name: 'Speichern und weiter' }).click();
  await page.getByRole('heading', { name: 'Dichtung prüfen' }).waitFor();
  await page.getByRole('radio', { name: 'i. O.', exact: true }).check();
  await page.getByRole('button', { name: 'Speichern und prüfen' }).click();
  await page.locator('.out-of-limits', { hasText: 'Eingangsdruck 2,5 bar' }).waitFor();
  await page.locator('[data-sync="online"][data-waiting="0"]').waitFor({ timeout: 30_000 });
  const recorded = (await serverJob(first.id)).records.flatMap((r) => r.values).find((v) => v.key === 'p_in');
  assert.is(recorded?.value, 2.5, 'the server got 2.5, not 25');
  await checkPage(page, 'language', 'review-before-complete-de', 390);
  await page.getByRole('button', { name: 'Auftrag abschließen' }).click();
  await page
    .locator('.badge', { hasText: /^Abgeschlossen$/ })
    .first()
    .waitFor({ timeout: 30_000 });
  done = { databaseId: first.id, title: 'Pumpe 7' };

  // ── a change the server refuses: the job was cancelled meanwhile ──────────────────────────────────────────
  await page.goto(`${wip.url}/app/jobs/${second.id}/run`);
  await page.getByRole('heading', { name: 'Eingangsdruck messen' }).waitFor();
  // the Security Administrator cancels it (a supervisor works only on jobs they are on)
  const cancelled = await gql(wip, team.client.owner.token, 'mutation($i: CancelJobInput!) { cancelJob(input: $i) { job { state } } }', {
    i: { jobId: `Job:${second.id}`, reason: 'Pumpe ausgebaut' },
  });
  assert.equal(cancelled.codes, [], JSON.stringify(cancelled.errors));
  await page.getByRole('textbox', { name: 'Eingangsdruck' }).fill('1,5');
  await page.getByRole('button', { name: 'Speichern und weiter' }).click();
  const refusal = page.getByRole('status').getByText(/^Der Server hat eine Änderung abgelehnt: /);
  await refusal.first().waitFor({ timeout: 30_000 });
  const said = (await refusal.first().textContent()) ?? '';
  assert.match(said, 'Der Auftrag ist abgeschlossen („Abgebrochen“): Es kann nichts mehr erfasst werden.', said);
  const text = await bodyText(page);
  assert.not.match(text, ENGLISH_SERVER_TEXT, text);
  assert.is((await serverJob(second.id)).records.length, 0, 'nothing recorded on the cancelled job');
  await page.context().close();
});

test('the job record, the board and review by exception in German: comma, dd.mm.yyyy, 24 h, plurals', async () => {
  if (!done) throw new Error('the first test completes the job this one reads');
  await createJob(wip, team.supervisor.token, { templateId, title: 'Pumpe 9', assigneeIds: [team.operators[1].id], dueAt: DUE });

  const page = await openApp(browser, wip, team.supervisor, { width: 1280, path: `/app/jobs/${done.databaseId}/record` });
  await inGerman(page);
  await page.getByRole('heading', { level: 1, name: done.title }).waitFor();
  let text = await bodyText(page);
  assert.match(text, '2,5 bar');
  assert.match(text, '0,5–2 bar');
  assert.match(text, '2,5 bar (außerhalb 0,5–2 bar)', text);
  assert.match(text, /\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}:\d{2}/, 'record times dd.mm.yyyy, hh:mm:ss');
  assert.not.match(text, /\b(AM|PM)\b/);
  assert.not.match(text, ENGLISH_SERVER_TEXT, text);
  await checkPage(page, 'language', 'record-de', 1280);

  await page.goto(`${wip.url}/app/board`);
  await waitForPage(page);
  await page.getByRole('link', { name: 'Pumpe 9' }).waitFor();
  text = await bodyText(page);
  assert.match(text, /Fällig 04\.03\.2031, \d{2}:06/, text);
  assert.not.match(text, ENGLISH_SERVER_TEXT, text);
  await checkPage(page, 'language', 'board-de', 1280);
  await page.context().close();

  // review by exception: the approver reads the deviation with German numbers
  const review = await openApp(browser, wip, team.approver, { width: 820, path: '/app/exceptions' });
  await inGerman(review);
  await review.getByRole('heading', { level: 1, name: 'Prüfung nach Ausnahmen' }).waitFor();
  await review.getByText('p_in = 2,5 bar (außerhalb 0,5–2 bar)').waitFor();
  text = await bodyText(review);
  assert.match(text, '1 Abweichung, 1 zu quittieren.');
  assert.match(text, /\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}/);
  assert.not.match(text, ENGLISH_SERVER_TEXT, text);
  await checkPage(review, 'language', 'exceptions-de', 820);
  // acknowledged, then a wrong password: the refusal (an API error) is the app's German text, not the server's
  await review.getByRole('textbox', { name: 'Ihr Kommentar' }).fill('Manometer getauscht');
  await review.getByRole('button', { name: 'Quittieren' }).click();
  await review.getByText('1 Abweichung, 0 zu quittieren.').waitFor();
  await review.getByRole('button', { name: 'Auftrag prüfen' }).click();
  const dialog = review.getByRole('dialog', { name: 'Prüfung unterschreiben' });
  await dialog.getByLabel(/^Passwort/).fill('nicht-mein-passwort');
  await dialog.getByRole('button', { name: 'Als geprüft unterschreiben' }).click();
  await dialog.getByRole('alert').getByText('Nicht unterschrieben: Passwort oder Code ist falsch.').waitFor();
  text = await bodyText(review);
  assert.not.match(text, ENGLISH_SERVER_TEXT, text);
  assert.not.match(text, /Invalid password|E-Mail-Adresse oder Passwort/, "neither the server's English nor its generic German");
  await checkPage(review, 'language', 'exceptions-sign-de', 820);
  await review.context().close();
});

test.run();
