import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser } from '../helpers/factories';
import { gid, gql } from '../helpers/graphql';
import { createJob, publishedTemplate, DOMAIN_TEST_ENV } from '../helpers/domain';
import { edited, fetchBundle, payloadOf, publishedKeys, resigned } from '../helpers/records';
import { verifyRecordBundle } from '#domain/record-verify';
import { stepValuesHash } from '#lib/step-values-hash';
import { SIGNOFF_CONTENT } from '../helpers/templates';

/**
 * Step sign-offs in record bundles: the bundle carries
 * every sign-off, the invalidated ones flagged; the verifier recomputes each
 * valid one's values hash with the server's function and requires the ones
 * the version asks for, naming what is wrong.
 */

let server: TestServer;
const bundles = suite('record bundles: step sign-offs');
bundles.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
bundles.after(async () => server.stop());

const CONTENT = SIGNOFF_CONTENT;

const SIGN = 'mutation($i: SignStepInput!) { signStep(input: $i) { signature { valuesHash } } }';
const RECORD = 'mutation($i: RecordStepInput!) { recordStep(input: $i) { job { state } } }';
const COMPLETE = 'mutation($j: ID!) { completeJob(input: { jobId: $j }) { job { state } } }';

/** A job whose step is performed, re-recorded (voiding the first PERFORMED), signed again, verified, completed. */
async function signedJob() {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const template = await publishedTemplate(server, client, CONTENT, 'Torque');
  const job = await createJob(server, client.owner.token, { templateId: template.templateId });
  const jobId = gid('Job', job.id);
  const operator = await buildUser(server, client, { roles: ['operator'] });
  const checker = await buildUser(server, client, { roles: ['approver'] });
  const ok = async (token: string, query: string, variables: Record<string, unknown>) => {
    const res = await gql(server, token, query, variables);
    assert.equal(res.codes, [], JSON.stringify(res.errors));
    return res.data;
  };
  const record = (nm: number) =>
    ok(operator.token!, RECORD, { i: { jobId, stepId: 'torque', status: 'DONE', values: [{ key: 'nm', value: nm }] } });
  const sign = (who: { token?: string; password: string }, meaning: string) =>
    ok(who.token!, SIGN, { i: { jobId, stepId: 'torque', meaning, password: who.password } });
  await record(41);
  await sign(operator, 'PERFORMED');
  await record(42); // voids the PERFORMED sign-off over 41
  const performed = await sign(operator, 'PERFORMED');
  await sign(checker, 'VERIFIED');
  await ok(operator.token!, RECORD, { i: { jobId, stepId: 'close', status: 'DONE', values: [] } });
  await ok(client.owner.token, COMPLETE, { j: jobId });
  return { job, operator, checker, valuesHash: performed.signStep.signature.valuesHash as string };
}

