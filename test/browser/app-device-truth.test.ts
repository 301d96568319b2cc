import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { buildAppTeam, checkPage, openApp, startAppServer, waitForPage, type AppTeam } from '../helpers/app-browser';
import type { TestServer } from '../helpers/server';
import { gql, gid } from '../helpers/graphql';
import { createJob, publishedTemplate, SAMPLE_CONTENT } from '../helpers/domain';
import path from 'node:path';
import { daemonAsServer, startDaemon, type SpawnedDaemon } from '../helpers/cli';
import { installedDataDir, ROOT, runWip } from '../helpers/spawn-wip';
import { waitFor } from '../helpers/wait';
import { listAuditEntries } from '#repos/audit';
import { tenantScope } from '#db/tenant';

/**
 * What the floor app promises about its records, through the pages only: nothing is shown as
 * done before the server confirmed it, a stale value of the same operator never silently replaces a newer one, and
 * the device never records its own write twice. Phone (390 px) and tablet (820 px) are two browser contexts of the
 * same operator.
 */
let wip: TestServer;
let team: AppTeam;
let browser: Browser;
const truth = suite('floor app: what the device shows is what the server confirmed');
truth.before(async () => {
  ({ wip, team } = await startAppServer());
  browser = await launchChromium();
});
truth.after(async () => {
  await wip?.stop();
});

const JOB = 'query($id: ID!) { job(id: $id) { state revision records { stepId recordedBy { databaseId } values { key value } } } }';
const serverJob = async (id: number) => (await gql(wip, team.client.owner.token, JOB, { id: gid('Job', id) })).data.job;
const torqueOf = (job: any) => job.records.find((r: any) => r.stepId === 'measure')?.values.find((v: any) => v.key === 'torque')?.value;

async function stepRecordings(jobId: number): Promise<number> {
  const entries = await listAuditEntries(
    wip.deps.db.kysely,
    tenantScope(team.client.id),
    { entityType: 'job', entityId: String(jobId) },
    { limit: 50 },
  );
  return entries.items.filter((e) => e.action === 'job.step_recorded').length;
}

/** Records the torque of step 1 and saves. */
async function recordTorque(page: Page, jobId: number, torque: string, next: '2' | 'review' = '2'): Promise<void> {
  await page.goto(`${wip.url}/app/jobs/${jobId}/run?step=1`).catch(() => undefined);
  await waitForPage(page);
  await page.getByRole('textbox', { name: 'Torque' }).fill(torque);
  await page.getByRole('button', { name: next === '2' ? 'Save and next' : 'Save and review' }).click();
  await page.waitForURL(`**/run?step=${next}`);
}

async function setLanguage(page: Page, language: 'en' | 'de'): Promise<void> {
  await page.locator('label.language select').selectOption(language);
  await page.locator(`html[lang="${language}"]`).waitFor();
}

