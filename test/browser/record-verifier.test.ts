import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { assertAccessible, launchChromium } from '../helpers/browser';
import { startTestServer } from '../helpers/server';
import { DOMAIN_TEST_ENV } from '../helpers/domain';
import { edited, fetchBundle, finishedJob, forged, OTHER_PHOTO, publishedKeys } from '../helpers/records';
import { ROOT } from '../helpers/spawn-wip';
import { verifyRecordBundle } from '#domain/record-verify';

// The verifier page in Chromium. The bundles are made by a server
// that is then STOPPED: the downloadable verifier (one HTML file) is opened
// from disk and checks them with WebCrypto, with no server running. The page
// as the appliance serves it (strict CSP: no inline script) is checked too.

const SCREENSHOTS = path.join(ROOT, 'test-output');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-verifier-'));
let browser: Browser;
let page: Page;
let verifierFile: string;
let bundleFile: string;
let tamperedFile: string;
let forgedFile: string;
let kid: string;
let photoId: number;

const verifier = suite('the record bundle verifier page in Chromium');
verifier.before(async () => {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const server = await startTestServer({ env: DOMAIN_TEST_ENV });
  try {
    const { job, operator, files } = await finishedJob(server);
    const text = (await fetchBundle(server, operator.token!, job.id, true)).text;
    kid = (await publishedKeys(server)).keys[0].kid;
    photoId = files.photo.id;
    bundleFile = path.join(work, `job-${job.id}-record.json`);
    fs.writeFileSync(bundleFile, text);
    const swapped = JSON.parse(edited(text, (p) => (p.steps[0].values[0].value = 11)));
    swapped.attachments.find((a: any) => a.fileId === photoId).data = OTHER_PHOTO.toString('base64');
    tamperedFile = path.join(work, 'tampered-record.json');
    fs.writeFileSync(tamperedFile, JSON.stringify(swapped));
    forgedFile = path.join(work, 'forged-record.json');
    fs.writeFileSync(forgedFile, await forged(text, (p) => (p.steps[0].values[0].value = 11)));
    // the file a user downloads from the appliance, saved to disk
    const download = await fetch(`${server.url}/verify/wip-verifier.html`);
    assert.is(download.status, 200);
    verifierFile = path.join(work, 'wip-verifier.html');
    fs.writeFileSync(verifierFile, await download.text());
  } finally {
    await server.stop();
  }
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.setDefaultTimeout(15_000);
});
verifier.after(async () => {
  await browser?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

async function verifyIn(file: string, keys = ''): Promise<string> {
  await page.getByLabel(/Record bundle/).setInputFiles(file);
  await page.getByLabel('Trusted signing keys').fill(keys);
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.locator('#verdict').waitFor();
  return page.locator('#result').innerText();
}

verifier('the downloaded file, opened from disk with no server, verifies an intact bundle and names the signing key', async () => {
  const failed: string[] = [];
  page.on('requestfailed', (request) => failed.push(request.url()));
  page.on('request', (request) => {
    if (!request.url().startsWith('file:') && !request.url().startsWith('data:')) failed.push(`network: ${request.url()}`);
  });
  await page.goto(`file://${verifierFile}`);
  await page.getByRole('heading', { level: 1, name: 'Verify a record bundle' }).waitFor();
  await assertAccessible(page, 'the verifier from disk');
  const result = await verifyIn(bundleFile, kid);
  assert.match(result, /^VERIFIED: the record is intact and signed by a trusted key$/m);
  assert.is(await page.locator('#verdict').getAttribute('data-verdict'), 'VERIFIED');
  assert.match(result, new RegExp(`Signed by key ${kid} \\(trusted\\)`));
  assert.match(result, /3 steps, 1 faults, 3 files \(3 included\)/);
  await assertAccessible(page, 'the verdict');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'record-verifier-ok.png'), fullPage: true });
  assert.equal(failed, [], 'nothing fetched: the file is self-contained');
});