bundles('a bundle of a job with step sign-offs carries them all and verifies', async () => {
  const { job, operator, checker, valuesHash } = await signedJob();
  const res = await fetchBundle(server, operator.token!, job.id);
  assert.is(res.status, 200, res.text);
  const payload = payloadOf(JSON.parse(res.text));
  assert.equal(
    payload.signoffs.map((s: any) => [s.stepId, s.meaning, s.signer.email, s.invalidatedAt === null]),
    [
      ['torque', 'PERFORMED', operator.email, false],
      ['torque', 'PERFORMED', operator.email, true],
      ['torque', 'VERIFIED', checker.email, true],
    ],
  );
  // the server's hash is the shared function's over the bundle's values of the step
  const step = payload.steps.find((s: any) => s.stepId === 'torque');
  assert.is(await stepValuesHash(step), valuesHash);
  assert.is(payload.signoffs[2].valuesHash, valuesHash);
  assert.is.not(payload.signoffs[0].valuesHash, valuesHash, 'the voided sign-off signed the earlier values');

  const verified = await verifyRecordBundle(res.text, await publishedKeys(server));
  assert.equal(verified.problems, []);
  assert.ok(verified.ok);
  assert.is(verified.summary?.signoffs, 3);
  assert.ok(
    verified.notes.some((n) => /sign-offs: 2 valid sign-off\(s\) match the recorded values \(1 invalidated/.test(n)),
    verified.notes.join('\n'),
  );
});

bundles('a sign-off stripped, a value changed under a sign-off, a sign-off hash altered: each caught and named', async () => {
  const { job, operator } = await signedJob();
  const text = (await fetchBundle(server, operator.token!, job.id)).text;
  const keys = await publishedKeys(server);
  const problems = async (tampered: string, trusted: typeof keys | undefined = keys) => {
    const result = await verifyRecordBundle(tampered, trusted);
    assert.not.ok(result.ok, 'a tampered bundle does not verify');
    return result.problems.join('\n');
  };

  // re-signed by a forger and checked for integrity only (no trusted key): the sign-off checks alone catch it
  const stripped = await problems(
    await resigned(text, (p) => (p.signoffs = p.signoffs.filter((s: any) => s.meaning !== 'VERIFIED'))),
    undefined,
  );
  assert.match(
    stripped,
    /step "Torque the bolts" \(torque\): the version requires a VERIFIED sign-off by another person holding approver; the record carries none: a sign-off was removed/,
  );
  assert.match(
    stripped,
    /step "Torque the bolts" \(torque\): audit entry \d+ records a VERIFIED sign-off of .+ over values [0-9a-f]{16}… that the record does not carry: a sign-off was stripped/,
  );

  // only the voided PERFORMED left: named as invalidated
  const voided = await problems(
    edited(text, (p) => (p.signoffs = p.signoffs.filter((s: any) => s.meaning !== 'PERFORMED' || s.invalidatedAt !== null))),
  );
  assert.match(voided, /requires a PERFORMED sign-off by the person who performed it; the record carries only invalidated ones \(/);

  // a value changed under the sign-offs, re-signed: each sign-off names the mismatch (the audit check adds its own)
  const changed = await problems(
    await resigned(text, (p) => {
      p.steps.find((s: any) => s.stepId === 'torque').values[0].value = 40;
    }),
    undefined,
  );
  assert.match(
    changed,
    /step "Torque the bolts" \(torque\): the PERFORMED sign-off of .+ <.+> \(.+\) signed values hashing to [0-9a-f]{16}…, the record's values of the step hash to [0-9a-f]{16}…: the values were changed after signing/,
  );
  assert.match(changed, /the VERIFIED sign-off of .+ signed values hashing to/);

  // a sign-off's hash altered to match changed values: the audit chain still has the signed one
  const altered = await problems(
    edited(text, (p) => (p.signoffs.find((s: any) => s.meaning === 'VERIFIED').valuesHash = 'a'.repeat(64))),
    undefined,
  );
  assert.match(altered, /the VERIFIED sign-off of .+ signed values hashing to aaaaaaaaaaaaaaaa…/);
  assert.match(
    altered,
    /audit entry \d+ records a VERIFIED sign-off .+ that the record does not carry: a sign-off was stripped or altered/,
  );
  assert.match(
    altered,
    /the VERIFIED sign-off of .+ over values aaaaaaaaaaaaaaaa… is not in the audit chain: the sign-off was added or altered/,
  );
});

bundles('a bundle made before sign-offs were bundled (no signoffs) still verifies; one whose version requires them does not', async () => {
  const plainClient = await buildClient(server);
  const template = await publishedTemplate(
    server,
    plainClient,
    { sections: [{ id: 's', title: 'S', steps: [{ id: 'look', title: 'Look', fields: [] }] }] },
    'Plain',
  );
  const job = await createJob(server, plainClient.owner.token, { templateId: template.templateId });
  const jobId = gid('Job', job.id);
  assert.equal(
    (await gql(server, plainClient.owner.token, RECORD, { i: { jobId, stepId: 'look', status: 'DONE', values: [] } })).codes,
    [],
  );
  assert.equal((await gql(server, plainClient.owner.token, COMPLETE, { j: jobId })).codes, []);
  const text = (await fetchBundle(server, plainClient.owner.token, job.id)).text;
  // an older bundle: the same record without the field, signed (integrity checked with the key it carries)
  const older = await verifyRecordBundle(await resigned(text, (p) => delete p.signoffs));
  assert.equal(older.problems, []);
  assert.ok(older.notes.some((n) => /made before step sign-offs were recorded in bundles/.test(n)));

  const signed = await signedJob();
  const withoutField = await verifyRecordBundle(
    await resigned((await fetchBundle(server, signed.operator.token!, signed.job.id)).text, (p) => delete p.signoffs),
  );
  assert.not.ok(withoutField.ok);
  assert.match(
    withoutField.problems.join('\n'),
    /requires a PERFORMED sign-off .*; the record carries none[\s\S]*requires a VERIFIED sign-off .*; the record carries none/,
  );
});

bundles.run();