truth('the same operator on two devices: the stale offline value waits for her decision, the newer one stays', async () => {
  const [olga] = team.operators;
  const { templateId } = await publishedTemplate(wip, team.client);
  const job = await createJob(wip, team.client.owner.token, { templateId, title: 'Pressure check', assigneeIds: [olga.id] });

  // the tablet opens the job online, then loses the network; Olga records 12 Nm on it
  const tablet = await openApp(browser, wip, olga, { width: 820, path: `/app/jobs/${job.id}` });
  await tablet.getByText('Available offline on this device').waitFor();
  await tablet.evaluate('navigator.serviceWorker.ready.then(() => true)');
  await tablet.context().setOffline(true);
  await recordTorque(tablet, job.id, '12');
  await tablet.locator('[data-sync][data-waiting="1"]').waitFor();

  // later, on her phone (online), she records 15 Nm: the server has it
  const phone = await openApp(browser, wip, olga, { width: 390, path: `/app/jobs/${job.id}` });
  await recordTorque(phone, job.id, '15');
  await phone.locator('[data-sync="online"][data-waiting="0"]').waitFor();
  const before = await serverJob(job.id);
  assert.is(torqueOf(before), 15);

  // the tablet comes back: no silent replacement, the decision panel with both values, who and when
  await tablet.goto(`${wip.url}/app/jobs/${job.id}`).catch(() => undefined);
  await tablet.context().setOffline(false);
  await tablet.locator('[data-sync="conflict"]').waitFor({ timeout: 20_000 });
  const panel = tablet.locator('.conflict', { hasText: 'Recording of step Measure the torque' });
  await panel.locator('[data-side="mine"]', { hasText: '12 Nm' }).waitFor();
  await panel.locator('[data-side="theirs"]', { hasText: '15 Nm' }).waitFor();
  assert.match(await panel.locator('[data-side="mine"] h4').innerText(), /^Your record on this device, /);
  assert.match(await panel.locator('[data-side="theirs"] h4').innerText(), /^Your record on another device, /);
  await panel.getByText('You recorded this step again on another device').waitFor();
  const held = await serverJob(job.id);
  assert.equal([held.revision, torqueOf(held)], [before.revision, 15], 'the server keeps the newer value until she decides');
  for (const width of [390, 820]) {
    await tablet.setViewportSize({ width, height: 900 });
    await checkPage(tablet, 'operator', 'same-user-conflict', width);
  }
  await setLanguage(tablet, 'de');
  await tablet.getByText('Ihre Erfassung auf einem anderen Gerät', { exact: false }).waitFor();
  await checkPage(tablet, 'operator', 'same-user-conflict-de', 820);
  await setLanguage(tablet, 'en');

  // she keeps the phone's value: the tablet's stays on the device, set aside, until she discards it
  await panel.getByRole('button', { name: 'Keep theirs' }).click();
  await tablet.locator('[data-sync="online"][data-waiting="0"]').waitFor({ timeout: 20_000 });
  const aside = tablet.locator('[data-state="set-aside"]', { hasText: '12 Nm' });
  await aside.waitFor();
  await checkPage(tablet, 'operator', 'set-aside', 820);
  const after = await serverJob(job.id);
  assert.equal([after.revision, torqueOf(after)], [before.revision, 15], 'keeping theirs writes nothing');
  await aside.getByRole('button', { name: 'Discard' }).click();
  await aside.waitFor({ state: 'detached' });
  assert.is(await stepRecordings(job.id), 1, "only the phone's recording reached the server");
  await tablet.context().close();
  await phone.context().close();
});

truth('the answer lost and its key forgotten: the resend meets its own record and takes it as done, once', async () => {
  const [olga] = team.operators;
  const { templateId } = await publishedTemplate(wip, team.client);
  const job = await createJob(wip, team.client.owner.token, { templateId, title: 'Lost answer', assigneeIds: [olga.id] });
  // no service worker: the test's route sees every request the page sends, bodies included
  const context = await browser.newContext({ viewport: { width: 820, height: 900 }, locale: 'en-GB', serviceWorkers: 'block' });
  const page = await openApp(browser, wip, olga, { width: 820, path: `/app/jobs/${job.id}`, context });
  await page.getByText('Available offline on this device').waitFor();
  // the first recordStep reaches the server under a key the server then forgets (as a crash between the write and
  // its answer would), and its answer never comes back: the device resends with its own key, the server runs it
  // again and answers CONFLICT — against the device's own record
  let lost = false;
  await page.route('**/api/client/graphql', async (route) => {
    const request = route.request();
    if (lost || !(request.postData() ?? '').includes('recordStep')) return route.continue();
    lost = true;
    const headers = { ...(await request.allHeaders()), 'idempotency-key': `forgotten-${Date.now()}` };
    await (await route.fetch({ headers })).body();
    await route.abort('connectionreset');
  });
  await recordTorque(page, job.id, '14');
  await page.goto(`${wip.url}/app/jobs/${job.id}`).catch(() => undefined);
  await page.locator('[data-state="confirmed"]', { hasText: 'Recording of step Measure the torque' }).waitFor({ timeout: 30_000 });
  await page.locator('[data-sync="online"][data-waiting="0"]').waitFor();
  assert.ok(lost);
  assert.is(await page.locator('.conflict').count(), 0, 'no decision asked about its own write');
  assert.is(await stepRecordings(job.id), 1, 'recorded once');
  assert.is(torqueOf(await serverJob(job.id)), 14);
  await page.context().close();
});

