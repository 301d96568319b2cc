import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { startTestServer, type TestServer } from '../helpers/server';
import { DOMAIN_TEST_ENV } from '../helpers/domain';
import { fetchBundle, finishedJob, publishedKeys } from '../helpers/records';
import { startTestTsa, type TestTsa } from '../helpers/tsa';
import { verifyCheckpointFile, verifyRecordBundle } from '#domain/record-verify';
import { createCheckpoint, exportCheckpoint } from '#services/checkpoints';
import { retryCheckpointTimestamps } from '#services/timestamps';
import { listCheckpoints } from '#repos/audit-checkpoints';

// Trusted timestamps against a real RFC 3161 implementation:
// OpenSSL's `openssl ts -reply` behind a tiny HTTP wrapper on loopback.

let server: TestServer;
let tsa: TestTsa;
const stamps = suite('RFC 3161 timestamps on record bundles and checkpoints (timestampAuthorityUrl)');
stamps.before(async () => {
  tsa = await startTestTsa();
  server = await startTestServer({ env: { ...DOMAIN_TEST_ENV, WIP_TIMESTAMP_AUTHORITY_URL: tsa.url } });
});
stamps.after(async () => {
  await server.stop();
  await tsa.stop();
});
stamps.before.each(() => {
  tsa.mode = 'ok';
});

stamps('a bundle carries a token of the authority, verified by the verifier (pinned to the authority too)', async () => {
  const { job, operator } = await finishedJob(server);
  const text = (await fetchBundle(server, operator.token!, job.id)).text;
  const bundle = JSON.parse(text);
  assert.ok(bundle.timestamp?.token, 'a token');
  assert.is(bundle.timestamp.authority, tsa.url);
  const keys = await publishedKeys(server);
  const result = await verifyRecordBundle(text, keys);
  assert.equal(result.problems, []);
  assert.match(result.timestamp?.tsa ?? '', /CN=Test TSA/);
  assert.is(result.timestamp?.certificateSha256, tsa.certificateSha256);
  assert.ok(Math.abs(Date.parse(result.timestamp!.genTime) - Date.now()) < 120_000, result.timestamp!.genTime);
  assert.ok((await verifyRecordBundle(text, { ...keys, tsaCertificates: [tsa.certificateSha256] })).ok);
});

stamps('forged tokens are refused: another authority, another signature, altered bytes', async () => {
  const { job, operator } = await finishedJob(server);
  const text = (await fetchBundle(server, operator.token!, job.id)).text;
  const keys = await publishedKeys(server);
  const pinned = { ...keys, tsaCertificates: [tsa.certificateSha256] };
  const withToken = (token: string) => JSON.stringify({ ...JSON.parse(text), timestamp: { token } });
  const signature = JSON.parse(text).jws.signature as string;

  const forged = await verifyRecordBundle(withToken(await tsa.stamp(signature, 'forger')), pinned);
  assert.not.ok(forged.ok);
  assert.match(
    forged.problems.join('\n'),
    /timestamp: the token was signed by .*Test TSA.* \(certificate SHA-256 [0-9a-f]{64}\), not by a trusted time-stamping authority/,
  );

  const elsewhere = await verifyRecordBundle(withToken(await tsa.stamp('some other signature')), pinned);
  assert.match(elsewhere.problems.join('\n'), /timestamp: the token stamps another signature: it does not belong to this record/);

  // what the authority signs, altered: the time it stamped (TSTInfo genTime), the imprint, the signature itself.
  // (Not every byte of a token is signed: CMS carries certificates outside the signature, here even twice.)
  const genuine = Buffer.from(await tsa.stamp(signature), 'base64');
  const genTime = genuine.indexOf(Buffer.from(`${new Date().getUTCFullYear()}`, 'ascii'));
  const imprint = genuine.indexOf(createHash('sha256').update(signature, 'ascii').digest());
  assert.ok(genTime > 0 && imprint > 0);
  for (const [at, what] of [
    [genTime + 3, 'genTime'],
    [imprint + 5, 'imprint'],
    [genuine.length - 20, 'signature'],
  ] as const) {
    const altered = Buffer.from(genuine);
    altered[at] = what === 'genTime' ? altered[at] ^ 0x01 : altered[at] ^ 0x40;
    const result = await verifyRecordBundle(withToken(altered.toString('base64')), pinned);
    assert.not.ok(result.ok, `${what} altered`);
    assert.ok(
      result.problems.some((p) => p.startsWith('timestamp: ')),
      `${what}: ${JSON.stringify(result.problems)}`,
    );
  }
  assert.ok(
    (await verifyRecordBundle(withToken(genuine.toString('base64')), pinned)).ok,
    'the genuine token, made by openssl directly, verifies',
  );
});

stamps('checkpoints are time-stamped on receipt; exported ones verify with their token', async () => {
  const { client } = await finishedJob(server);
  const made = await createCheckpoint(server.deps, client.id);
  assert.ok(made.timestamped);
  const file = await exportCheckpoint(server.deps, client.id);
  const checked = await verifyCheckpointFile(file, { ...(await publishedKeys(server)), tsaCertificates: [tsa.certificateSha256] });
  assert.equal(checked.problems, []);
  assert.is(checked.payload?.seq, made.seq);
  assert.match(checked.timestamp?.tsa ?? '', /Test TSA/);
});

stamps('an unreachable or broken authority never blocks: the bundle comes without a token, the checkpoint is stamped later', async () => {
  const { client, job, operator } = await finishedJob(server);
  for (const mode of ['down', 'garbage', 'forger'] as const) {
    tsa.mode = mode;
    const res = await fetchBundle(server, operator.token!, job.id);
    assert.is(res.status, 200, `${mode}: ${res.text}`);
    const bundle = JSON.parse(res.text);
    // a forger's token verifies as a token but is refused on receipt only when pinned; either way nothing blocks
    if (mode !== 'forger') assert.is(bundle.timestamp, undefined, mode);
  }
  tsa.mode = 'down';
  const made = await createCheckpoint(server.deps, client.id);
  assert.not.ok(made.timestamped);
  const row = (await listCheckpoints(server.deps.db.kysely, client.id)).find((r) => r.id === made.id)!;
  assert.ok(row.timestamp_error, 'the failure is kept');
  tsa.mode = 'ok';
  assert.ok((await retryCheckpointTimestamps(server.deps)) >= 1);
  const after = (await listCheckpoints(server.deps.db.kysely, client.id)).find((r) => r.id === made.id)!;
  assert.ok(after.timestamp_token);
  assert.is(after.timestamp_error, null);
});

stamps.run();
