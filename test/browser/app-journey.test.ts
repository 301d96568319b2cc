import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { waitFor } from '../helpers/wait';
import { checkPage, openApp, startAppServer, waitForPage, type AppTeam, type Member } from '../helpers/app-browser';
import type { TestServer } from '../helpers/server';
import { gql, gid } from '../helpers/graphql';
import { PNG } from '../helpers/upload';
import { listAuditEntries, verifyAuditChain } from '#repos/audit';
import { tenantScope } from '#db/tenant';

/**
 * The whole life of a work instruction in the floor app: written, reviewed, published,
 * made a job, run by an operator at 820 px who loses the network half-way — records the rest with a photo and a
 * value out of limits, reloads offline and finds everything, raises a fault, completes — and, the network back,
 * every queued change reaches the server exactly once (records, values, photo bytes, the audit chain).
 *
 * Every person's part goes through the pages only: the author writes version 1 (a pass/fail field, a number field
 * with limits, a photo field) and submits it, the approver and the publisher sign it off, the author starts version 2
 * from it with the torque limits moved, which is reviewed as a diff and released. The API only reads what the pages
 * stored (and makes the asset: the catalogue is not part of this journey).
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

const STEPS = [
  {
    id: 'seal',
    title: 'Check the seal',
    body: 'Look at the **seal** from all sides:\n\n- no cracks\n- no drops of oil',
    fields: [{ key: 'sealOk', label: 'Seal intact', type: 'PASS_FAIL', required: true }],
  },
  {
    id: 'torque',
    title: 'Measure the torque',
    body: 'Use the *calibrated* wrench.',
    fields: [{ key: 'torque', label: 'Torque', type: 'NUMBER', unit: 'Nm', min: 10, max: 20, required: true }],
  },
  {
    id: 'photo',
    title: 'Photograph the pump',
    body: 'One photo of the whole pump.',
    fields: [{ key: 'picture', label: 'Photo of the pump', type: 'PHOTO', required: true }],
  },
];
const V1 = {
  sections: [
    {
      id: 'main',
      title: 'Inspection',
      steps: STEPS.map((s) => (s.id === 'torque' ? { ...s, fields: [{ ...s.fields[0], min: 8, max: 18 }] } : s)),
    },
  ],
};
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

type Step = (typeof STEPS)[number];
type Field = Step['fields'][number] & { unit?: string; min?: number; max?: number };

const saved = (page: Page) =>
  page
    .getByRole('status')
    .filter({ hasText: /All changes saved/ })
    .waitFor();
const stepRegion = (page: Page, number: number) => page.getByRole('region', { name: new RegExp(`^Step ${number}:`) });

/** Step `number` of the editor written as `step`: title, instructions, its one field with key, unit and limits. */
async function writeStep(page: Page, number: number, step: Step): Promise<void> {
  const region = stepRegion(page, number);
  await region.getByLabel('Step title').fill(step.title);
  await region.getByRole('textbox', { name: 'Instructions', exact: true }).fill(step.body);
  const field: Field = step.fields[0];
  await region.getByLabel('New field type').selectOption(field.type);
  await region.getByRole('button', { name: /^Add field/ }).click();
  await region.getByRole('group', { name: 'Field field' }).getByLabel('Label').fill(field.label);
  const group = region.getByRole('group', { name: `Field ${field.label}` });
  await group.getByLabel('Key').fill(field.key);
  if (field.required) await group.getByLabel('Required').check();
  if (field.unit !== undefined) await group.getByLabel('Unit').fill(field.unit);
  if (field.min !== undefined) await group.getByLabel('Lower limit').fill(String(field.min));
  if (field.max !== undefined) await group.getByLabel('Upper limit').fill(String(field.max));
}

/** A step as the API returns it, in the shape of the test's own steps, to compare with what the page wrote. */
const expected = (step: Step) => [
  step.title,
  step.body,
  step.fields.map((f: Field) => [f.key, f.label, f.type, f.required, f.unit ?? null, f.min ?? null, f.max ?? null]),
];

