import assert from 'node:assert/strict';
import type { TestServer } from './server';
import { gql, type GraphQLResult } from './graphql';
import { buildUser, PASSWORD, type BuiltClient } from './factories';

// Templates through GraphQL, as a client app drives them.

export const VERSION_FIELDS = `id number state contentHash createdBy { id } updatedBy { id } rejectReason
  signatures { signer { id } signerName meaning signedAt contentHash }
  content { sections { id title steps { id title body fields { key label type required unit min max options } } } }`;

export const SAMPLE_CONTENT = {
  sections: [
    {
      title: 'Preparation',
      steps: [
        { id: 'isolate', title: 'Isolate the pump', body: 'Lock out **both** breakers.', fields: [{ key: 'locked', type: 'PASS_FAIL', required: true }] },
        { id: 'pressure', title: 'Read the pressure', fields: [{ key: 'bar', type: 'NUMBER', unit: 'bar', min: 1, max: 3, required: true }] },
      ],
    },
  ],
};

export interface Users {
  author: { id: number; token: string; email: string };
  approver: { id: number; token: string; email: string };
  publisher: { id: number; token: string; email: string };
}

/** An author, an approver and a publisher of the client, signed in. */
export async function buildTeam(server: TestServer, client: BuiltClient): Promise<Users> {
  const made = async (role: string) => {
    const user = await buildUser(server, client, { roles: [role] });
    return { id: user.id, email: user.email, token: user.token! };
  };
  return { author: await made('author'), approver: await made('approver'), publisher: await made('publisher') };
}

export function ok<T = any>(result: GraphQLResult<T>): T {
  assert.equal(result.errors, undefined, JSON.stringify(result.body));
  return result.data as T;
}

export async function createTemplate(server: TestServer, token: string, input: Record<string, unknown> = {}) {
  const result = await gql(
    server,
    token,
    `mutation ($input: CreateTemplateInput!) { createTemplate(input: $input) { id title tags latestVersion { id number state } } }`,
    { input: { title: 'Pump maintenance', description: 'Quarterly', tags: ['pump'], content: SAMPLE_CONTENT, ...input } },
  );
  return ok(result).createTemplate as { id: number; title: string; latestVersion: { id: number; number: number; state: string } };
}

export const SUBMIT = `mutation ($id: Int!) { submitVersion(versionId: $id) { id state } }`;
export const REJECT = `mutation ($id: Int!, $reason: String!) { rejectVersion(versionId: $id, reason: $reason) { id state rejectReason } }`;
export const APPROVE = `mutation ($id: Int!, $password: String, $code: String) { approveVersion(versionId: $id, password: $password, code: $code) { id state signatures { signer { id } meaning contentHash } } }`;
export const PUBLISH = `mutation ($id: Int!, $password: String, $code: String) { publishVersion(versionId: $id, password: $password, code: $code) { id state signatures { signer { id } meaning } } }`;
export const RETIRE = `mutation ($id: Int!) { retireVersion(versionId: $id) { id state } }`;
export const CREATE_DRAFT = `mutation ($id: Int!) { createDraft(templateId: $id) { id number state content { sections { steps { id title } } } } }`;
export const UPDATE_DRAFT = `mutation ($id: Int!, $content: ContentInput!) { updateDraft(versionId: $id, content: $content) { id state content { sections { id steps { id title } } } } }`;

/** Drives a version from DRAFT to the state wanted, each step by the right person. */
export async function advance(server: TestServer, team: Users, versionId: number, until: 'IN_REVIEW' | 'APPROVED' | 'PUBLISHED' | 'RETIRED') {
  ok(await gql(server, team.author.token, SUBMIT, { id: versionId }));
  if (until === 'IN_REVIEW') return;
  ok(await gql(server, team.approver.token, APPROVE, { id: versionId, password: PASSWORD }));
  if (until === 'APPROVED') return;
  ok(await gql(server, team.publisher.token, PUBLISH, { id: versionId, password: PASSWORD }));
  if (until === 'PUBLISHED') return;
  ok(await gql(server, team.publisher.token, RETIRE, { id: versionId }));
}