truth('refused: a recording (not qualified) and a completion (job cancelled meanwhile) are never shown as done', async () => {
  const [olga, otto] = team.operators;
  const owner = team.client.owner.token;
  const skill = await gql(wip, owner, 'mutation { createSkill(input: { name: "Welding" }) { skill { id } } }', {});
  assert.equal(skill.codes, []);
  const welder = { userId: gid('User', otto.id), skillId: skill.data.createSkill.skill.id };
  // one step (the sample's torque), and a skill Otto lacks
  const [prep] = SAMPLE_CONTENT.sections;
  const welding = await publishedTemplate(wip, team.client, {
    qualifications: [{ skill: 'Welding', level: 1 }],
    sections: [{ ...prep, steps: [prep.steps[0]] }],
  });
  // open to every operator (assigning Otto, who lacks Welding, would be refused)
  const weld = await createJob(wip, owner, { templateId: welding.templateId, title: 'Flange weld check' });
  const page = await openApp(browser, wip, otto, { width: 390, path: `/app/jobs/${weld.id}` });
  await page.getByText('Available offline on this device').waitFor();
  // told before the work (docs/qualifications.md): nothing to record that the server would refuse
  await page.getByText('You may not work on this job yet').waitFor();
  assert.ok(await page.getByRole('button', { name: 'Run job' }).isDisabled());
  // trained, he records it offline; meanwhile the skill is taken away again: the server refuses what the device holds
  const granted = await gql(wip, owner, 'mutation($i: GrantSkillInput!) { grantSkill(input: $i) { userSkill { level } } }', { i: welder });
  assert.equal(granted.codes, []);
  await page.goto(`${wip.url}/app/jobs/${weld.id}/run?step=1`).catch(() => undefined);
  await waitForPage(page);
  await page.getByRole('textbox', { name: 'Torque' }).waitFor();
  assert.is(await page.getByText('You may not work on this job yet').count(), 0, 'qualified now');
  await page.context().setOffline(true);
  await page.getByRole('textbox', { name: 'Torque' }).fill('14');
  await page.getByRole('button', { name: 'Save and review' }).click();
  await page.getByText('Saved on this device', { exact: false }).first().waitFor();
  const revoked = await gql(wip, owner, 'mutation($i: RevokeSkillInput!) { revokeSkill(input: $i) { revoked { level } } }', { i: welder });
  assert.equal(revoked.codes, []);
  await page.context().setOffline(false);
  // the server refuses the recording: the job stays Open, the refusal is shown with its reason
  await page.goto(`${wip.url}/app/jobs/${weld.id}`).catch(() => undefined);
  // refused, not a conflict: the indicator says so in its own words
  await page.locator('[data-sync="refused"]', { hasText: '1 refused by the server' }).waitFor({ timeout: 20_000 });
  await page.locator('.conflict', { hasText: 'not qualified' }).waitFor();
  await page.locator('[data-state="rejected"]', { hasText: 'Recording of step Measure the torque' }).waitFor();
  await page.locator('.page-header .badge', { hasText: /^Open$/ }).waitFor();
  await page.getByText('0 of 1 step done').waitFor();
  assert.is(await page.getByText('Completed', { exact: true }).count(), 0);
  await checkPage(page, 'operator', 'refused', 390);
  assert.is((await serverJob(weld.id)).state, 'OPEN');
  await page.context().close();

  // Olga completes a job offline; meanwhile the supervisor cancels it: the completion is refused, never "Completed"
  const { templateId } = await publishedTemplate(wip, team.client, { sections: [{ ...prep, steps: [prep.steps[0]] }] });
  const job = await createJob(wip, team.client.owner.token, { templateId, title: 'Cancelled meanwhile', assigneeIds: [olga.id] });
  const tablet = await openApp(browser, wip, olga, { width: 820, path: `/app/jobs/${job.id}` });
  await tablet.getByText('Available offline on this device').waitFor();
  await tablet.evaluate('navigator.serviceWorker.ready.then(() => true)');
  await recordTorque(tablet, job.id, '14', 'review');
  await tablet.locator('[data-sync="online"][data-waiting="0"]').waitFor({ timeout: 20_000 });
  await tablet.context().setOffline(true);
  await tablet.getByRole('button', { name: 'Complete job' }).click();
  await tablet.getByRole('heading', { level: 1, name: 'Cancelled meanwhile' }).waitFor();
  await tablet.locator('.page-header .badge', { hasText: 'Completion waiting to send' }).waitFor();
  await tablet.locator('.page-header .badge', { hasText: /^In progress$/ }).waitFor();
  const revision = (await serverJob(job.id)).revision;
  const cancelled = await gql(wip, team.client.owner.token, 'mutation($i: CancelJobInput!) { cancelJob(input: $i) { job { state } } }', {
    i: { jobId: gid('Job', job.id), reason: 'Pump replaced', expectedRevision: revision },
  });
  assert.equal(cancelled.codes, []);
  await tablet.context().setOffline(false);
  await tablet.goto(`${wip.url}/app/jobs/${job.id}`).catch(() => undefined);
  await tablet.locator('.conflict', { hasText: 'Completion of the job' }).waitFor({ timeout: 20_000 });
  assert.is(
    await tablet.locator('.page-header .badge', { hasText: 'Completion waiting to send' }).count(),
    0,
    'a refused completion did not happen',
  );
  assert.is(await tablet.getByText('Completed', { exact: true }).count(), 0);
  assert.is(await tablet.getByText('Job completed.', { exact: true }).count(), 0);
  await checkPage(tablet, 'operator', 'refused-completion', 820);
  assert.is((await serverJob(job.id)).state, 'CANCELLED');
  await tablet.context().close();
});