async function latestSections(templateId: string): Promise<any[]> {
  const data = await ok(
    team.author,
    'query($id: ID!) { template(id: $id) { latestVersion { content { sections { title steps { stepId title body fields { key label type required unit min max } } } } } } }',
    { id: templateId },
  );
  return data.template.latestVersion.content.sections;
}

/** Section titles, then each step of the first section as `expected` shapes the test's own. */
const storedSteps = async (templateId: string) => {
  const sections = await latestSections(templateId);
  return [
    sections.map((s: any) => s.title),
    sections[0].steps.map((s: any) => [
      s.title,
      s.body,
      s.fields.map((f: any) => [f.key, f.label, f.type, f.required, f.unit, f.min, f.max]),
    ]),
  ];
};

/**
 * The draft on the server, once autosave has caught up with the page, is `steps`. "All changes saved" alone could be
 * the status from before the last keystroke, so the server is read until it matches (or 10 s pass, then compared).
 */
async function draftIs(templateId: string, steps: Step[], message: string): Promise<void> {
  const want = [['Inspection'], steps.map(expected)];
  let stored: unknown;
  const matches = async () => JSON.stringify((stored = await storedSteps(templateId))) === JSON.stringify(want);
  // on time out, the comparison below says what differs
  await waitFor('the draft on the server', matches, 10_000).catch(() => undefined);
  assert.equal(stored, want, message);
}

