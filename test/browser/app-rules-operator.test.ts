import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { APP_WIDTHS, checkPage, openApp, startAppServer, waitForPage, type AppTeam } from '../helpers/app-browser';
import type { TestServer } from '../helpers/server';
import { gql, gid } from '../helpers/graphql';
import { createJob, publishedTemplate } from '../helpers/domain';
import { buildUser } from '../helpers/factories';

/**
 * The execution rules on the operator's and the verifier's pages, through the pages only: a step a
 * condition takes out is shown as not applying with the reason (and re-evaluated on the device as values change,
 * offline too); a CALCULATED field computed live with its unit and limits; a step's sign-off — performed by the
 * operator with a password (a wrong one refused in plain words), verified by another person in their own session,
 * found on their "To verify" list; the verifier who recorded the step refused (separation of duties); signing
 * offline refused with a clear message; completing with a sign-off gone missing meanwhile refused in plain words
 * with the step linked.
 */
let wip: TestServer;
let team: AppTeam;
let browser: Browser;
const rules = suite('floor app: execution rules on the operator and verifier pages');
rules.before(async () => {
  ({ wip, team } = await startAppServer());
  browser = await launchChromium();
});
rules.after(async () => {
  await browser?.close();
  await wip?.stop();
});

/** The guide's example (docs/execution-rules.md): a branch on the seal check, a calculated pressure drop, a signed step. */
const CONTENT = {
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
          fields: [{ key: 'part', label: 'Part used', type: 'TEXT', required: true }],
        },
        {
          id: 'pressure',
          title: 'Pressure test',
          signoff: { performer: true, verifier: { roles: ['approver'] } },
          fields: [
            { key: 'p_in', label: 'Inlet pressure', type: 'NUMBER', unit: 'bar', required: true },
            { key: 'p_out', label: 'Outlet pressure', type: 'NUMBER', unit: 'bar', required: true },
            {
              key: 'drop',
              label: 'Pressure drop',
              type: 'CALCULATED',
              expression: 'round(p_out - p_in, 1)',
              unit: 'bar',
              min: -0.5,
              max: 0.5,
            },
          ],
        },
      ],
    },
    {
      id: 'leak',
      title: 'After a leak',
      when: {
        any: [
          { step: 'pressure', field: 'drop', op: 'outOfLimits' },
          { step: 'seal', status: 'FAILED' },
        ],
      },
      steps: [{ id: 'report', title: 'Report the leak', fields: [{ key: 'note', label: 'What leaked', type: 'TEXT', required: true }] }],
    },
  ],
};

const JOB = `query($id: ID!) { job(id: $id) { state revision steps { stepId applies } records { stepId status values { key value outOfLimits } }
  signoffs { stepId meaning signerName invalidatedAt } } }`;

async function serverJob(jobId: number): Promise<any> {
  return (await gql(wip, team.client.owner.token, JOB, { id: gid('Job', jobId) })).data.job;
}

async function goToStep(page: Page, jobId: number, step: number | 'review'): Promise<void> {
  await page.goto(`${wip.url}/app/jobs/${jobId}/run?step=${step}`).catch(() => undefined);
  await waitForPage(page);
}

async function save(page: Page): Promise<void> {
  await page.getByRole('button', { name: /Save and (next|review)/ }).click();
}

