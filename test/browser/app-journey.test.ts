import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { checkPage, openApp, startAppServer, waitForPage, type AppTeam, type Member } from '../helpers/app-browser';
import type { TestServer } from '../helpers/server';
import { gql, gid } from '../helpers/graphql';
import { contentInput } from '../helpers/domain';
import { PNG } from '../helpers/upload';
import { listAuditEntries, verifyAuditChain } from '#repos/audit';
import { tenantScope } from '#db/tenant';

/**
 * The whole life of a work instruction in the floor app (issue 31, "Done means"): written, reviewed, published,
 * made a job, run by an operator at 820 px who loses the network half-way — records the rest with a photo and a
 * value out of limits, reloads offline and finds everything, raises a fault, completes — and, the network back,
 * every queued change reaches the server exactly once (records, values, photo bytes, the audit chain).
 *
 * The author's part (and the first version's release) goes through the API in this file until the author's pages
 * are merged (see API_STEPS); version 2's review, approval and publication, the supervisor's and the operator's
 * parts go through the pages only.
 */
let wip: TestServer;
let team: AppTeam;
let browser: Browser;
const journey = suite('floor app: the whole life of a work instruction, offline half-way');
journey.before(async () => {
  ({ wip, team } = await startAppServer());
  browser = await launchChromium();
});
journey.after(async () => {
  await browser?.close();
  await wip?.stop();
});

/** Which parts still run through the API (not the pages): reported by the test so it is never hidden. */
const API_STEPS = ['author writes and submits (both versions)', 'version 1 approved and published'];

const STEPS = [
  { id: 'seal', title: 'Check the seal', body: 'Look at the **seal** from all sides:\n\n- no cracks\n- no drops of oil', fields: [{ key: 'sealOk', label: 'Seal intact', type: 'PASS_FAIL', required: true }] },
  { id: 'torque', title: 'Measure the torque', body: 'Use the *calibrated* wrench.', fields: [{ key: 'torque', label: 'Torque', type: 'NUMBER', unit: 'Nm', min: 10, max: 20, required: true }] },
  { id: 'photo', title: 'Photograph the pump', body: 'One photo of the whole pump.', fields: [{ key: 'picture', label: 'Photo of the pump', type: 'PHOTO', required: true }] },
];
const V1 = { sections: [{ id: 'main', title: 'Inspection', steps: STEPS.map((s) => (s.id === 'torque' ? { ...s, fields: [{ ...s.fields[0], min: 8, max: 18 }] } : s)) }] };
const V2 = { sections: [{ id: 'main', title: 'Inspection', steps: STEPS }] };
const FAULT_PHOTO = Buffer.concat([PNG, Buffer.from(' the fault')]);

async function ok(member: { token: string }, query: string, variables: Record<string, unknown>): Promise<any> {
  const result = await gql(wip, member.token, query, variables);
  assert.equal(result.codes, [], JSON.stringify(result.errors));
  return result.data;
}

/** The page at 390 and 1280 px too (axe, no overflow, screenshots), back at 820. */
async function everyWidth(page: Page, name: string): Promise<void> {
  for (const width of [390, 1280, 820]) {
    await page.setViewportSize({ width, height: 900 });
    await checkPage(page, 'operator', name, width);
  }
}

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function fileBytes(member: Member, fileId: number): Promise<Buffer> {
  const res = await fetch(`${wip.url}/api/client/files/${fileId}`, { headers: { authorization: `Bearer ${member.token}` } });
  assert.is(res.status, 200);
  return Buffer.from(await res.arrayBuffer());
}