truth("values entered offline and synced 30 s later carry their entry time, on the server's clock", async () => {
  const [olga] = team.operators;
  const { templateId } = await publishedTemplate(wip, team.client);
  const job = await createJob(wip, team.client.owner.token, { templateId, title: 'Late sync', assigneeIds: [olga.id] });
  // the tablet's own clock is two hours fast: only the offset to the server (its Date header) makes its times true
  const context = await browser.newContext({ viewport: { width: 820, height: 900 }, locale: 'en-GB' });
  const realStart = Date.now();
  await context.clock.install({ time: wip.clock.now().getTime() + 2 * 3_600_000 });
  const tablet = await openApp(browser, wip, olga, { width: 820, path: `/app/jobs/${job.id}`, context });
  await tablet.getByText('Available offline on this device').waitFor();
  await tablet.evaluate('navigator.serviceWorker.ready.then(() => true)');
  await tablet.context().setOffline(true);
  const entered = wip.clock.now().getTime();
  await recordTorque(tablet, job.id, '13');
  const realSpent = Date.now() - realStart;
  await tablet.locator('[data-sync][data-waiting="1"]').waitFor();

  // 30 s later on both clocks (the server's is the test's), the network returns
  wip.clock.advance(30_000);
  await tablet.clock.fastForward(30_000);
  await tablet.context().setOffline(false);
  await tablet.goto(`${wip.url}/app/jobs/${job.id}`).catch(() => undefined);
  await tablet.locator('[data-state="confirmed"]', { hasText: 'Recording of step Measure the torque' }).waitFor({ timeout: 30_000 });
  const record = (
    await gql(wip, team.client.owner.token, 'query($id: ID!) { job(id: $id) { records { stepId capturedAt receivedAt } } }', {
      id: gid('Job', job.id),
    })
  ).data.job.records.find((r: any) => r.stepId === 'measure');
  const captured = Date.parse(record.capturedAt);
  const received = Date.parse(record.receivedAt);
  // The tablet's clock runs in real time from its install, while the test server's ManualClock stands still: the
  // entry time, corrected by the offset to the server's Date, may be ahead by the real time spent since (a few
  // seconds on a busy machine), never behind, never the sync's 30 s later, never the tablet's two hours.
  assert.ok(
    captured >= entered - 1_000 && captured <= entered + realSpent + 1_000,
    `captured ${record.capturedAt}, entered ${new Date(entered).toISOString()}, ${realSpent} ms of real time between`,
  );
  assert.is(received, entered + 30_000, 'received when it reached the server');
  await tablet.context().close();
});

