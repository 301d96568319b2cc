import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { DOMAIN_TEST_ENV } from '../helpers/domain';
import { edited, fetchBundle, finishedJob, OTHER_PHOTO, PHOTO, payloadOf, publishedKeys, resigned } from '../helpers/records';
import { verifyRecordBundle } from '#domain/record-verify';
import { rotateApplianceKey } from '#services/signing-keys';
import { createCheckpoint } from '#services/checkpoints';

let server: TestServer;
const bundles = suite('record bundles: GET /api/client/jobs/:id/record-bundle, the published keys, the verifier page');
bundles.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
bundles.after(async () => server.stop());

bundles('a finished job with photos, sign-offs and a fault exports a bundle that verifies against the published keys', async () => {
  const { client, job, operator, files } = await finishedJob(server);
  const res = await fetchBundle(server, operator.token!, job.id);
  assert.is(res.status, 200, res.text);
  assert.match(res.type ?? '', /application\/json/);
  assert.match(res.disposition ?? '', new RegExp(`attachment; filename="job-${job.id}-record.json"`));
  const bundle = JSON.parse(res.text);
  assert.is(bundle.format, 'wip-record-bundle');
  assert.is(bundle.formatVersion, 1);
  assert.is(bundle.attachments, undefined, 'no photos unless asked');
  const payload = payloadOf(bundle);
  assert.equal(
    payload.steps.map((s: any) => [s.stepId, s.status, s.values.map((v: any) => v.value), s.recordedBy.email]),
    [
      ['measure', 'DONE', [25], operator.email],
      ['look', 'DONE', [[files.photo.id]], operator.email],
      ['sign', 'DONE', [files.signature.id], operator.email],
    ],
  );
  assert.equal(
    payload.deviations.map((d: any) => [d.kind, d.fieldKey]),
    [['OUT_OF_LIMITS', 'torque']],
  );
  assert.equal(
    payload.faults.map((f: any) => [f.description, f.photos]),
    [['Seal weeps oil', [files.leak.id]]],
  );
  const photoEntry = payload.files.find((f: any) => f.id === files.photo.id);
  assert.is(photoEntry.sha256, createHash('sha256').update(PHOTO).digest('hex'));
  assert.equal(payload.files.map((f: any) => f.role).sort(), ['fault-photo', 'photo', 'signature']);
  assert.is(payload.client.name, 'Acme Pumps Ltd');
  assert.is(payload.job.state, 'COMPLETED');
  assert.equal(payload.instruction.signatures.map((s: any) => s.meaning).sort(), ['APPROVED', 'PUBLISHED']);
  const actions = payload.audit.entries.filter((e: any) => !e.elided).map((e: any) => e.action);
  assert.ok(actions.includes('job.created') && actions.includes('job.completed') && actions.includes('fault.raised'), actions.join());

  const keys = await publishedKeys(server);
  assert.is(keys.keys.length, 1);
  const verified = await verifyRecordBundle(res.text, keys);
  assert.equal(verified.problems, []);
  assert.ok(verified.ok);
  assert.is(verified.verdict, 'VERIFIED');
  assert.equal(verified.signer, { kid: keys.keys[0].kid, trusted: true });
  assert.equal([verified.summary?.steps, verified.summary?.faults, verified.summary?.files], [3, 1, 3]);

  // the photos themselves, on request: each checked against its hash
  const withPhotos = await fetchBundle(server, client.owner.token, job.id, true);
  assert.is(withPhotos.status, 200, withPhotos.text);
  const attached = JSON.parse(withPhotos.text).attachments;
  assert.is(attached.length, 3);
  assert.ok(Buffer.from(attached.find((a: any) => a.fileId === files.photo.id).data, 'base64').equals(PHOTO));
  const full = await verifyRecordBundle(withPhotos.text, keys);
  assert.equal(full.problems, []);
  assert.is(full.summary?.attachments, 3);
});

bundles('who may not have the bundle: unfinished job 409, another client 404, no session 401', async () => {
  const { job, operator } = await finishedJob(server, { complete: false });
  const open = await fetchBundle(server, operator.token!, job.id);
  assert.is(open.status, 409, open.text);
  assert.is(JSON.parse(open.text).error.code, 'JOB_NOT_FINISHED');
  const other = await buildClient(server);
  assert.is((await fetchBundle(server, other.owner.token, job.id)).status, 404);
  assert.is((await fetchBundle(server, operator.token!, 999_999)).status, 404);
  assert.is((await fetch(`${server.url}/api/client/jobs/${job.id}/record-bundle`)).status, 401);
  const bad = await fetch(`${server.url}/api/client/jobs/${job.id}/record-bundle?photos=maybe`, {
    headers: { authorization: `Bearer ${operator.token}` },
  });
  assert.is(bad.status, 422);
});

