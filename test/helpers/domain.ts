import assert from 'node:assert/strict';
import type { TestServer } from './server';
import { buildUser, type BuiltClient } from './factories';
import { gql } from './graphql';

/** A small content document with every kind of field a job test needs (stable step ids). */
export const SAMPLE_CONTENT = {
  sections: [
    {
      id: 'prep',
      title: 'Preparation',
      steps: [
        {
          id: 'measure',
          title: 'Measure the torque',
          fields: [
            { key: 'torque', label: 'Torque', type: 'NUMBER', required: true, unit: 'Nm', min: 10, max: 20 },
            { key: 'note', label: 'Note', type: 'TEXT' },
          ],
        },
        {
          id: 'check',
          title: 'Check the seal',
          fields: [
            { key: 'sealOk', label: 'Seal intact', type: 'PASS_FAIL', required: true },
            { key: 'colour', label: 'Colour', type: 'CHOICE', options: ['red', 'green'] },
          ],
        },
        { id: 'photo', title: 'Photograph the result', fields: [{ key: 'picture', label: 'Photo', type: 'PHOTO', required: true }] },
      ],
    },
  ],
};

function ok<T = any>(result: { data: any; errors?: unknown; codes: string[] }, what: string): T {
  assert.deepEqual(result.codes, [], `${what}: ${JSON.stringify(result.errors)}`);
  return result.data;
}

/** Someone other than the author who approves and publishes (separation of duties). */
async function signer(server: TestServer, client: BuiltClient) {
  return buildUser(server, client, { roles: ['approver', 'publisher'] });
}

/** submit (author) → approve → publish (a second user, e-signing with their password). */
async function release(server: TestServer, authorToken: string, versionSigner: { token: string | undefined; password: string }, versionId: number) {
  ok(await gql(server, authorToken, 'mutation($v: Int!) { submitVersion(versionId: $v) { id } }', { v: versionId }), 'submitVersion');
  const vars = { v: versionId, p: versionSigner.password };
  ok(await gql(server, versionSigner.token!, 'mutation($v: Int!, $p: String) { approveVersion(versionId: $v, password: $p) { id } }', vars), 'approveVersion');
  ok(await gql(server, versionSigner.token!, 'mutation($v: Int!, $p: String) { publishVersion(versionId: $v, password: $p) { id state } }', vars), 'publishVersion');
}

/**
 * A template whose version 1 is PUBLISHED: created by the client's owner,
 * approved and published by a second user.
 */
export async function publishedTemplate(server: TestServer, client: BuiltClient, content: unknown = SAMPLE_CONTENT, title = 'Pump inspection') {
  const created = ok(
    await gql(server, client.owner.token, 'mutation($i: CreateTemplateInput!) { createTemplate(input: $i) { id latestVersion { id } } }', {
      i: { title, description: 'test template', tags: [], content },
    }),
    'createTemplate',
  );
  const templateId: number = created.createTemplate.id;
  const versionId: number = created.createTemplate.latestVersion.id;
  const versionSigner = await signer(server, client);
  await release(server, client.owner.token, versionSigner, versionId);
  return { templateId, versionId, signer: versionSigner };
}

/** Publishes a new version of the template (draft → published), retiring the previous one. */
export async function publishNewVersion(
  server: TestServer,
  client: BuiltClient,
  template: { templateId: number; signer: { token: string | undefined; password: string } },
  content: unknown = SAMPLE_CONTENT,
): Promise<number> {
  const draft = ok(await gql(server, client.owner.token, 'mutation($t: Int!) { createDraft(templateId: $t) { id } }', { t: template.templateId }), 'createDraft');
  const versionId: number = draft.createDraft.id;
  ok(await gql(server, client.owner.token, 'mutation($v: Int!, $c: ContentInput!) { updateDraft(versionId: $v, content: $c) { id } }', { v: versionId, c: content }), 'updateDraft');
  await release(server, client.owner.token, template.signer, versionId);
  return versionId;
}

/** An asset of the client (catalogue). */
export async function createAsset(server: TestServer, token: string, name = 'Pump 7'): Promise<number> {
  const data = ok(await gql(server, token, 'mutation($i: CreateAssetInput!) { createAsset(input: $i) { id } }', { i: { name, serialNumber: 'SN-1' } }), 'createAsset');
  return data.createAsset.id;
}

export const JOB_FIELDS = 'id title state priority revision version { id number } template { id } assignees { id }';

/** A job on the template's published version. */
export async function createJob(server: TestServer, token: string, input: Record<string, unknown>): Promise<any> {
  const data = ok(await gql(server, token, `mutation($i: CreateJobInput!) { createJob(input: $i) { ${JOB_FIELDS} } }`, { i: { title: 'Inspect pump', ...input } }), 'createJob');
  return data.createJob;
}

/** Domain suites build many users (each signs in): sign-in's per-IP budget is no subject here. */
export const DOMAIN_TEST_ENV = { WIP_SIGN_IN_RATE_LIMIT_MAX: '100000' };
