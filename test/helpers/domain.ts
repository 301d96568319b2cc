import assert from 'node:assert/strict';
import type { TestServer } from './server';
import { buildUser, type BuiltClient } from './factories';
import { gid, gql, withGlobalIds } from './graphql';

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
async function release(
  server: TestServer,
  authorToken: string,
  versionSigner: { token: string | undefined; password: string },
  versionId: number,
) {
  const v = gid('TemplateVersion', versionId);
  ok(
    await gql(server, authorToken, 'mutation($v: ID!) { submitVersion(input: { versionId: $v }) { version { id } } }', { v }),
    'submitVersion',
  );
  const vars = { v, p: versionSigner.password };
  ok(
    await gql(
      server,
      versionSigner.token,
      'mutation($v: ID!, $p: String) { approveVersion(input: { versionId: $v, password: $p }) { version { id } } }',
      vars,
    ),
    'approveVersion',
  );
  ok(
    await gql(
      server,
      versionSigner.token,
      'mutation($v: ID!, $p: String) { publishVersion(input: { versionId: $v, password: $p }) { version { id state } } }',
      vars,
    ),
    'publishVersion',
  );
}

/** The content document as GraphQL's ContentInput: a section's and a step's `id` are its `sectionId` and `stepId`. */
export function contentInput(content: any): any {
  if (!content || !Array.isArray(content.sections)) return content;
  return {
    ...content,
    sections: content.sections.map(({ id, steps, ...section }: any) => ({
      ...section,
      ...(id !== undefined && { sectionId: id }),
      ...(steps !== undefined && {
        steps: steps.map(({ id: stepId, ...step }: any) => ({ ...step, ...(stepId !== undefined && { stepId }) })),
      }),
    })),
  };
}

/**
 * A template whose version 1 is PUBLISHED: created by the client's owner,
 * approved and published by a second user.
 */
export async function publishedTemplate(
  server: TestServer,
  client: BuiltClient,
  content: unknown = SAMPLE_CONTENT,
  title = 'Pump inspection',
) {
  const created = ok(
    await gql(
      server,
      client.owner.token,
      'mutation($i: CreateTemplateInput!) { createTemplate(input: $i) { template { databaseId } version { databaseId } } }',
      {
        i: { title, description: 'test template', tags: [], content: contentInput(content) },
      },
    ),
    'createTemplate',
  );
  const templateId: number = created.createTemplate.template.databaseId;
  const versionId: number = created.createTemplate.version.databaseId;
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
  const draft = ok(
    await gql(server, client.owner.token, 'mutation($t: ID!) { createDraft(input: { templateId: $t }) { version { databaseId } } }', {
      t: gid('Template', template.templateId),
    }),
    'createDraft',
  );
  const versionId: number = draft.createDraft.version.databaseId;
  ok(
    await gql(
      server,
      client.owner.token,
      'mutation($v: ID!, $c: ContentInput!) { updateDraft(input: { versionId: $v, content: $c }) { version { id } } }',
      {
        v: gid('TemplateVersion', versionId),
        c: contentInput(content),
      },
    ),
    'updateDraft',
  );
  await release(server, client.owner.token, template.signer, versionId);
  return versionId;
}

/** An asset of the client (catalogue): its database id. */
export async function createAsset(server: TestServer, token: string, name = 'Pump 7'): Promise<number> {
  const data = ok(
    await gql(server, token, 'mutation($i: CreateAssetInput!) { createAsset(input: $i) { asset { databaseId } } }', {
      i: { name, serialNumber: 'SN-1' },
    }),
    'createAsset',
  );
  return data.createAsset.asset.databaseId;
}

/** A job's fields as the tests read them: `id`s are the database ids (aliased), as REST and the helpers speak them. */
export const JOB_FIELDS =
  'id: databaseId title state priority revision version { id: databaseId number } template { id: databaseId } assignees { id: databaseId }';

/** createJob's input with REST's integer ids (numbers) as global ids. */
export function jobInput(input: Record<string, unknown>): Record<string, unknown> {
  const converted = withGlobalIds(input, { templateId: 'Template', assetId: 'Asset', assigneeIds: 'User' });
  if (Array.isArray(input.stepOwners)) converted.stepOwners = input.stepOwners.map((o: any) => withGlobalIds(o, { userId: 'User' }));
  return converted;
}

/** A job on the template's published version (numbers in `input` are database ids, turned into global ids). */
export async function createJob(server: TestServer, token: string, input: Record<string, unknown>): Promise<any> {
  const data = ok(
    await gql(server, token, `mutation($i: CreateJobInput!) { createJob(input: $i) { job { ${JOB_FIELDS} } } }`, {
      i: jobInput({ title: 'Inspect pump', ...input }),
    }),
    'createJob',
  );
  return data.createJob.job;
}

/** Domain suites build many users (each signs in): sign-in's per-IP budget is no subject here. */
export const DOMAIN_TEST_ENV = { WIP_SIGN_IN_RATE_LIMIT_MAX: '100000' };