bundles('each kind of tampering is caught and named', async () => {
  const { job, operator, files } = await finishedJob(server);
  const text = (await fetchBundle(server, operator.token!, job.id, true)).text;
  const keys = await publishedKeys(server);
  const problems = async (tampered: string) => {
    const result = await verifyRecordBundle(tampered, keys);
    assert.not.ok(result.ok, 'a tampered bundle does not verify');
    return result.problems.join('\n');
  };

  // a value changed in the file
  const value = await problems(edited(text, (p) => (p.steps[0].values[0].value = 15)));
  assert.match(value, /signature does not verify/);
  assert.match(
    value,
    /step "Measure the torque" \(measure\): the recorded values, status or sign-off differ from what audit entry \d+ recorded/,
  );

  // a value changed and the bundle re-signed by a forger: the key and the audit trail both give it away
  const forged = await problems(await resigned(text, (p) => (p.steps[0].values[0].value = 15)));
  assert.match(forged, /not a trusted key of this appliance/);
  assert.match(forged, /differ from what audit entry/);

  // a photo swapped
  const swapped = JSON.parse(text);
  swapped.attachments.find((a: any) => a.fileId === files.photo.id).data = OTHER_PHOTO.toString('base64');
  assert.match(
    await problems(JSON.stringify(swapped)),
    new RegExp(`attachment: photo ${files.photo.id} \\(seal\\.png\\) does not match its hash in the record: the photo was swapped`),
  );

  // the signature stripped
  const stripped = JSON.parse(text);
  delete stripped.jws.signature;
  assert.is(await problems(JSON.stringify(stripped)), 'the bundle is not signed: its JWS signature is missing');
  // an approval signature stripped from the record
  const unapproved = await problems(
    edited(text, (p) => (p.instruction.signatures = p.instruction.signatures.filter((s: any) => s.meaning !== 'APPROVED'))),
  );
  assert.match(unapproved, /the version carries no APPROVED signature: the recorded version is not the approved one/);

  // a chain entry removed
  const removed = await problems(
    edited(text, (p) => {
      p.audit.entries.splice(2, 1);
    }),
  );
  assert.match(removed, /audit: entry \d+ is missing from the chain slice \(entry \d+ follows entry \d+\): entries were removed/);
  // an audit entry edited
  assert.match(
    await problems(edited(text, (p) => (p.audit.entries.find((e: any) => e.action === 'job.completed').actor = 'cli'))),
    /audit: entry \d+ \(job\.completed\) does not match its hash: it was edited/,
  );

  // the version content edited
  const content = await problems(
    edited(text, (p) => {
      p.instruction.content = p.instruction.content.replace('Measure the torque', 'Guess the torque');
    }),
  );
  assert.match(content, /instruction: the version content does not match its hash: the version content was edited/);
  // …and its hash with it: then the approval no longer covers it
  const rehashed = await problems(
    edited(text, (p) => {
      p.instruction.content = p.instruction.content.replace('Measure the torque', 'Guess the torque');
      p.instruction.contentHash = createHash('sha256').update(p.instruction.content).digest('hex');
    }),
  );
  assert.match(rehashed, /the APPROVED signature of .+ signed other content .*: the recorded version is not the approved one/);

  // re-signed with another key, nothing else changed
  const other = await resigned(text);
  assert.match(await problems(other), /signed by key [\w-]{43}, which is not a trusted key of this appliance/);
  // without trusted keys the integrity still holds, and the answer says origin was not checked: never VERIFIED
  const untrusted = await verifyRecordBundle(other);
  assert.equal([untrusted.intact, untrusted.verdict, untrusted.ok], [true, 'INTEGRITY_ONLY', false]);
  assert.is(untrusted.signer?.trusted, null);
  assert.match(untrusted.notes.join('\n'), /no trusted key was given/);
});

bundles('a rotated key still verifies old bundles; new bundles carry the new key', async () => {
  const { job, operator } = await finishedJob(server);
  const before = (await fetchBundle(server, operator.token!, job.id)).text;
  const oldKid = JSON.parse(Buffer.from(JSON.parse(before).jws.protected, 'base64url').toString()).kid;
  const rotated = await rotateApplianceKey(server.deps);
  assert.is.not(rotated.active, oldKid);
  const after = (await fetchBundle(server, operator.token!, job.id)).text;
  const keys = await publishedKeys(server);
  assert.equal(
    keys.keys.map((k: any) => [k.kid, Boolean(k.retiredAt)]).sort(),
    [
      [oldKid, true],
      [rotated.active, false],
    ].sort(),
  );
  for (const [text, kid] of [
    [before, oldKid],
    [after, rotated.active],
  ] as const) {
    const result = await verifyRecordBundle(text, keys);
    assert.equal(result.problems, []);
    assert.equal(result.signer, { kid, trusted: true });
  }
  // the fingerprint alone (what an auditor noted) is enough to trust
  assert.ok((await verifyRecordBundle(after, { fingerprints: [rotated.active] })).ok);
  assert.not.ok((await verifyRecordBundle(before, { fingerprints: [rotated.active] })).ok);
});