journey('author → approver → publisher → supervisor → operator offline half-way → every change on the server once', async () => {
  const { author, approver, publisher, supervisor, operators } = team;
  const operator = operators[0];

  // ── author, approver, publisher (API until their pages land) ─────────────────────────────────────────────
  const created = await ok(author, 'mutation($i: CreateTemplateInput!) { createTemplate(input: $i) { template { id databaseId } version { id } } }', {
    i: { title: 'Pump inspection', description: 'Monthly', tags: ['pumps'], content: contentInput(V1) },
  });
  const templateId: string = created.createTemplate.template.id;
  const release = async (versionId: string) => {
    await ok(author, 'mutation($v: ID!) { submitVersion(input: { versionId: $v }) { version { id } } }', { v: versionId });
    await ok(approver, 'mutation($v: ID!, $p: String) { approveVersion(input: { versionId: $v, password: $p }) { version { id } } }', { v: versionId, p: approver.password });
    await ok(publisher, 'mutation($v: ID!, $p: String) { publishVersion(input: { versionId: $v, password: $p }) { version { id } } }', { v: versionId, p: publisher.password });
  };
  await release(created.createTemplate.version.id);
  const draft = await ok(author, 'mutation($t: ID!) { createDraft(input: { templateId: $t }) { version { id } } }', { t: templateId });
  const v2: string = draft.createDraft.version.id;
  await ok(author, 'mutation($v: ID!, $c: ContentInput!) { updateDraft(input: { versionId: $v, content: $c }) { version { id } } }', { v: v2, c: contentInput(V2) });
  await ok(author, 'mutation($v: ID!) { submitVersion(input: { versionId: $v }) { version { id } } }', { v: v2 });

  // ── approver, through the pages: the queue, the diff of version 2, approve with a password ─────────────────
  const reviewer = await openApp(browser, wip, approver, { width: 820, path: '/app/reviews' });
  await reviewer.getByRole('region', { name: /To approve \(1\)/ }).getByRole('link', { name: 'Pump inspection, version 2' }).click();
  await reviewer.getByRole('heading', { level: 1, name: 'Pump inspection, version 2' }).waitFor();
  const changes = reviewer.getByRole('region', { name: 'Changes since version 1 (published)' });
  const torque = changes.getByRole('article', { name: 'Measure the torque (Changed)' });
  assert.equal(await torque.getByRole('table', { name: 'Field changed: Torque' }).getByRole('row').allInnerTexts(), ['Property\tBefore\tAfter', 'Lower limit\t8\t10', 'Upper limit\t18\t20']);
  await reviewer.getByRole('button', { name: 'Approve…' }).click();
  const approve = reviewer.getByRole('dialog', { name: 'Sign the approval' });
  await approve.getByLabel(/^Password/).fill(approver.password);
  await approve.getByRole('button', { name: 'Sign and approve' }).click();
  await reviewer.getByRole('status').getByText('Signed: the version is approved.').first().waitFor();
  await reviewer.context().close();

  // ── publisher, through the pages ─────────────────────────────────────────────────────────────────────────
  const publishing = await openApp(browser, wip, publisher, { width: 820, path: '/app/reviews' });
  await publishing.getByRole('region', { name: /To publish \(1\)/ }).getByRole('link', { name: 'Pump inspection, version 2' }).click();
  await publishing.getByRole('button', { name: 'Publish…' }).click();
  const publish = publishing.getByRole('dialog', { name: 'Sign the publication' });
  await publish.getByLabel(/^Password/).fill(publisher.password);
  await publish.getByRole('button', { name: 'Sign and publish' }).click();
  await publishing.getByRole('status').getByText('Signed: the version is published.').first().waitFor();
  await publishing.context().close();

  // ── supervisor, through the pages: a job from the published version, for the asset, assigned to the operator ──
  // the catalogue is the author's and the administrator's (DOMAIN_PERMISSIONS.manageCatalogue)
  await ok(author, 'mutation($i: CreateAssetInput!) { createAsset(input: $i) { asset { id } } }', { i: { name: 'Pump 7', serialNumber: 'P7-2026' } });
  const boss = await openApp(browser, wip, supervisor, { width: 820, path: '/app/jobs/new' });
  await boss.getByRole('combobox', { name: 'Published template' }).selectOption({ label: 'Pump inspection (version 2)' });
  await boss.getByRole('textbox', { name: 'Job title' }).fill('Pump 7 monthly inspection');
  await boss.getByRole('combobox', { name: 'Asset' }).selectOption({ label: 'Pump 7 (P7-2026)' });
  await boss.getByRole('combobox', { name: 'Priority' }).selectOption('HIGH');
  await boss.getByLabel('Due', { exact: true }).fill('2030-01-15T10:00');
  await boss.getByRole('checkbox', { name: 'Olga Operator' }).check();
  await boss.getByRole('button', { name: 'Create job' }).click();
  await boss.waitForURL('**/app/board');
  await boss.context().close();
  const made = await ok(team.client.owner, 'query($a: ID) { jobs(first: 10, filter: { assigneeId: $a }) { nodes { id databaseId title priority version { number } asset { name } } } }', { a: gid('User', operator.id) });
  assert.is(made.jobs.nodes.length, 1);
  const job = made.jobs.nodes[0];
  assert.equal([job.title, job.priority, job.version.number, job.asset.name], ['Pump 7 monthly inspection', 'HIGH', 2, 'Pump 7']);

  // ── operator at 820 px, through the pages ────────────────────────────────────────────────────────────────
  const page = await openApp(browser, wip, operator, { width: 820, path: '/app/jobs' });
  await page.getByRole('link', { name: 'Pump 7 monthly inspection' }).waitFor();
  await everyWidth(page, 'jobs');
  // found again by the asset's code, typed (Chromium here has no BarcodeDetector)
  await page.getByRole('link', { name: 'Scan a code' }).click();
  await page.getByRole('heading', { level: 1, name: 'Find a job or an asset' }).waitFor();
  await everyWidth(page, 'scan');
  await page.getByRole('textbox', { name: 'Code, job number or asset serial number' }).fill('P7-2026');
  await page.getByRole('button', { name: 'Find' }).click();
  await page.getByRole('heading', { level: 1, name: 'Jobs for asset Pump 7' }).waitFor();

  await page.getByRole('link', { name: 'Pump 7 monthly inspection' }).click();
  await page.getByRole('heading', { level: 1, name: 'Pump 7 monthly inspection' }).waitFor();
  await page.getByText('Available offline on this device').waitFor();
  await everyWidth(page, 'job');
  // the app's service worker is active before the network goes: a reload offline comes from its cache
  await page.evaluate('navigator.serviceWorker.ready.then(() => true)');

  await page.getByRole('link', { name: 'Run job' }).click();
  await page.getByRole('heading', { name: 'Check the seal' }).waitFor();
  assert.ok(await page.getByText('no drops of oil').isVisible(), 'the step text, Markdown rendered');
  await page.getByRole('radio', { name: 'Pass' }).check();
  await everyWidth(page, 'run-step');
  await page.getByRole('button', { name: 'Save and next' }).click();
  await page.getByRole('heading', { name: 'Measure the torque' }).waitFor();
  // the first step reaches the server while online
  await page.locator('[data-sync="online"][data-waiting="0"]').waitFor();

  // ── half-way: the network goes ───────────────────────────────────────────────────────────────────────────
  await page.context().setOffline(true);
  await page.getByRole('textbox', { name: 'Torque' }).fill('25');
  await page.getByText('Outside the limits (10–20 Nm)').waitFor();
  await everyWidth(page, 'run-limits');
  await page.getByRole('button', { name: 'Save and next' }).click();
  await page.getByRole('heading', { name: 'Photograph the pump' }).waitFor();
  // a required photo: not saved without it
  await page.getByRole('button', { name: 'Save and review' }).click();
  await page.getByText('Fill in this required value.').waitFor();
  await page.locator('input[type=file]').setInputFiles({ name: 'pump.png', mimeType: 'image/png', buffer: PNG });
  await page.getByRole('img', { name: 'Photo 1 for Photo of the pump' }).waitFor();
  await everyWidth(page, 'run-photo');
  await page.getByRole('button', { name: 'Save and review' }).click();
  await page.getByRole('heading', { name: 'Outside the limits' }).waitFor();
  await page.locator('.out-of-limits', { hasText: 'Torque 25 Nm' }).waitFor();
  await page.locator('[data-sync="offline"]').waitFor();
  await everyWidth(page, 'review');

  // ── reload without network: everything is still there ───────────────────────────────────────────────────
  await page.reload();
  await waitForPage(page);
  await page.locator('.out-of-limits', { hasText: 'Torque 25 Nm' }).waitFor();
  assert.ok(await page.locator('.review-steps').getByText('Pass').isVisible(), 'the step recorded online');
  assert.is(await page.locator('.review-steps .pending-mark').count(), 2, 'the two steps recorded offline, waiting');
  await page.getByRole('button', { name: 'Go to step 2' }).first().click();
  assert.is(await page.getByRole('textbox', { name: 'Torque' }).inputValue(), '25');
  await page.goto(`${wip.url}/app/jobs/${job.databaseId}/run?step=3`).catch(() => undefined);
  await waitForPage(page);
  await page.getByRole('img', { name: 'Photo 1 for Photo of the pump' }).waitFor();

  // ── a fault with a photo, offline ────────────────────────────────────────────────────────────────────────
  await page.getByRole('button', { name: 'Raise fault' }).click();
  const dialog = page.getByRole('dialog', { name: 'Raise a fault' });
  await dialog.getByRole('textbox', { name: 'What is wrong?' }).fill('Oil drips from the flange');
  await dialog.getByRole('combobox', { name: 'Severity' }).selectOption('HIGH');
  await dialog.locator('input[type=file]').setInputFiles({ name: 'fault.png', mimeType: 'image/png', buffer: FAULT_PHOTO });
  await dialog.getByRole('img', { name: 'Photo 1 for Photo of the fault' }).waitFor();
  await checkPage(page, 'operator', 'fault', 820);
  await dialog.getByRole('button', { name: 'Raise fault' }).click();
  await dialog.waitFor({ state: 'hidden' });

  // ── complete, offline ────────────────────────────────────────────────────────────────────────────────────
  await page.goto(`${wip.url}/app/jobs/${job.databaseId}/run?step=review`).catch(() => undefined);
  await waitForPage(page);
  await page.getByRole('button', { name: 'Complete job' }).click();
  await page.getByRole('heading', { level: 1, name: 'Pump 7 monthly inspection' }).waitFor();
  await page.getByText('Completed').first().waitFor();
  const waiting = Number(await page.locator('[data-sync]').getAttribute('data-waiting'));
  assert.is(waiting, 6, 'torque, photo upload, photo step, fault photo upload, fault, completion');
  await everyWidth(page, 'offline');
  let server = (await ok(team.client.owner, 'query($id: ID!) { job(id: $id) { state revision records { stepId } } }', { id: job.id })).job;
  assert.equal([server.state, server.revision, server.records.length], ['IN_PROGRESS', 2, 1], 'nothing of the offline part on the server yet');

  // ── the network returns ──────────────────────────────────────────────────────────────────────────────────
  await page.context().setOffline(false);
  await page.locator('[data-sync="online"][data-waiting="0"]').waitFor({ timeout: 30_000 });

  server = (
    await ok(team.client.owner, 'query($id: ID!) { job(id: $id) { state revision records { stepId status recordedBy { databaseId } values { key value outOfLimits files { databaseId sha256 } } } faults(first: 10) { nodes { description severity photoFiles { databaseId sha256 } raisedBy { databaseId } } } } }', { id: job.id })
  ).job;
  assert.is(server.state, 'COMPLETED');
  assert.is(server.revision, 5, 'created at 1; seal, torque, photo, completion: four writes, none twice');
  const byStep = Object.fromEntries(server.records.map((r: any) => [r.stepId, r]));
  assert.equal(Object.keys(byStep).sort(), ['photo', 'seal', 'torque']);
  assert.equal(byStep.seal.values.map((v: any) => [v.key, v.value]), [['sealOk', 'PASS']]);
  assert.equal(byStep.torque.values.map((v: any) => [v.key, v.value, v.outOfLimits]), [['torque', 25, true]]);
  for (const r of server.records) assert.is(r.recordedBy.databaseId, operator.id);
  const photo = byStep.photo.values[0].files;
  assert.is(photo.length, 1);
  assert.is(sha(await fileBytes(operator, photo[0].databaseId)), sha(PNG), 'the photo taken offline, byte for byte');
  assert.is(server.faults.nodes.length, 1, 'one fault');
  const fault = server.faults.nodes[0];
  assert.equal([fault.description, fault.severity, fault.raisedBy.databaseId], ['Oil drips from the flange', 'HIGH', operator.id]);
  assert.is(sha(await fileBytes(operator, fault.photoFiles[0].databaseId)), sha(FAULT_PHOTO));

  const scope = tenantScope(team.client.id);
  const entries = await listAuditEntries(wip.deps.db.kysely, scope, { entityType: 'job', entityId: String(job.databaseId) }, { limit: 100 });
  assert.equal(
    entries.items.map((e) => e.action),
    ['job.created', 'job.step_recorded', 'job.step_recorded', 'job.step_recorded', 'job.completed'],
    'each change once',
  );
  const uploads = await wip.deps.db.kysely.selectFrom('files').select(['id', 'sha256']).where('client_id', '=', team.client.id).execute();
  assert.is(uploads.length, 2, `two photos uploaded, neither twice: ${JSON.stringify(uploads)}`);
  assert.is((await verifyAuditChain(wip.deps.db.kysely, team.client.id)).broken, null, 'the audit chain verifies');
  await page.context().close();
  console.log(`  (through the API, not yet the pages: ${API_STEPS.join('; ')})`);
});

journey.run();