truth.run();

/**
 * The same promises with the server as it runs on premises: a `wip serve` process, killed (SIGKILL) mid-sync and
 * restarted on the same port and data, and restored with `wip restore` from a backup taken before the sync.
 */
let env: Record<string, string>;
let root: string;
let daemon: SpawnedDaemon | undefined;
let port: number;
let crew: AppTeam;
const real = suite('floor app against a real wip process: killed and restored');
real.before(async () => {
  ({ env, root } = await installedDataDir({ WIP_SIGN_IN_RATE_LIMIT_MAX: '100000' }));
  assert.is((await runWip(['license', 'install', path.join(ROOT, 'test', 'fixtures', 'test-suite.lic')], env)).code, 0);
  daemon = await startDaemon([], env);
  port = Number(new URL(daemon.url).port);
  crew = await buildAppTeam(daemonAsServer(daemon));
  browser ??= await launchChromium();
});
real.after(async () => {
  await daemon?.stop('SIGKILL');
  await browser?.close();
});

const restartDaemon = async () => (daemon = await startDaemon([], env, { port }));
const daemonJob = async (id: number) => (await gql(daemonAsServer(daemon!), crew.client.owner.token, JOB, { id: gid('Job', id) })).data.job;

/** Opens each job while online (so it is available offline), then records torque and seal on each offline. */
async function queueOffline(page: Page, url: string, jobIds: number[]): Promise<void> {
  for (const id of jobIds) {
    await page.goto(`${url}/app/jobs/${id}`).catch(() => undefined);
    await page.getByText('Available offline on this device').waitFor();
  }
  await page.evaluate('navigator.serviceWorker.ready.then(() => true)');
  await page.context().setOffline(true);
  for (const id of jobIds) {
    await page.goto(`${url}/app/jobs/${id}/run?step=1`).catch(() => undefined);
    await waitForPage(page);
    await page.getByRole('textbox', { name: 'Torque' }).fill('14');
    await page.getByRole('button', { name: 'Save and next' }).click();
    await page.waitForURL('**/run?step=2');
    await page.getByRole('radio', { name: 'Pass' }).check();
    await page.getByRole('button', { name: 'Save and next' }).click();
    await page.waitForURL('**/run?step=3');
  }
}

