import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser } from '../helpers/factories';
import { gid, gql } from '../helpers/graphql';
import { createJob, publishedTemplate, DOMAIN_TEST_ENV } from '../helpers/domain';
import { download, unzip } from '../helpers/zip';
import { pdfText } from '../helpers/pdf';
import { fetchBundle, payloadOf, publishedKeys } from '../helpers/records';
import { verifyRecordBundle } from '#domain/record-verify';

/**
 * A reviewed job's renderings show its deviations and the review signature
 * (docs/execution-rules.md): the job PDF (kind, step title, value, comment,
 * acknowledged by; the REVIEWED signature), the zipped report's
 * deviations.json, and the record bundle, which still verifies.
 */

let server: TestServer;
const reports = suite('Job PDF, report and record bundle: deviations and the review');
reports.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
reports.after(async () => server.stop());

const CONTENT = {
  sections: [
    {
      id: 'main',
      title: 'Main',
      steps: [
        { id: 'pressure', title: 'Pressure test', fields: [{ key: 'bar', type: 'NUMBER', unit: 'bar', min: 1, max: 2 }] },
        { id: 'paint', title: 'Touch up the paint', allowNotApplicable: true, fields: [] },
      ],
    },
  ],
};

reports('the PDF, the report ZIP and the record bundle carry the deviations, their acknowledgements and the review', async () => {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const template = await publishedTemplate(server, client, CONTENT, 'Pressure');
  const operator = await buildUser(server, client, { roles: ['operator'] });
  const reviewer = await buildUser(server, client, { roles: ['approver'], email: `qa${Date.now() % 100000}@x.io` });
  const job = await createJob(server, client.owner.token, { templateId: template.templateId });
  const jobId = gid('Job', job.id);
  const ok = async (token: string, query: string, variables: Record<string, unknown>) => {
    const res = await gql(server, token, query, variables);
    assert.equal(res.codes, [], JSON.stringify(res.errors));
    return res.data;
  };
  await ok(operator.token!, 'mutation($i: RecordStepInput!) { recordStep(input: $i) { revision } }', {
    i: { jobId, stepId: 'pressure', status: 'DONE', values: [{ key: 'bar', value: 2.7 }], comment: 'Gauge reads high' },
  });
  await ok(operator.token!, 'mutation($i: MarkStepNotApplicableInput!) { markStepNotApplicable(input: $i) { job { state } } }', {
    i: { jobId, stepId: 'paint', reason: 'Paint is intact' },
  });
  await ok(operator.token!, 'mutation($j: ID!) { completeJob(input: { jobId: $j }) { job { state } } }', { j: jobId });
  const open = await ok(reviewer.token!, 'query($j: ID!) { deviations(filter: { jobId: $j, reviewed: false }) { nodes { id } } }', {
    j: jobId,
  });
  for (const d of open.deviations.nodes)
    await ok(reviewer.token!, 'mutation($i: AcknowledgeDeviationInput!) { acknowledgeDeviation(input: $i) { deviation { id } } }', {
      i: { deviationId: d.id, comment: 'Recalibration booked' },
    });
  const reviewed = await ok(reviewer.token!, 'mutation($i: ReviewJobInput!) { reviewJob(input: $i) { review { signerName } } }', {
    i: { jobId, password: reviewer.password, comment: 'Released' },
  });
  const signerName: string = reviewed.reviewJob.review.signerName;

  const pdf = await download(`${server.url}/api/client/get-as-pdf/getJobHistoryAsPdf/${job.id}`, client.owner.token);
  assert.is(pdf.status, 200, pdf.text);
  const flat = (await pdfText(pdf.bytes)).text;
  assert.ok(flat.includes('State REVIEWED') || flat.includes('REVIEWED'), flat);
  for (const expected of [
    'Deviations',
    'Out of limits',
    'Marked not applicable',
    'Pressure test',
    'bar = 2.7',
    'Paint is intact',
    'Recalibration booked',
    'Review',
    'Released',
    signerName,
  ]) {
    assert.ok(flat.includes(expected), `the PDF shows "${expected}": ${flat}`);
  }

  const zip = await download(`${server.url}/api/client/download-zipped-job-report/${job.id}`, client.owner.token);
  assert.is(zip.status, 200, zip.text);
  const entries = await unzip(zip.bytes);
  const doc = JSON.parse(entries.get('deviations.json')!.toString('utf8'));
  assert.equal(
    doc.deviations.map((d: any) => [d.kind, d.stepTitle, d.value, d.comment, d.acknowledgedBy]),
    [
      ['OUT_OF_LIMITS', 'Pressure test', 2.7, 'Recalibration booked', signerName],
      ['NOT_APPLICABLE', 'Touch up the paint', null, 'Recalibration booked', signerName],
    ],
  );
  assert.is(doc.review.meaning, 'REVIEWED');
  assert.is(doc.review.signerName, signerName);
  assert.is(doc.review.comment, 'Released');
  assert.ok((await pdfText(entries.get(`job-${job.id}.pdf`)!)).text.includes('Recalibration booked'));

  const bundle = await fetchBundle(server, operator.token!, job.id);
  assert.is(bundle.status, 200, bundle.text);
  const payload = payloadOf(JSON.parse(bundle.text));
  assert.equal(
    payload.recordedDeviations.map((d: any) => [d.kind, d.stepId, d.comment]),
    [
      ['OUT_OF_LIMITS', 'pressure', 'Recalibration booked'],
      ['NOT_APPLICABLE', 'paint', 'Recalibration booked'],
    ],
  );
  assert.is(payload.review.signer.email, reviewer.email);
  assert.is(payload.job.state, 'REVIEWED');
  const verified = await verifyRecordBundle(bundle.text, await publishedKeys(server));
  assert.equal(verified.problems, []);
  assert.ok(verified.ok);
});

reports.run();