bundles('a bundle carries the newest signed checkpoint of the chain, checked by the verifier', async () => {
  const { client, job, operator } = await finishedJob(server);
  const checkpoint = await createCheckpoint(server.deps, client.id);
  const text = (await fetchBundle(server, operator.token!, job.id)).text;
  const payload = payloadOf(JSON.parse(text));
  assert.is(payload.audit.checkpoint.format, 'wip-audit-checkpoint');
  assert.equal(payload.audit.chainHead, { seq: checkpoint.seq, hash: checkpoint.hash });
  const keys = await publishedKeys(server);
  const result = await verifyRecordBundle(text, keys);
  assert.equal(result.problems, []);
  assert.match(result.notes.join('\n'), new RegExp(`carries the checkpoint of .+ \\(entry ${checkpoint.seq}`));
  // a checkpoint that does not match the chain the bundle claims
  const broken = await verifyRecordBundle(
    edited(text, (p) => {
      p.audit.chainHead.seq = checkpoint.seq - 1;
      p.audit.entries = p.audit.entries.filter((e: any) => e.seq < checkpoint.seq);
    }),
    keys,
  );
  assert.match(broken.problems.join('\n'), /beyond the chain head the record claims .*: the chain was cut short/);
});

bundles('GraphQL: exportRecordBundle signs the same bundle for the floor app; signingKeys lists the fingerprints', async () => {
  const { job, operator } = await finishedJob(server);
  const result = await gql(
    server,
    operator.token,
    'mutation($i: ExportRecordBundleInput!) { exportRecordBundle(input: $i) { bundle { fileName content keyFingerprint downloadPath } } }',
    {
      i: { jobId: `Job:${job.id}` },
    },
  );
  assert.equal(result.codes, [], JSON.stringify(result.errors));
  const bundle = result.data.exportRecordBundle.bundle;
  assert.is(bundle.fileName, `job-${job.id}-record.json`);
  assert.is(bundle.downloadPath, `/api/client/jobs/${job.id}/record-bundle`);
  const keys = await publishedKeys(server);
  const verified = await verifyRecordBundle(bundle.content, keys);
  assert.equal(verified.problems, []);
  assert.is(verified.signer?.kid, bundle.keyFingerprint);
  const listed = await gql(server, operator.token, '{ signingKeys { fingerprint active createdAt retiredAt } }');
  assert.equal(listed.codes, []);
  assert.is(listed.data.signingKeys[0].active, true);
  assert.is(listed.data.signingKeys[0].fingerprint, bundle.keyFingerprint);
  const { job: open, operator: other } = await finishedJob(server, { complete: false });
  const refused = await gql(
    server,
    other.token,
    'mutation($i: ExportRecordBundleInput!) { exportRecordBundle(input: $i) { bundle { fileName } } }',
    { i: { jobId: `Job:${open.id}` } },
  );
  assert.equal(refused.codes, ['JOB_NOT_FINISHED']);
});

bundles(
  'the keys are published without a session; the verifier page is served under the strict CSP and as one downloadable file',
  async () => {
    const keys = await publishedKeys(server);
    for (const key of keys.keys) {
      assert.equal([key.kty, key.crv, key.alg, key.use], ['OKP', 'Ed25519', 'EdDSA', 'sig']);
      assert.is(key.d, undefined, 'never the private key');
    }
    const page = await fetch(`${server.url}/verify/`);
    assert.is(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    const html = await page.text();
    assert.match(html, /<script type="module" src="\/console\/verify-[\w-]+\.js"><\/script>/);
    assert.not.match(html, /<script type="module">/, 'no inline script on the served page');
    const download = await fetch(`${server.url}/verify/wip-verifier.html`);
    assert.is(download.status, 200);
    assert.match(download.headers.get('content-disposition') ?? '', /attachment; filename="wip-verifier.html"/);
    const file = await download.text();
    assert.match(file, /<script type="module">/);
    assert.not.match(file, /src="\/console\//, 'self-contained: nothing to fetch');
    assert.is((await fetch(`${server.url}/console/verify.html`)).status, 404);
  },
);

bundles.run();