real('syncing while the server process is killed and restarted: every item once, and the indicator honest throughout', async () => {
  const [olga] = crew.operators;
  const server = daemonAsServer(daemon!);
  const { templateId } = await publishedTemplate(server, crew.client);
  const jobs = [];
  for (const title of ['Killed server A', 'Killed server B', 'Killed server C'])
    jobs.push(await createJob(server, crew.client.owner.token, { templateId, title, assigneeIds: [olga.id] }));
  const page = await openApp(browser, server, olga, { width: 390, path: '/app/' });
  await queueOffline(
    page,
    daemon!.url,
    jobs.map((j) => j.id),
  );
  await page.goto(`${daemon!.url}/app/jobs/${jobs[0].id}`).catch(() => undefined);
  await page.locator('[data-sync][data-waiting="6"]').waitFor();

  // the network returns; the process is killed (SIGKILL) the moment the device sends its third item
  let sent = 0;
  let killed: Promise<number | null> | undefined;
  const victim = daemon!;
  page.context().on('request', (request) => {
    const keyed = request.method() === 'POST' && request.url().includes('/api/client/graphql') && request.headers()['idempotency-key'];
    if (keyed && ++sent === 3) killed = victim.stop('SIGKILL');
  });
  await page.context().setOffline(false);
  await waitFor('the app to send its third item', () => killed !== undefined, 30_000);
  const down = page.locator('[data-sync="unreachable"]');
  await down.waitFor({ timeout: 20_000 });
  assert.is(await killed, null, 'it died of SIGKILL');
  const waiting = Number(await down.getAttribute('data-waiting'));
  assert.ok(waiting >= 4 && waiting <= 6, `${waiting} waiting: killed mid-sync`);
  assert.match(await down.innerText(), new RegExp(`Server not reachable · ${waiting} waiting`));
  await checkPage(page, 'operator', 'server-killed', 390);

  await restartDaemon();
  await page.locator('[data-sync="online"][data-waiting="0"]').waitFor({ timeout: 30_000 });
  for (const job of jobs) {
    await page.goto(`${daemon!.url}/app/jobs/${job.id}`).catch(() => undefined);
    await page.locator('[data-state="confirmed"]').nth(1).waitFor();
    assert.is(await page.locator('[data-state]:not([data-state="confirmed"])').count(), 0, `${job.title}: nothing but confirmed`);
    const after = await daemonJob(job.id);
    assert.is(after.revision, job.revision + 2, `${job.title}: each recording applied once`);
    assert.equal(after.records.map((r: any) => r.stepId).sort(), ['check', 'measure']);
    assert.is(torqueOf(after), 14);
  }
  await page.locator('[data-sync="online"][data-waiting="0"]').waitFor();
  await page.context().close();
});

