import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { Secret, TOTP } from 'otpauth';
import { launchChromium } from '../helpers/browser';
import { APP_WIDTHS, checkPage, openApp, smallTargets, startAppServer, waitForPage, type AppTeam } from '../helpers/app-browser';
import type { TestServer } from '../helpers/server';
import { gql } from '../helpers/graphql';
import { ok, UPDATE_DRAFT, CREATE_DRAFT } from '../helpers/templates';
import { createJob } from '../helpers/domain';

// Approvers and publishers, through the pages only: the review queue, the diff of a second version
// against the published first, a wrong password refused (nothing signed), approve with a password, reject with a
// reason, publish with a two-factor code (a wrong one refused) — and the jobs still on the older version. The authors' side (writing and submitting) is
// another area's: it is done here through the API, as the data the reviewers find. axe-core and a screenshot of
// every page at 390, 820 and 1280 px (test-output/app/review-*.png).

let browser: Browser;
let wip: TestServer;
let team: AppTeam;
/** the template reviewed in its second version, and the one rejected */
let pump: { templateId: string; v1: number; v2: number; job: number };
let valve: { v1: number };

const step = (stepId: string, title: string, body: string, fields: Record<string, unknown>[] = []) => ({ stepId, title, body, fields });
const V1 = {
  sections: [
    {
      sectionId: 'prep',
      title: 'Preparation',
      steps: [
        step('isolate', 'Isolate the pump', 'Lock out both breakers.', [
          { key: 'locked', label: 'Breakers locked', type: 'PASS_FAIL', required: true },
        ]),
        step('pressure', 'Read the pressure', 'Read the gauge at the outlet.', [
          { key: 'bar', label: 'Pressure', type: 'NUMBER', unit: 'bar', min: 1, max: 3, required: true },
        ]),
        step('seal', 'Photograph the seal', 'One photo of the seal from the front.', [
          { key: 'photo', label: 'Seal photo', type: 'PHOTO' },
        ]),
      ],
    },
  ],
};
// version 2: a text changed, a limit changed, a step removed, a step added
const V2 = {
  sections: [
    {
      sectionId: 'prep',
      title: 'Preparation',
      steps: [
        step('isolate', 'Isolate the pump', 'Lock out both breakers and tag them.', [
          { key: 'locked', label: 'Breakers locked', type: 'PASS_FAIL', required: true },
        ]),
        step('pressure', 'Read the pressure', 'Read the gauge at the outlet.', [
          { key: 'bar', label: 'Pressure', type: 'NUMBER', unit: 'bar', min: 1, max: 4, required: true },
        ]),
        step('torque', 'Torque the bolts', 'Cross pattern, two passes.', [
          { key: 'nm', label: 'Torque', type: 'NUMBER', unit: 'Nm', min: 40, max: 45, required: true },
        ]),
      ],
    },
  ],
};

const CREATE = `mutation ($input: CreateTemplateInput!) { createTemplate(input: $input) { template { id databaseId latestVersion { id databaseId } } } }`;
const SUBMIT = `mutation ($id: ID!) { submitVersion(input: { versionId: $id }) { version { id } } }`;
const APPROVE = `mutation ($id: ID!, $p: String) { approveVersion(input: { versionId: $id, password: $p }) { version { id } } }`;
const PUBLISH = `mutation ($id: ID!, $p: String) { publishVersion(input: { versionId: $id, password: $p }) { version { id } } }`;
const VERSION = `query ($id: ID!) { templateVersion(id: $id) { state rejectReason signatures { meaning signer { databaseId } } } }`;

const versionState = async (databaseId: number) =>
  ok(await gql(wip, team.publisher.token, VERSION, { id: `TemplateVersion:${databaseId}` })).templateVersion;