verifier('a tampered bundle: NOT VERIFIED, each problem named', async () => {
  await page.goto(`file://${verifierFile}`);
  const result = await verifyIn(tamperedFile, kid);
  assert.match(result, /NOT VERIFIED/);
  assert.match(result, /the signature does not verify/);
  assert.match(result, new RegExp(`photo ${photoId} \\(seal\\.png\\) does not match its hash`));
  assert.match(result, /step "Measure the torque" \(measure\): the recorded values, status or sign-off differ from what audit entry/);
  // another key than the appliance's: the signer is not trusted
  const other = await verifyIn(bundleFile, 'A'.repeat(43));
  assert.match(other, new RegExp(`signed by key ${kid}, which is not a trusted key`));
  await assertAccessible(page, 'a refusal');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'record-verifier-tampered.png'), fullPage: true });
});

verifier('a complete forgery re-signed with its own key: INTEGRITY ONLY without a key, NOT VERIFIED with the appliance key', async () => {
  await page.goto(`file://${verifierFile}`);
  const bare = await verifyIn(forgedFile);
  assert.match(bare, /^INTEGRITY ONLY — origin not verified/m);
  assert.not.match(bare, /^VERIFIED/m);
  assert.is(await page.locator('#verdict').getAttribute('data-verdict'), 'INTEGRITY_ONLY');
  assert.match(bare, /re-sign it with a key of their own/);
  await assertAccessible(page, 'an integrity-only answer');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'record-verifier-integrity-only.png'), fullPage: true });
  const keyed = await verifyIn(forgedFile, kid);
  assert.match(keyed, /^NOT VERIFIED/m);
  assert.match(keyed, /which is not a trusted key of this appliance/);
});

verifier('the page as the appliance serves it works under the strict CSP (its script a file)', async () => {
  const server = await startTestServer({ env: DOMAIN_TEST_ENV });
  try {
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${server.url}/verify/`);
    await page.getByRole('heading', { level: 1, name: 'Verify a record bundle' }).waitFor();
    assert.ok(await page.getByRole('link', { name: /Download this verifier/ }).isVisible());
    // no key given: even the genuine bundle is integrity only
    const result = await verifyIn(bundleFile);
    assert.match(result, /^INTEGRITY ONLY — origin not verified/m);
    assert.match(result, /compare this fingerprint/);
    assert.match(await verifyIn(bundleFile, kid), /^VERIFIED/m);
    await assertAccessible(page, 'the served verifier');
    assert.equal(violations, []);
  } finally {
    await server.stop();
  }
});

verifier("the console: a Security Administrator downloads a job's bundle next to the key fingerprint", async () => {
  const server = await startTestServer({ env: DOMAIN_TEST_ENV });
  try {
    const { client, job } = await finishedJob(server);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const tab = await context.newPage();
    tab.setDefaultTimeout(15_000);
    await tab.goto(`${server.url}/console/`);
    await tab.getByLabel('Email or administrator user name').fill(client.owner.email);
    await tab.getByLabel('Password').fill(client.owner.password);
    await tab.getByRole('button', { name: 'Sign in' }).click();
    await tab.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await tab.goto(`${server.url}/console/#/security`);
    await tab.getByRole('heading', { level: 2, name: 'Record bundles' }).waitFor();
    const fingerprint = await tab.getByTestId('signing-key-fingerprint').innerText();
    assert.is(fingerprint, (await publishedKeys(server)).keys[0].kid);
    await tab.getByLabel('Job id').fill(String(job.id));
    const [download] = await Promise.all([
      tab.waitForEvent('download'),
      tab.getByRole('button', { name: 'Download record bundle' }).click(),
    ]);
    assert.is(download.suggestedFilename(), `job-${job.id}-record.json`);
    const result = await verifyRecordBundle(fs.readFileSync(await download.path(), 'utf8'), { fingerprints: [fingerprint] });
    assert.equal(result.problems, []);
    await tab.getByText(`Downloaded job-${job.id}-record.json.`).waitFor();
    await assertAccessible(tab, 'the record bundles section');
    await tab.screenshot({ path: path.join(SCREENSHOTS, 'record-bundles-console.png'), fullPage: true });
    await context.close();
  } finally {
    await server.stop();
  }
});

verifier.run();