/** The approver or the publisher signs a version off on its review page, with their password. */
async function signOff(
  member: Member,
  queue: string,
  link: string,
  button: string,
  dialogName: string,
  sign: string,
  signed: string,
): Promise<void> {
  const page = await openApp(browser, wip, member, { width: 820, path: '/app/reviews' });
  await page
    .getByRole('region', { name: new RegExp(`${queue} \\(1\\)`) })
    .getByRole('link', { name: link })
    .click();
  await page.getByRole('heading', { level: 1, name: link }).waitFor();
  await page.getByRole('button', { name: button }).click();
  const dialog = page.getByRole('dialog', { name: dialogName });
  await dialog.getByLabel(/^Password/).fill(member.password);
  await dialog.getByRole('button', { name: sign }).click();
  await page.getByRole('status').getByText(signed).first().waitFor();
  await page.context().close();
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

  // ── author, through the pages: a new template, three steps, submitted ─────────────────────────────────────
  const writer = await openApp(browser, wip, author, { width: 1280, path: '/app/templates' });
  await writer.getByRole('heading', { level: 1, name: 'Templates' }).waitFor();
  await writer.getByRole('button', { name: 'New template' }).click();
  await writer.getByLabel('Title', { exact: true }).fill('Pump inspection');
  await writer.getByLabel('Description', { exact: true }).fill('Monthly');
  await writer.getByLabel('Tags', { exact: true }).fill('pumps');
  await writer.getByRole('button', { name: 'Create and edit' }).click();
  await writer.getByRole('heading', { level: 1, name: 'Draft of version 1' }).waitFor();
  const templateDbId = Number(/\/app\/templates\/(\d+)\/edit/.exec(writer.url())![1]);
  const templateId = gid('Template', templateDbId);
  await writer.getByLabel('Section title').fill(V1.sections[0].title);
  for (const [i, step] of V1.sections[0].steps.entries()) {
    if (i > 0) await writer.getByRole('button', { name: `Add step to ${V1.sections[0].title}` }).click();
    await writeStep(writer, i + 1, step);
  }
  await saved(writer);
  await draftIs(templateId, V1.sections[0].steps, 'version 1 as written on the page');
  await writer.getByRole('button', { name: 'Submit for review' }).click();
  await writer.getByText('Version 1 was submitted for review.').waitFor();
  await checkPage(writer, 'author', 'journey-submitted', 1280);

  // ── approver and publisher, through the pages: version 1 released ────────────────────────────────────────
  await signOff(
    approver,
    'To approve',
    'Pump inspection, version 1',
    'Approve…',
    'Sign the approval',
    'Sign and approve',
    'Signed: the version is approved.',
  );
  await signOff(
    publisher,
    'To publish',
    'Pump inspection, version 1',
    'Publish…',
    'Sign the publication',
    'Sign and publish',
    'Signed: the version is published.',
  );

  // ── author, through the pages: version 2 from version 1, the torque limits moved, submitted ──────────────────
  await writer.goto(`${wip.url}/app/templates/${templateDbId}`);
  await writer.getByRole('button', { name: 'New draft from version 1' }).click();
  await writer.getByRole('heading', { level: 1, name: 'Draft of version 2' }).waitFor();
  const torqueField = stepRegion(writer, 2).getByRole('group', { name: 'Field Torque' });
  await torqueField.getByLabel('Upper limit').fill('20');
  await torqueField.getByLabel('Lower limit').fill('10');
  await saved(writer);
  await draftIs(templateId, V2.sections[0].steps, 'version 2 as written on the page');
  await writer.getByRole('button', { name: 'Submit for review' }).click();
  await writer.getByText('Version 2 was submitted for review.').waitFor();
  await writer.context().close();

  // ── approver, through the pages: the queue, the diff of version 2, approve with a password ─────────────────
  const reviewer = await openApp(browser, wip, approver, { width: 820, path: '/app/reviews' });
  await reviewer
    .getByRole('region', { name: /To approve \(1\)/ })
    .getByRole('link', { name: 'Pump inspection, version 2' })
    .click();
  await reviewer.getByRole('heading', { level: 1, name: 'Pump inspection, version 2' }).waitFor();
  const changes = reviewer.getByRole('region', { name: 'Changes since version 1 (published)' });
  const torque = changes.getByRole('article', { name: 'Measure the torque (Changed)' });
  assert.equal(await torque.getByRole('table', { name: 'Field changed: Torque' }).getByRole('row').allInnerTexts(), [
    'Property\tBefore\tAfter',
    'Lower limit\t8\t10',
    'Upper limit\t18\t20',
  ]);
  await reviewer.getByRole('button', { name: 'Approve…' }).click();
  const approve = reviewer.getByRole('dialog', { name: 'Sign the approval' });
  await approve.getByLabel(/^Password/).fill(approver.password);
  await approve.getByRole('button', { name: 'Sign and approve' }).click();
  await reviewer.getByRole('status').getByText('Signed: the version is approved.').first().waitFor();
  await reviewer.context().close();

  // ── publisher, through the pages ─────────────────────────────────────────────────────────────────────────
  const publishing = await openApp(browser, wip, publisher, { width: 820, path: '/app/reviews' });
  await publishing
    .getByRole('region', { name: /To publish \(1\)/ })
    .getByRole('link', { name: 'Pump inspection, version 2' })
    .click();
  await publishing.getByRole('button', { name: 'Publish…' }).click();
  const publish = publishing.getByRole('dialog', { name: 'Sign the publication' });
  await publish.getByLabel(/^Password/).fill(publisher.password);
  await publish.getByRole('button', { name: 'Sign and publish' }).click();
  await publishing.getByRole('status').getByText('Signed: the version is published.').first().waitFor();
  await publishing.context().close();

  // ── supervisor, through the pages: a job from the published version, for the asset, assigned to the operator ──
  // the catalogue is the author's and the administrator's (PERMISSIONS.manageCatalogue)
  await ok(author, 'mutation($i: CreateAssetInput!) { createAsset(input: $i) { asset { id } } }', {
    i: { name: 'Pump 7', serialNumber: 'P7-2026' },
  });
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
  const made = await ok(
    team.client.owner,
    'query($a: ID) { jobs(first: 10, filter: { assigneeId: $a }) { nodes { id databaseId title priority version { number } asset { name } } } }',
    { a: gid('User', operator.id) },
  );
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
  // an out-of-limit value needs a comment before the job can complete (COMMENT_REQUIRED, docs/execution-rules.md)
  await page.getByRole('textbox', { name: 'Comment' }).fill('Bolts re-torqued by maintenance, see fault');
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
  assert.is(await page.locator('.review-step[data-state="waiting"]').count(), 2, 'the two steps recorded offline, waiting');
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
  // queued, not done: the badge says the server's state and that the completion waits (never "Completed" yet)
  await page.getByText('Completion waiting to send').first().waitFor();
  assert.is(await page.locator('.page-header .badge', { hasText: /^Completed$/ }).count(), 0, 'not completed before the server says so');
  // torque, photo upload, photo step, fault photo upload, fault, completion: the count follows the queue's write of
  // the completion, which may land just after the page shows it completed (a run under load read 5)
  await page.locator('[data-sync][data-waiting="6"]').waitFor();
  await everyWidth(page, 'offline');
  let server = (await ok(team.client.owner, 'query($id: ID!) { job(id: $id) { state revision records { stepId } } }', { id: job.id })).job;
  assert.equal(
    [server.state, server.revision, server.records.length],
    ['IN_PROGRESS', 2, 1],
    'nothing of the offline part on the server yet',
  );

  // ── the network returns ──────────────────────────────────────────────────────────────────────────────────
  await page.context().setOffline(false);
  await page.locator('[data-sync="online"][data-waiting="0"]').waitFor({ timeout: 30_000 });
  // the server confirmed the completion: now, and only now, the badge says so
  await page
    .locator('.badge', { hasText: /^Completed$/ })
    .first()
    .waitFor();
  assert.is(await page.getByText('Completion waiting to send').count(), 0);

  server = (
    await ok(
      team.client.owner,
      'query($id: ID!) { job(id: $id) { state revision records { stepId status comment recordedBy { databaseId } values { key value outOfLimits files { databaseId sha256 } } } faults(first: 10) { nodes { description severity photoFiles { databaseId sha256 } raisedBy { databaseId } } } } }',
      { id: job.id },
    )
  ).job;
  assert.is(server.state, 'COMPLETED');
  assert.is(server.revision, 5, 'created at 1; seal, torque, photo, completion: four writes, none twice');
  // the step ids are the editor's; the test's names for them by their place in the published version
  const names = Object.fromEntries((await latestSections(templateId))[0].steps.map((s: any, i: number) => [s.stepId, STEPS[i].id]));
  const byStep = Object.fromEntries(server.records.map((r: any) => [names[r.stepId], r]));
  assert.equal(Object.keys(byStep).sort(), ['photo', 'seal', 'torque']);
  assert.equal(
    byStep.seal.values.map((v: any) => [v.key, v.value]),
    [['sealOk', 'PASS']],
  );
  assert.equal(
    byStep.torque.values.map((v: any) => [v.key, v.value, v.outOfLimits]),
    [['torque', 25, true]],
  );
  assert.is(byStep.torque.comment, 'Bolts re-torqued by maintenance, see fault', 'the comment the out-of-limit value needs');
  for (const r of server.records) assert.is(r.recordedBy.databaseId, operator.id);
  const photo = byStep.photo.values[0].files;
  assert.is(photo.length, 1);
  assert.is(sha(await fileBytes(operator, photo[0].databaseId)), sha(PNG), 'the photo taken offline, byte for byte');
  assert.is(server.faults.nodes.length, 1, 'one fault');
  const fault = server.faults.nodes[0];
  assert.equal([fault.description, fault.severity, fault.raisedBy.databaseId], ['Oil drips from the flange', 'HIGH', operator.id]);
  assert.is(sha(await fileBytes(operator, fault.photoFiles[0].databaseId)), sha(FAULT_PHOTO));

  const scope = tenantScope(team.client.id);
  const entries = await listAuditEntries(
    wip.deps.db.kysely,
    scope,
    { entityType: 'job', entityId: String(job.databaseId) },
    { limit: 100 },
  );
  assert.equal(
    entries.items.map((e) => e.action),
    ['job.created', 'job.step_recorded', 'job.step_recorded', 'job.step_recorded', 'job.completed'],
    'each change once',
  );
  const uploads = await wip.deps.db.kysely.selectFrom('files').select(['id', 'sha256']).where('client_id', '=', team.client.id).execute();
  assert.is(uploads.length, 2, `two photos uploaded, neither twice: ${JSON.stringify(uploads)}`);
  assert.is((await verifyAuditChain(wip.deps.db.kysely, team.client.id)).broken, null, 'the audit chain verifies');
  await page.context().close();
});

journey.run();
