import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { createJob, publishedTemplate, DOMAIN_TEST_ENV } from '../helpers/domain';
import { download, unzip } from '../helpers/zip';
import { pdfText } from '../helpers/pdf';

/**
 * The job PDF and the zipped job report show the execution rules' outcome
 * (docs/execution-rules.md): step sign-offs (name, meaning, date and time,
 * invalidated ones marked), steps that do not apply, calculated values and
 * the ones that could not be computed.
 */

let server: TestServer;
const reports = suite('Job PDF and report: sign-offs, conditions, calculated values');
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
        { id: 'seal', title: 'Check the seal', fields: [{ key: 'ok', type: 'PASS_FAIL', required: true }] },
        { id: 'replace', title: 'Replace the seal', when: { step: 'seal', field: 'ok', op: 'eq', value: 'FAIL' }, fields: [] },
        {
          id: 'pressure',
          title: 'Pressure test',
          signoff: { performer: true, verifier: { roles: ['approver'] } },
          fields: [
            { key: 'p_in', type: 'NUMBER' },
            { key: 'p_out', type: 'NUMBER' },
            { key: 'ratio', label: 'Ratio', type: 'CALCULATED', expression: 'p_out / p_in' },
          ],
        },
      ],
    },
  ],
};

reports('the job PDF and report ZIP show sign-offs, steps that do not apply and values not computed', async () => {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const template = await publishedTemplate(server, client, CONTENT, 'Seal and pressure');
  const op = await buildUser(server, client, { roles: ['operator'] });
  const checker = await buildUser(server, client, { roles: ['approver'] });
  const job = await createJob(server, client.owner.token, { templateId: template.templateId });
  const jobId = `Job:${job.id}`;
  const record = (stepId: string, values: unknown[]) =>
    gql(server, op.token, 'mutation($i: RecordStepInput!) { recordStep(input: $i) { revision } }', {
      i: { jobId, stepId, status: 'DONE', values },
    });
  const sign = (who: { token: string | undefined; password: string }, meaning: string) =>
    gql(server, who.token, 'mutation($i: SignStepInput!) { signStep(input: $i) { signature { meaning } } }', {
      i: { jobId, stepId: 'pressure', meaning, password: who.password },
    });
  assert.equal((await record('seal', [{ key: 'ok', value: 'PASS' }])).codes, []);
  assert.equal(
    (
      await record('pressure', [
        { key: 'p_in', value: 0 },
        { key: 'p_out', value: 2 },
      ])
    ).codes,
    [],
  );
  assert.equal((await sign(op, 'PERFORMED')).codes, []);
  // re-recorded: the first PERFORMED is invalidated, then both sign
  assert.equal(
    (
      await record('pressure', [
        { key: 'p_in', value: 0 },
        { key: 'p_out', value: 3 },
      ])
    ).codes,
    [],
  );
  assert.equal((await sign(op, 'PERFORMED')).codes, []);
  assert.equal((await sign(checker, 'VERIFIED')).codes, []);

  const res = await download(`${server.url}/api/client/download-zipped-job-report/${job.id}`, client.owner.token);
  assert.is(res.status, 200, res.text);
  const entries = await unzip(res.bytes);
  const text = (await pdfText(entries.get(`job-${job.id}.pdf`)!)).text;
  const flat = text.replace(/\s+/g, ' ');
  assert.ok(flat.includes('Does not apply'), flat);
  assert.ok(flat.includes('PERFORMED') && flat.includes('VERIFIED'), flat);
  assert.ok(flat.includes('invalidated'), flat);
  assert.ok(flat.includes('division by zero'), flat);
  const signoffs = JSON.parse(entries.get('signoffs.json')!.toString('utf8')).signoffs;
  // oldest first: the PERFORMED invalidated by re-recording, then the two that count
  assert.equal(
    signoffs.map((s: { meaning: string; invalidatedAt: string | null; stepTitle: string }) => [
      s.stepTitle,
      s.meaning,
      s.invalidatedAt === null ? 'valid' : 'invalidated',
    ]),
    [
      ['Pressure test', 'PERFORMED', 'invalidated'],
      ['Pressure test', 'PERFORMED', 'valid'],
      ['Pressure test', 'VERIFIED', 'valid'],
    ],
  );
  for (const s of signoffs) assert.match(s.signedAt, /^\d{4}-\d\d-\d\dT/);
});

reports.run();
