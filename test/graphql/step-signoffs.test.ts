import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser, type BuiltClient } from '../helpers/factories';
import { gid, gql } from '../helpers/graphql';
import { createJob, publishedTemplate, publishNewVersion, DOMAIN_TEST_ENV } from '../helpers/domain';
import { SIGNOFF_CONTENT } from '../helpers/templates';

/**
 * Step sign-offs (docs/execution-rules.md): PERFORMED and VERIFIED
 * e-signatures, separation of duties, invalidation by re-recording, and
 * completion held by SIGNOFF_MISSING; the version diff naming changed rules.
 */

let server: TestServer;
const signoffs = suite('GraphQL step sign-offs');
signoffs.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
signoffs.after(async () => server.stop());

const CONTENT = SIGNOFF_CONTENT;

const SIGN = `mutation($i: SignStepInput!) { signStep(input: $i) { signature { stepId meaning signerName signedAt valuesHash invalidatedAt signer { databaseId } } job { signoffs { stepId meaning invalidatedAt } } } }`;
const RECORD = 'mutation($i: RecordStepInput!) { recordStep(input: $i) { job { state } } }';
const COMPLETE = 'mutation($j: ID!) { completeJob(input: { jobId: $j }) { job { state } } }';

type Person = { id: number; token: string; password: string };

async function setup(): Promise<{
  client: BuiltClient;
  jobId: string;
  operator: Person;
  checker: Person;
  both: Person;
  template: Awaited<ReturnType<typeof publishedTemplate>>;
}> {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const template = await publishedTemplate(server, client, CONTENT, 'Torque');
  const job = await createJob(server, client.owner.token, { templateId: template.templateId });
  const person = async (roles: string[]) => {
    const u = await buildUser(server, client, { roles });
    return { id: u.id, token: u.token!, password: u.password };
  };
  return {
    client,
    template,
    jobId: gid('Job', job.id),
    operator: await person(['operator']),
    checker: await person(['approver']),
    both: await person(['operator', 'approver']),
  };
}

const sign = (who: Person, jobId: string, meaning: string, password = who.password) =>
  gql(server, who.token, SIGN, { i: { jobId, stepId: 'torque', meaning, password } });
const record = (who: Person, jobId: string, nm: number) =>
  gql(server, who.token, RECORD, { i: { jobId, stepId: 'torque', status: 'DONE', values: [{ key: 'nm', value: nm }] } });

signoffs('the step reads back its signoff; completion waits for PERFORMED and VERIFIED (SIGNOFF_MISSING)', async () => {
  const { client, jobId, operator, checker } = await setup();
  const read = await gql(
    server,
    client.owner.token,
    'query($id: ID!) { job(id: $id) { version { content { sections { steps { stepId signoff { performer verifier { roles } } } } } } } }',
    { id: jobId },
  );
  assert.equal(read.codes, [], JSON.stringify(read.errors));
  assert.equal(
    read.data.job.version.content.sections[0].steps.map((s: { signoff: unknown }) => s.signoff),
    [{ performer: true, verifier: { roles: ['approver'] } }, null],
  );
  assert.equal((await record(operator, jobId, 42)).codes, []);
  const blocked = await gql(server, client.owner.token, COMPLETE, { j: jobId });
  assert.equal(blocked.codes, ['SIGNOFF_MISSING']);
  assert.equal(blocked.errors![0].extensions!.details.missing, [
    { stepId: 'torque', meaning: 'PERFORMED' },
    { stepId: 'torque', meaning: 'VERIFIED' },
  ]);
  assert.equal(blocked.errors![0].extensions!.details.steps, ['torque']);
  const performed = await sign(operator, jobId, 'PERFORMED');
  assert.equal(performed.codes, [], JSON.stringify(performed.errors));
  const signature = performed.data.signStep.signature;
  assert.is(signature.meaning, 'PERFORMED');
  assert.is(signature.signer.databaseId, operator.id);
  assert.ok(signature.signerName.length > 0);
  assert.match(signature.valuesHash, /^[0-9a-f]{64}$/);
  assert.is(signature.invalidatedAt, null);
  assert.equal((await gql(server, client.owner.token, COMPLETE, { j: jobId })).errors![0].extensions!.details.missing, [
    { stepId: 'torque', meaning: 'VERIFIED' },
  ]);
  const verified = await sign(checker, jobId, 'VERIFIED');
  assert.equal(verified.codes, [], JSON.stringify(verified.errors));
  assert.equal(
    verified.data.signStep.job.signoffs.map((s: { meaning: string }) => s.meaning),
    ['PERFORMED', 'VERIFIED'],
  );
  const done = await gql(server, client.owner.token, COMPLETE, { j: jobId });
  assert.equal(done.codes, [], JSON.stringify(done.errors));
  assert.is(done.data.completeJob.job.state, 'COMPLETED');
});