async function signInDialog(page: Page, button: string, password: string): Promise<void> {
  await page.getByRole('button', { name: button }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Your password').fill(password);
  await dialog.getByRole('button', { name: 'Sign', exact: true }).click();
}

rules('conditions, a calculated field, sign-offs by performer and verifier, refusals in plain words', async () => {
  const [olga] = team.operators;
  // Quinn runs jobs and may verify: the one who recorded a step is refused as its verifier
  const quinn = await buildUser(wip, team.client, { roles: ['operator', 'approver'] });
  const { templateId } = await publishedTemplate(wip, team.client, CONTENT, 'Seal and pressure');
  const job = await createJob(wip, team.client.owner.token, { templateId, title: 'Pump 7 seal check', assigneeIds: [olga.id, quinn.id] });
  const page = await openApp(browser, wip, olga, { width: 820, path: `/app/jobs/${job.id}` });
  await page.getByText('Available offline on this device').waitFor();
  await page.evaluate('navigator.serviceWorker.ready.then(() => true)');

  // the seal passes: "Replace the seal" does not apply — saving step 1 goes on to the pressure test
  await goToStep(page, job.id, 1);
  await page.getByRole('radio', { name: 'Pass' }).check();
  await save(page);
  await page.getByRole('heading', { name: 'Pressure test' }).waitFor();

  // the skipped step says why, and asks for nothing
  await goToStep(page, job.id, 2);
  await page.getByText('This step does not apply.').waitFor();
  assert.match(await page.locator('.step-not-applying .notice').innerText(), /applies only when “Check the seal” · Seal intact is Fail/);
  assert.is(await page.getByRole('textbox', { name: 'Part used' }).count(), 0, 'nothing to record on a step that does not apply');
  for (const width of APP_WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await checkPage(page, 'rules', 'operator-not-applying', width);
  }
  await page.setViewportSize({ width: 820, height: 900 });

  // the calculated drop, live: 3.0 − 2.0 = 1 bar, outside −0.5…0.5, flagged in words
  await goToStep(page, job.id, 3);
  await page.getByRole('textbox', { name: 'Inlet pressure' }).fill('2');
  await page.getByRole('textbox', { name: 'Outlet pressure' }).fill('3.04');
  const drop = page.locator('.calculated-field[data-key="drop"]');
  await drop.locator('output', { hasText: '1 bar' }).waitFor();
  assert.match(await drop.innerText(), /Outside the limits \(-0.5–0.5 bar\)/);
  // what it is computed from, by the labels the operator sees: never the formula's keys
  assert.match(await drop.innerText(), /Computed from: Outlet pressure, Inlet pressure/);
  assert.not.match(await drop.innerText(), /p_out|round\(/);
  // signing before the record reached the server: not offered
  assert.match(await page.locator('.signoff-panel').innerText(), /Record the step first/);
  for (const width of APP_WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await checkPage(page, 'rules', 'operator-calculated', width);
  }
  await page.setViewportSize({ width: 820, height: 900 });
  // a value out of limits is explained at the step: the comment is asked for before the step saves
  await save(page);
  await page.getByText('Explain in a comment why the value is outside its limits', { exact: false }).waitFor();
  await page.getByRole('textbox', { name: 'Comment' }).fill('Drop expected until the new seal settles');
  await save(page);
  // the step asks for a sign-off: saving stays on it, says so, and opens the sign dialog once the record reached the
  // server; Olga signs later
  await page.locator('.signoff-still-needed', { hasText: 'still missing your signature as performer' }).waitFor();
  await page.getByRole('dialog').getByLabel('Your password').waitFor();
  await page.keyboard.press('Escape');
  await page.getByRole('dialog').waitFor({ state: 'hidden' });
  await page.getByRole('button', { name: 'Next step, sign later' }).click();
  // the drop is out of limits: the leak section opens
  await page.getByRole('heading', { name: 'Report the leak' }).waitFor();
  await page.locator('[data-sync="online"][data-waiting="0"]').waitFor();
  let server = await serverJob(job.id);
  assert.equal(
    server.records.find((r: any) => r.stepId === 'pressure').values.find((v: any) => v.key === 'drop'),
    { key: 'drop', value: 1, outOfLimits: true },
    'the server computed the same',
  );
  assert.equal(
    server.steps.map((s: any) => s.applies),
    [true, false, true, true],
  );

  // offline, the seal now fails: "Replace the seal" applies at once, evaluated on the device
  await page.context().setOffline(true);
  await goToStep(page, job.id, 1);
  await page.getByRole('radio', { name: 'Fail' }).check();
  // a FAILED step carries its comment (a job completes only with one: COMMENT_REQUIRED, a deviation)
  await page.getByRole('textbox', { name: 'Comment' }).fill('Seal cracked at the flange');
  await save(page);
  await page.getByRole('textbox', { name: 'Part used' }).fill('Seal kit 12');
  await save(page);
  await page.getByRole('heading', { name: 'Pressure test' }).waitFor();
  await goToStep(page, job.id, 4);
  await page.getByRole('textbox', { name: 'What leaked' }).fill('Drops at the outlet flange');
  await save(page);
  await goToStep(page, job.id, 3);
  // signing is online only, and says so
  assert.match(await page.locator('.signoff-panel').innerText(), /Signing needs a connection to the server/);
  assert.is(await page.getByRole('button', { name: 'Sign as performer' }).count(), 0);
  await page.context().setOffline(false);
  await page.locator('[data-sync="online"][data-waiting="0"]').waitFor();
  server = await serverJob(job.id);
  assert.equal(
    server.steps.map((s: any) => s.applies),
    [true, true, true, true],
    'the server agrees once synced',
  );

  // performer's signature: a wrong password refused in plain words, the right one signs
  await goToStep(page, job.id, 3);
  await signInDialog(page, 'Sign as performer', 'not-the-password');
  await page.getByRole('dialog').getByText('The password or code is wrong. Nothing was signed.').waitFor();
  // the step's signature in the app's one e-signature dialog: what is signed, by whom, the meaning, the refusal
  assert.match(await page.getByRole('dialog').innerText(), /Signer\s+Olga Operator \(/);
  await checkPage(page, 'rules', 'operator-sign-refused', 820);
  await page.getByRole('dialog').getByLabel('Your password').fill(olga.password);
  await page.getByRole('dialog').getByRole('button', { name: 'Sign', exact: true }).click();
  await page.locator('.signoff-list li[data-meaning="PERFORMED"]', { hasText: 'Olga Operator' }).waitFor();
  assert.is(await page.getByRole('button', { name: 'Sign as verifier' }).count(), 0, 'an operator holds no verifier role');

  // the review: the verifier's signature is missing, the step linked, completing not offered yet
  await goToStep(page, job.id, 'review');
  const unsigned = page.locator('.review-unsigned');
  await unsigned.getByText("needs a verifier's signature").waitFor();
  assert.ok(await page.getByRole('button', { name: 'Complete job' }).isDisabled());
  await checkPage(page, 'rules', 'operator-review-unsigned', 820);

  // Alan (approver) finds the step on his "To verify" list and verifies it in his own session
  const alan = await openApp(browser, wip, team.approver, { width: 390, path: '/app/verify' });
  await alan.getByRole('heading', { name: 'Pump 7 seal check' }).waitFor();
  await checkPage(alan, 'rules', 'verify-list', 390);
  await alan.getByRole('link', { name: 'Verify Pump 7 seal check' }).click();
  await waitForPage(alan, { path: `/app/verify/${job.id}` });
  await alan.getByText('Recorded by Olga Operator', { exact: false }).waitFor();
  for (const width of APP_WIDTHS) {
    await alan.setViewportSize({ width, height: 900 });
    await checkPage(alan, 'rules', 'verify-job', width);
  }
  await signInDialog(alan, 'Sign as verifier', team.approver.password);
  await alan.locator('.signoff-list li[data-meaning="VERIFIED"]', { hasText: 'Alan Approver' }).waitFor();
  server = await serverJob(job.id);
  assert.equal(
    server.signoffs.map((s: any) => [s.stepId, s.meaning, s.signerName, s.invalidatedAt]),
    [
      ['pressure', 'PERFORMED', 'Olga Operator', null],
      ['pressure', 'VERIFIED', 'Alan Approver', null],
    ],
  );

  // back on Olga's review: the sign-offs are there (read again), she can complete — but meanwhile, while her tablet
  // is out of the Wi-Fi, the pressure step is recorded again by Quinn (through the API), which invalidates both
  // signatures: the server refuses the completion. (Online, the live stream could tell her page first and disable
  // the button before the click: the race this test once lost.)
  await goToStep(page, job.id, 'review');
  await page.locator('.review-unsigned').waitFor({ state: 'detached' });
  await page.context().setOffline(true);
  const recorded = await gql(wip, quinn.token, 'mutation($i: RecordStepInput!) { recordStep(input: $i) { revision } }', {
    i: {
      jobId: gid('Job', job.id),
      stepId: 'pressure',
      status: 'DONE',
      values: [
        { key: 'p_in', value: 2 },
        { key: 'p_out', value: 2.2 },
      ],
    },
  });
  assert.equal(recorded.codes, []);
  await page.getByRole('button', { name: 'Complete job' }).click();
  await page.context().setOffline(false);
  const refusal = page.locator('.conflicts');
  // the completion carries the revision Olga's device knew, which Quinn's recording made stale: the queue reads the
  // job again and resends before the server's real refusal comes back — several round trips, which on a loaded CI
  // machine took longer than the default 10 s once (never on a quiet one)
  await refusal
    .getByText('The job was not completed: these steps still need their sign-off.', { exact: false })
    .waitFor({ timeout: 30_000 });
  const link = refusal.getByRole('link', { name: 'Step 3: Pressure test' });
  await link.waitFor();
  await checkPage(page, 'rules', 'operator-signoff-missing', 820);
  assert.is((await serverJob(job.id)).state, 'IN_PROGRESS');
  await link.click();
  // the step is on the same page (the review is its last step): its own panel says the step is shown
  await page.locator('.signoff-panel').getByText('earlier signature', { exact: false }).waitFor();
  await waitForPage(page);

  // Quinn (operator and approver), who recorded the step last, tries to verify it: refused, in plain words
  const quinnPage = await openApp(browser, wip, quinn, { width: 820, path: `/app/verify/${job.id}` });
  await signInDialog(quinnPage, 'Sign as verifier', quinn.password);
  const said = quinnPage.getByRole('dialog').locator('.notice');
  await said.waitFor();
  assert.is(await said.innerText(), 'You recorded or signed this step yourself: another person must verify it.');
});

rules.run();