const setup = suite('setup');
setup('a server, a team, and versions waiting for review (written through the API by the author)', async () => {
  browser = await launchChromium();
  ({ wip, team } = await startAppServer());
  const { author, approver, publisher, supervisor, operators } = team;
  const created = ok(await gql(wip, author.token, CREATE, { input: { title: 'Pump overhaul', content: V1 } })).createTemplate.template;
  const v1 = created.latestVersion.id;
  ok(await gql(wip, author.token, SUBMIT, { id: v1 }));
  ok(await gql(wip, approver.token, APPROVE, { id: v1, p: approver.password }));
  ok(await gql(wip, publisher.token, PUBLISH, { id: v1, p: publisher.password }));
  const job = await createJob(wip, supervisor.token, {
    templateId: created.databaseId,
    title: 'Overhaul pump 7',
    assigneeIds: [operators[0].id],
  });
  const draft = ok(await gql(wip, author.token, CREATE_DRAFT, { id: created.id })).createDraft.version;
  ok(await gql(wip, author.token, UPDATE_DRAFT, { id: draft.id, content: V2 }));
  ok(await gql(wip, author.token, SUBMIT, { id: draft.id }));
  pump = { templateId: created.id, v1: created.latestVersion.databaseId, v2: draft.databaseId, job: job.id };

  const other = ok(await gql(wip, author.token, CREATE, { input: { title: 'Valve check', content: V1 } })).createTemplate.template;
  ok(await gql(wip, author.token, SUBMIT, { id: other.latestVersion.id }));
  valve = { v1: other.latestVersion.databaseId };
});
setup.run();