signoffs('the performer may not verify; re-recording invalidates the signatures and the step needs signing again', async () => {
  const { client, jobId, operator, checker, both } = await setup();
  assert.equal((await record(operator, jobId, 40)).codes, []);
  assert.equal((await sign(both, jobId, 'PERFORMED')).codes, []);
  assert.equal((await sign(both, jobId, 'VERIFIED')).codes, ['SEPARATION_OF_DUTIES']);
  assert.equal((await sign(checker, jobId, 'VERIFIED')).codes, []);
  assert.equal((await record(operator, jobId, 41)).codes, []);
  const read = await gql(server, client.owner.token, 'query($id: ID!) { job(id: $id) { signoffs { meaning invalidatedAt } } }', {
    id: jobId,
  });
  assert.equal(
    read.data.job.signoffs.map((s: { invalidatedAt: string | null }) => s.invalidatedAt !== null),
    [true, true],
  );
  const blocked = await gql(server, client.owner.token, COMPLETE, { j: jobId });
  assert.equal(blocked.codes, ['SIGNOFF_MISSING']);
  assert.equal(blocked.errors![0].extensions!.details.missing.length, 2);
  assert.equal((await sign(both, jobId, 'PERFORMED')).codes, []);
});

signoffs('the version diff names changed conditions, expressions and sign-offs', async () => {
  const { client, template } = await setup();
  const next = {
    sections: [
      {
        id: 'main',
        title: 'Main',
        when: { step: 'pre', status: 'DONE' },
        steps: [
          {
            id: 'torque',
            title: 'Torque the bolts',
            fields: [
              { key: 'nm', type: 'NUMBER', required: true },
              { key: 'c', type: 'CALCULATED', expression: 'nm * 2' },
            ],
            signoff: { performer: true },
          },
          { id: 'close', title: 'Close the cover', fields: [], when: { step: 'torque', field: 'nm', op: 'gt', value: 10 } },
        ],
      },
    ],
  };
  // a section may only read earlier steps: put a first section before it
  const withPre = { sections: [{ id: 'pre-s', title: 'Before', steps: [{ id: 'pre', title: 'Prepare', fields: [] }] }, ...next.sections] };
  const v2 = await publishNewVersion(server, client, template, withPre);
  const diff = await gql(
    server,
    client.owner.token,
    'query($a: ID!, $b: ID!) { versionDiff(fromVersionId: $a, toVersionId: $b) { changed { stepId changedFields } } }',
    {
      a: gid('TemplateVersion', template.versionId),
      b: gid('TemplateVersion', v2),
    },
  );
  assert.equal(diff.codes, [], JSON.stringify(diff.errors));
  const changed = Object.fromEntries(
    diff.data.versionDiff.changed.map((c: { stepId: string; changedFields: string[] }) => [c.stepId, c.changedFields]),
  );
  assert.equal(changed.torque, ['signoff', 'fields.c', 'section.when']);
  assert.equal(changed.close, ['when', 'section.when']);
});

signoffs.run();