real(
  'a real restore (wip backup, wip restore): what still applies is applied once, what cannot is shown lost, reported, and seen by the supervisor',
  async () => {
    const [olga] = crew.operators;
    const server = daemonAsServer(daemon!);
    const { templateId } = await publishedTemplate(server, crew.client);
    const kept = await createJob(server, crew.client.owner.token, { templateId, title: 'Restore kept', assigneeIds: [olga.id] });
    const gone = await createJob(server, crew.client.owner.token, { templateId, title: 'Restore cancelled', assigneeIds: [olga.id] });
    const page = await openApp(browser, server, olga, { width: 820, path: `/app/jobs/${gone.id}` });
    await page.getByText('Available offline on this device').waitFor();
    const confirmed = async (jobId: number, n: number) => {
      await page.goto(`${daemon!.url}/app/jobs/${jobId}`).catch(() => undefined);
      await page
        .locator('[data-state="confirmed"]')
        .nth(n - 1)
        .waitFor({ timeout: 20_000 });
    };
    // the torque of "Restore kept" is recorded before the backup, everything else after it: all confirmed
    await page.goto(`${daemon!.url}/app/jobs/${kept.id}/run?step=1`).catch(() => undefined);
    await waitForPage(page);
    await page.getByRole('textbox', { name: 'Torque' }).fill('14');
    await page.getByRole('button', { name: 'Save and next' }).click();
    await page.waitForURL('**/run?step=2');
    await confirmed(kept.id, 1);
    const archive = path.join(root, 'before-the-sync.tar.gz');
    const backup = await runWip(['backup', '--output', archive], env);
    assert.is(backup.code, 0, backup.stderr);
    for (const job of [kept, gone]) {
      if (job === gone) {
        await page.goto(`${daemon!.url}/app/jobs/${job.id}/run?step=1`).catch(() => undefined);
        await waitForPage(page);
        await page.getByRole('textbox', { name: 'Torque' }).fill('15');
        await page.getByRole('button', { name: 'Save and next' }).click();
        await page.waitForURL('**/run?step=2');
      } else {
        await page.goto(`${daemon!.url}/app/jobs/${job.id}/run?step=2`).catch(() => undefined);
        await waitForPage(page);
      }
      await page.getByRole('radio', { name: 'Pass' }).check();
      await page.getByRole('button', { name: 'Save and next' }).click();
      await page.waitForURL('**/run?step=3');
      await confirmed(job.id, 2);
    }

    // the device leaves the network; the server is stopped, restored from the backup and started again; before the
    // device is back, the supervisor cancels "Restore cancelled" (open again, as in the backup)
    await page.context().setOffline(true);
    await daemon!.stop();
    daemon = undefined;
    const restored = await runWip(['restore', archive, '--json'], env);
    assert.is(restored.code, 0, restored.stderr);
    await restartDaemon();
    const beforeCancel = await daemonJob(gone.id);
    assert.equal(beforeCancel.records, [], 'the restored server lost what was recorded after the backup');
    const cancelled = await gql(
      daemonAsServer(daemon!),
      crew.client.owner.token,
      'mutation($i: CancelJobInput!) { cancelJob(input: $i) { job { state } } }',
      {
        i: { jobId: gid('Job', gone.id), reason: 'Pump replaced', expectedRevision: beforeCancel.revision },
      },
    );
    assert.equal(cancelled.codes, []);

    // the device is back: it resends what the server had confirmed
    await page.context().setOffline(false);
    await page.reload().catch(() => undefined);
    const lost = page.locator('[data-state="lost"]');
    await lost.nth(1).waitFor({ timeout: 30_000 });
    assert.is(await lost.count(), 2, 'torque and seal of the cancelled job');
    assert.match(await lost.first().innerText(), /Lost with a server restore/);
    await checkPage(page, 'operator', 'lost-after-real-restore', 820);
    await page.locator('[data-sync="online"]').waitFor({ timeout: 20_000 });
    const after = await daemonJob(kept.id);
    assert.is(after.revision, kept.revision + 2, 'the torque replayed from the backup, the seal applied again: once each');
    assert.equal(after.records.map((r: any) => r.stepId).sort(), ['check', 'measure']);
    assert.is(torqueOf(after), 14);
    await confirmed(kept.id, 2);
    const deviations = (
      await gql(
        daemonAsServer(daemon!),
        crew.client.owner.token,
        'query($id: ID!) { job(id: $id) { state deviations { kind stepId detail } } }',
        {
          id: gid('Job', gone.id),
        },
      )
    ).data.job;
    assert.is(deviations.state, 'CANCELLED');
    const unapplied = deviations.deviations.filter((d: any) => d.kind === 'UNAPPLIED_CHANGE');
    assert.equal(unapplied.map((d: any) => d.stepId).sort(), ['check', 'measure'], 'each reported once');
    await page.context().close();

    // the supervisor sees them where deviations are listed: the deviations page and the job's record, with what was lost
    const summaries = unapplied.map((d: any) => String(d.detail).split(' — ')[0]);
    const supervisor = await openApp(browser, daemonAsServer(daemon!), crew.supervisor, { width: 820, path: '/app/deviations' });
    await supervisor.getByRole('heading', { name: 'Lost with a server restore (2)' }).waitFor();
    const listed = supervisor.locator('.deviation-list li', { hasText: 'Restore cancelled' });
    assert.is(await listed.count(), 2);
    for (const summary of summaries)
      assert.is(await listed.filter({ hasText: summary }).count(), 1, `the deviations page shows "${summary}"`);
    assert.match(await listed.first().innerText(), /Lost with a server restore/);
    await checkPage(supervisor, 'supervisor', 'deviations-unapplied', 820);
    await supervisor.goto(`${daemon!.url}/app/jobs/${gone.id}/record`).catch(() => undefined);
    const onRecord = supervisor.locator('.deviation-list li', { hasText: 'Lost with a server restore' });
    await onRecord.nth(1).waitFor();
    for (const summary of summaries) assert.is(await onRecord.filter({ hasText: summary }).count(), 1, `the job record shows "${summary}"`);
    await checkPage(supervisor, 'jobs', 'record-unapplied', 820);
    await supervisor.context().close();
  },
);

real.run();