/** The approver's queue at a width: both versions listed with how long they waited; then the second version's diff; the signature dialog. */
async function approverPages(width: number, keep: boolean): Promise<Page> {
  const page = await openApp(browser, wip, team.approver, { width, path: '/app/reviews' });
  await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
  const toApprove = page.getByRole('region', { name: /To approve \(2\)/ });
  await toApprove.getByRole('link', { name: 'Pump overhaul, version 2' }).waitFor();
  await toApprove.getByRole('link', { name: 'Valve check, version 1' }).waitFor();
  assert.match(await toApprove.innerText(), /Submitted/);
  assert.match(await toApprove.innerText(), /by Ada Author/);
  await checkPage(page, 'review', 'queue', width);
  assert.equal(await smallTargets(page), [], 'touch targets of the queue');

  await toApprove.getByRole('link', { name: 'Pump overhaul, version 2' }).click();
  await page.getByRole('heading', { level: 1, name: 'Pump overhaul, version 2' }).waitFor();
  await waitForPage(page);
  const changes = page.getByRole('region', { name: 'Changes since version 1 (published)' });
  await changes.getByText('Steps added: 1 · removed: 1 · changed: 2 · moved: 0 · unchanged: 0').waitFor();
  // the limit that changed, before and after
  const pressure = changes.getByRole('article', { name: 'Read the pressure (Changed)' });
  const limits = pressure.getByRole('table', { name: 'Field changed: Pressure' });
  assert.equal(await limits.getByRole('row').allInnerTexts(), ['Property\tBefore\tAfter', 'Upper limit\t3\t4']);
  // the text that changed, before and after
  const isolate = changes.getByRole('article', { name: 'Isolate the pump (Changed)' });
  assert.match(await isolate.innerText(), /Before\s+Lock out both breakers\.\s+After\s+Lock out both breakers and tag them\./);
  // the step added with its field and limits, the step removed
  assert.match(
    await changes.getByRole('article', { name: 'Torque the bolts (Added)' }).innerText(),
    /Torque — Type: Number · Required: yes · Unit: Nm · Lower limit: 40 · Upper limit: 45/,
  );
  await changes.getByRole('article', { name: 'Photograph the seal (Removed)' }).waitFor();
  // the job on version 1 keeps running on it
  const jobs = page.getByRole('region', { name: 'Jobs still on older versions' });
  await jobs.getByRole('link', { name: 'Overhaul pump 7' }).waitFor();
  assert.match(await jobs.innerText(), /version 1/);
  assert.match(await jobs.innerText(), /assigned to Olga Operator/);
  // an approver approves or rejects; publishing is not theirs
  await page.getByRole('button', { name: 'Approve…' }).waitFor();
  await page.getByRole('button', { name: 'Reject…' }).waitFor();
  assert.is(await page.getByRole('button', { name: 'Publish…' }).count(), 0);
  await checkPage(page, 'review', 'version', width);
  assert.equal(await smallTargets(page), [], 'touch targets of the version page');

  // the signature dialog shows what is signed, by whom, and its meaning, before anything is sent
  await page.getByRole('button', { name: 'Approve…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Sign the approval' });
  await dialog.waitFor();
  const manifest = await dialog.innerText();
  assert.match(manifest, /Document\s+Pump overhaul, version 2/);
  assert.match(manifest, /Signed by\s+Alan Approver \(/);
  assert.match(manifest, /Meaning of the signature\s+Approved/);
  assert.match(manifest, /Content fingerprint \(SHA-256\)\s+[0-9a-f]{64}/);
  await checkPage(page, 'review', 'sign', width);
  if (!keep) {
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
  }
  return page;
}

const reading = suite("an approver reads the queue and a second version's changes (390 and 1280 px)");
for (const width of APP_WIDTHS.filter((w) => w !== 820)) {
  reading(`at ${width} px`, async () => {
    // the home page's card says what waits, and leads to the queue
    const home = await openApp(browser, wip, team.approver, { width, path: '/app/' });
    const card = home.getByRole('region', { name: 'Reviews' });
    await card.getByText('To approve: 2 · to publish: 0').waitFor();
    await card.getByRole('link', { name: 'Open the review queue' }).click();
    await home.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
    await home.context().close();

    const page = await approverPages(width, false);
    await page.context().close();
  });
}
reading.run();

const signing = suite('an approver signs at 820 px: a wrong password refused, approve with the password, reject with a reason');
signing("a wrong password: the server's answer shown, nothing signed", async () => {
  const page = await approverPages(820, true);
  const dialog = page.getByRole('dialog', { name: 'Sign the approval' });
  await dialog.getByLabel(/^Password/).fill('not-my-password');
  await dialog.getByRole('button', { name: 'Sign and approve' }).click();
  await dialog.getByRole('alert').getByText('Not signed: Invalid password or code').waitFor();
  assert.equal(await versionState(pump.v2), { state: 'IN_REVIEW', rejectReason: null, signatures: [] });
  await checkPage(page, 'review', 'sign-refused', 820);

  // the password field was emptied; the right one signs
  assert.is(await dialog.getByLabel(/^Password/).inputValue(), '');
  await dialog.getByLabel(/^Password/).fill(team.approver.password);
  await dialog.getByRole('button', { name: 'Sign and approve' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await page.getByRole('status').getByText('Signed: the version is approved.').first().waitFor();
  assert.equal(await versionState(pump.v2), {
    state: 'APPROVED',
    rejectReason: null,
    signatures: [{ meaning: 'APPROVED', signer: { databaseId: team.approver.id } }],
  });
  await page.getByRole('region', { name: 'Signatures' }).getByText('Approved — Alan Approver').waitFor();
  assert.is(await page.getByRole('button', { name: 'Approve…' }).count(), 0, 'nothing left for the approver to do');

  // back in the queue only the other version waits
  await page.getByRole('link', { name: 'Back to the review queue' }).click();
  await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
  await page
    .getByRole('region', { name: /To approve \(1\)/ })
    .getByRole('link', { name: 'Valve check, version 1' })
    .click();
  await page.getByRole('heading', { level: 1, name: 'Valve check, version 1' }).waitFor();
  await waitForPage(page);
  // a first version: nothing to compare with, every step new
  await page.getByRole('region', { name: 'First version: every step is new' }).getByText('Steps added: 3').waitFor();

  // a rejection needs a reason, then the password
  await page.getByRole('button', { name: 'Reject…' }).click();
  const reject = page.getByRole('dialog', { name: 'Sign the rejection' });
  assert.match(await reject.innerText(), /Meaning of the signature\s+Rejected/);
  await reject.getByLabel(/^Password/).fill(team.approver.password);
  await reject.getByRole('button', { name: 'Sign and reject' }).click();
  await reject.getByText('Give a reason for the rejection.').waitFor();
  assert.is((await versionState(valve.v1)).state, 'IN_REVIEW');
  await reject.getByLabel(/^Reason for rejection/).fill('The pressure step needs its torque values.');
  await reject.getByRole('button', { name: 'Sign and reject' }).click();
  await reject.waitFor({ state: 'hidden' });
  await page.getByRole('status').getByText('Signed: the version is rejected and back with its author.').first().waitFor();
  assert.equal(await versionState(valve.v1), {
    state: 'DRAFT',
    rejectReason: 'The pressure step needs its torque values.',
    signatures: [{ meaning: 'REJECTED', signer: { databaseId: team.approver.id } }],
  });

  await page.goto(`${wip.url}/app/reviews`);
  await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
  await page.getByText('Nothing waits for you').waitFor();
  await checkPage(page, 'review', 'queue-empty', 820);
  await page.context().close();
});
signing.run();

const publishing = suite('a publisher publishes the approved version, signing with a two-factor code; the job on version 1 is shown');
const codeFor = (secret: string) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({
    timestamp: wip.clock.now().getTime(),
  });

publishing('publish with a TOTP code at 820 px (a wrong code refused), then the published page at every width', async () => {
  // every width signed in first: with two-factor on, a sign-in needs a second step the helper does not take
  const pages = new Map<number, Page>();
  for (const width of APP_WIDTHS) pages.set(width, await openApp(browser, wip, team.publisher, { width, path: '/app/reviews' }));
  const setup = await wip.request('POST', '/api/client/auth/two-factor/setup', {
    token: team.publisher.token,
    body: { password: team.publisher.password },
  });
  assert.is(setup.status, 200, setup.text);
  const secret = setup.body.data.secret as string;
  const enable = await wip.request('POST', '/api/client/auth/two-factor/enable', {
    token: team.publisher.token,
    body: { code: codeFor(secret) },
  });
  assert.is(enable.status, 200, enable.text);
  wip.clock.advance(30_000); // the enabling code's time step is spent

  const page = pages.get(820)!;
  // a publisher (not an approver) is not offered review by exception: only approvers acknowledge and sign jobs
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: 'Reviews' }).waitFor();
  assert.is(await nav.getByRole('link', { name: 'Review by exception' }).count(), 0);
  const toPublish = page.getByRole('region', { name: /To publish \(1\)/ });
  await toPublish.getByRole('link', { name: 'Pump overhaul, version 2' }).waitFor();
  assert.match(await toPublish.innerText(), /Approved/);
  // who approved it, by name — not its author (it once read "Approved … by Ada Author")
  assert.match(await toPublish.innerText(), /approved by Alan Approver/);
  assert.not.match(await toPublish.innerText(), /Ada Author/);
  await toPublish.getByRole('link', { name: 'Pump overhaul, version 2' }).click();
  await page.getByRole('heading', { level: 1, name: 'Pump overhaul, version 2' }).waitFor();
  await waitForPage(page);
  await page.getByRole('button', { name: 'Publish…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Sign the publication' });
  assert.match(await dialog.innerText(), /Signed by\s+Pia Publisher/);
  assert.match(await dialog.innerText(), /Meaning of the signature\s+Published/);
  await dialog.getByRole('radio', { name: 'A two-factor code' }).check();
  await dialog.getByLabel(/^Two-factor code/).fill('000000');
  await dialog.getByRole('button', { name: 'Sign and publish' }).click();
  await dialog.getByRole('alert').getByText('Not signed: Invalid password or code').waitFor();
  assert.equal((await versionState(pump.v2)).state, 'APPROVED');
  await dialog.getByLabel(/^Two-factor code/).fill(codeFor(secret));
  await dialog.getByRole('button', { name: 'Sign and publish' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await page.getByRole('status').getByText('Signed: the version is published.').first().waitFor();
  // published now: compared with the version it replaced (retired)
  await page.getByRole('region', { name: 'Changes since version 1, the one it replaced' }).waitFor();
  assert.equal((await versionState(pump.v2)).state, 'PUBLISHED');
  assert.equal((await versionState(pump.v1)).state, 'RETIRED');
  assert.equal(
    (await versionState(pump.v2)).signatures.map((s: { meaning: string }) => s.meaning),
    ['APPROVED', 'PUBLISHED'],
  );
  await page.getByRole('region', { name: 'Jobs still on older versions' }).getByRole('link', { name: 'Overhaul pump 7' }).waitFor();
  await checkPage(page, 'review', 'published', 820);

  // the published page at the other widths
  for (const width of APP_WIDTHS.filter((w) => w !== 820)) {
    const other = pages.get(width)!;
    await other.goto(`${wip.url}/app/reviews/${pump.v2}`);
    await other.getByRole('heading', { level: 1, name: 'Pump overhaul, version 2' }).waitFor();
    await waitForPage(other);
    await other.getByRole('region', { name: 'Jobs still on older versions' }).getByRole('link', { name: 'Overhaul pump 7' }).waitFor();
    await checkPage(other, 'review', 'published', width);
  }
  for (const opened of pages.values()) await opened.context().close();
});
publishing.after(async () => {
  await browser?.close();
  await wip?.stop();
});
publishing.run();
