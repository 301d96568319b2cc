import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { checkPage, openApp, startAppServer, waitForPage, type AppTeam } from '../helpers/app-browser';
import type { TestServer } from '../helpers/server';
import { gql, gid } from '../helpers/graphql';
import { createJob, publishedTemplate } from '../helpers/domain';
import { listAuditEntries } from '#repos/audit';
import { tenantScope } from '#db/tenant';

/**
 * Two operators record the same step, one of them offline: when the offline one's device syncs, the
 * conflict is shown with both records, and the operator resolves it — "keep mine" on one step, "keep theirs" on
 * another. Nothing is lost silently: the record set aside stays in the audit trail (keep mine) or on the device
 * with the decision (keep theirs). Through the pages only (the job itself is the supervisor's, made by the API).
 */
let wip: TestServer;
let team: AppTeam;
let browser: Browser;
const conflict = suite('floor app: two operators record the same step, one offline');
conflict.before(async () => {
  ({ wip, team } = await startAppServer());
  browser = await launchChromium();
});
conflict.after(async () => {
  await browser?.close();
  await wip?.stop();
});

const JOB = 'query($id: ID!) { job(id: $id) { revision records { stepId recordedBy { databaseId } values { key value } } } }';

/** Records the step shown (its one field) and saves. */
async function recordStep(page: Page, jobId: number, step: number, fill: (page: Page) => Promise<void>): Promise<void> {
  await page.goto(`${wip.url}/app/jobs/${jobId}/run?step=${step}`).catch(() => undefined);
  await waitForPage(page);
  await fill(page);
  await page.getByRole('button', { name: /Save and (next|review)/ }).click();
  await page
    .locator('.step-form')
    .waitFor({ state: 'detached' })
    .catch(() => undefined);
}

conflict('the offline operator sees both records and decides: keep mine on one step, keep theirs on another', async () => {
  const [olga, otto] = team.operators;
  const { templateId } = await publishedTemplate(wip, team.client);
  const job = await createJob(wip, team.client.owner.token, { templateId, title: 'Shared pump check', assigneeIds: [olga.id, otto.id] });

  // Olga opens the job online (it is now on her tablet), then loses the network
  const olgaPage = await openApp(browser, wip, olga, { width: 820, path: `/app/jobs/${job.id}` });
  await olgaPage.getByText('Available offline on this device').waitFor();
  await olgaPage.evaluate('navigator.serviceWorker.ready.then(() => true)');
  await olgaPage.context().setOffline(true);
  await recordStep(olgaPage, job.id, 1, (p) => p.getByRole('textbox', { name: 'Torque' }).fill('18'));
  await recordStep(olgaPage, job.id, 2, async (p) => {
    await p.getByRole('radio', { name: 'Fail' }).check();
    // a failed check is explained at the step (the server would refuse to complete the job otherwise)
    await p.getByRole('textbox', { name: 'Comment' }).fill('Seal cracked');
  });
  await olgaPage.locator('[data-sync][data-waiting="2"]').waitFor();

  // meanwhile Otto, online on his phone, records the same two steps
  const ottoPage = await openApp(browser, wip, otto, { width: 390, path: `/app/jobs/${job.id}` });
  await recordStep(ottoPage, job.id, 1, (p) => p.getByRole('textbox', { name: 'Torque' }).fill('12'));
  await recordStep(ottoPage, job.id, 2, (p) => p.getByRole('radio', { name: 'Pass' }).check());
  await ottoPage.locator('[data-sync="online"][data-waiting="0"]').waitFor();
  let server = (await gql(wip, team.client.owner.token, JOB, { id: gid('Job', job.id) })).data.job;
  assert.equal(
    server.records.map((r: any) => [r.stepId, r.values[0].value, r.recordedBy.databaseId]),
    [
      ['measure', 12, otto.id],
      ['check', 'PASS', otto.id],
    ],
  );

  // Olga's network returns: both her records conflict; neither is sent, neither is dropped
  await olgaPage.goto(`${wip.url}/app/jobs/${job.id}`).catch(() => undefined);
  await olgaPage.context().setOffline(false);
  await olgaPage.locator('[data-sync="conflict"]', { hasText: 'need your decision' }).waitFor({ timeout: 20_000 });
  await olgaPage.getByRole('heading', { name: 'Needs your decision' }).waitFor();
  const measure = olgaPage.locator('.conflict', { hasText: 'Recording of step Measure the torque' });
  await measure.locator('[data-side="mine"]', { hasText: '18 Nm' }).waitFor();
  await measure.locator('[data-side="theirs"]', { hasText: '12 Nm' }).waitFor();
  assert.match(await measure.locator('[data-side="theirs"] h4').innerText(), /Otto Operator/);
  const check = olgaPage.locator('.conflict', { hasText: 'Recording of step Check the seal' });
  await check.locator('[data-side="mine"]', { hasText: 'Fail' }).waitFor();
  await check.locator('[data-side="theirs"]', { hasText: 'Pass' }).waitFor();
  for (const width of [390, 1280, 820]) {
    await olgaPage.setViewportSize({ width, height: 900 });
    await checkPage(olgaPage, 'operator', 'conflict', width);
  }
  server = (await gql(wip, team.client.owner.token, JOB, { id: gid('Job', job.id) })).data.job;
  assert.is(server.revision, 3, "Otto's two records only: nothing of Olga's was written over them");

  // keep mine on the torque, keep theirs on the seal
  await measure.getByRole('button', { name: 'Keep mine' }).click();
  await check.getByRole('button', { name: 'Keep theirs' }).click();
  await olgaPage.locator('[data-sync="online"][data-waiting="0"]').waitFor({ timeout: 20_000 });
  // the panel follows the queue a moment after the indicator does (each reads it on its own)
  await olgaPage.locator('.conflict').first().waitFor({ state: 'detached', timeout: 10_000 });

  server = (await gql(wip, team.client.owner.token, JOB, { id: gid('Job', job.id) })).data.job;
  const byStep = Object.fromEntries(server.records.map((r: any) => [r.stepId, [r.values[0].value, r.recordedBy.databaseId]]));
  assert.equal(byStep, { measure: [18, olga.id], check: ['PASS', otto.id] });
  const entries = await listAuditEntries(
    wip.deps.db.kysely,
    tenantScope(team.client.id),
    { entityType: 'job', entityId: String(job.id) },
    { limit: 50 },
  );
  assert.is(
    entries.items.filter((e) => e.action === 'job.step_recorded').length,
    3,
    "Otto's two and Olga's torque: Otto's torque stays in the history",
  );
  // Olga's seal record, set aside by her decision, is kept on her device with the decision
  const kept = await olgaPage.evaluate<{ decision: string; values: unknown }[]>(`new Promise((resolve, reject) => {
    const open = indexedDB.open('wip-offline');
    open.onsuccess = () => {
      const read = open.result.transaction('resolutions').objectStore('resolutions').getAll();
      read.onsuccess = () => resolve(read.result.map((r) => ({ decision: r.decision, values: r.item.values })));
      read.onerror = () => reject(read.error);
    };
    open.onerror = () => reject(open.error);
  })`);
  assert.equal(kept.map((k) => k.decision).sort(), ['mine', 'theirs']);
  assert.equal(kept.find((k) => k.decision === 'theirs')!.values, [{ key: 'sealOk', value: 'FAIL' }]);
  await olgaPage.context().close();
  await ottoPage.context().close();
});

conflict.run();
