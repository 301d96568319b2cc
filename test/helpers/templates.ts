import assert from 'node:assert/strict';
import type { TestServer } from './server';
import { gql, type GraphQLResult } from './graphql';
import { buildUser, PASSWORD, type BuiltClient } from './factories';

// Templates through GraphQL, as a client app drives them.

export const VERSION_FIELDS = `id number state contentHash createdBy { id: databaseId } updatedBy { id: databaseId } rejectReason
  signatures { signer { id: databaseId } signerName meaning signedAt contentHash }
  content { sections { sectionId title steps { stepId title body fields { key label type required unit min max options } } } }`;

export const SAMPLE_CONTENT = {
  sections: [
    {
      title: 'Preparation',
      steps: [
        {
          stepId: 'isolate',
          title: 'Isolate the pump',
          body: 'Lock out **both** breakers.',
          fields: [{ key: 'locked', type: 'PASS_FAIL', required: true }],
        },
        {
          stepId: 'pressure',
          title: 'Read the pressure',
          fields: [{ key: 'bar', type: 'NUMBER', unit: 'bar', min: 1, max: 3, required: true }],
        },
      ],
    },
  ],
};

/** A template whose first step needs the performer's and an approver's sign-off (docs/execution-rules.md). */
export const SIGNOFF_CONTENT = {
  sections: [
    {
      id: 'main',
      title: 'Main',
      steps: [
        {
          id: 'torque',
          title: 'Torque the bolts',
          fields: [{ key: 'nm', type: 'NUMBER', required: true }],
          signoff: { performer: true, verifier: { roles: ['approver'] } },
        },
        { id: 'close', title: 'Close the cover', fields: [] },
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
    `mutation ($input: CreateTemplateInput!) { createTemplate(input: $input) { template { id databaseId title tags latestVersion { id databaseId number state } } } }`,
    { input: { title: 'Pump maintenance', description: 'Quarterly', tags: ['pump'], content: SAMPLE_CONTENT, ...input } },
  );
  return ok(result).createTemplate.template as {
    id: string;
    databaseId: number;
    title: string;
    latestVersion: { id: string; databaseId: number; number: number; state: string };
  };
}

// each answers its payload's version: `.submitVersion.version`
export const SUBMIT = `mutation ($id: ID!) { submitVersion(input: { versionId: $id }) { version { id state } } }`;
export const REJECT = `mutation ($id: ID!, $reason: String!) { rejectVersion(input: { versionId: $id, reason: $reason }) { version { id state rejectReason } } }`;
export const APPROVE = `mutation ($id: ID!, $password: String, $code: String) { approveVersion(input: { versionId: $id, password: $password, code: $code }) { version { id state signatures { signer { id: databaseId } meaning contentHash } } } }`;
export const PUBLISH = `mutation ($id: ID!, $password: String, $code: String) { publishVersion(input: { versionId: $id, password: $password, code: $code }) { version { id state signatures { signer { id: databaseId } meaning } } } }`;
export const RETIRE = `mutation ($id: ID!) { retireVersion(input: { versionId: $id }) { version { id state } } }`;
export const CREATE_DRAFT = `mutation ($id: ID!) { createDraft(input: { templateId: $id }) { version { id databaseId number state content { sections { steps { stepId title } } } } } }`;
export const UPDATE_DRAFT = `mutation ($id: ID!, $content: ContentInput!) { updateDraft(input: { versionId: $id, content: $content }) { version { id state content { sections { sectionId steps { stepId title } } } } } }`;

/** Drives a version from DRAFT to the state wanted, each step by the right person. */
export async function advance(
  server: TestServer,
  team: Users,
  versionId: string,
  until: 'IN_REVIEW' | 'APPROVED' | 'PUBLISHED' | 'RETIRED',
) {
  ok(await gql(server, team.author.token, SUBMIT, { id: versionId }));
  if (until === 'IN_REVIEW') return;
  ok(await gql(server, team.approver.token, APPROVE, { id: versionId, password: PASSWORD }));
  if (until === 'APPROVED') return;
  ok(await gql(server, team.publisher.token, PUBLISH, { id: versionId, password: PASSWORD }));
  if (until === 'PUBLISHED') return;
  ok(await gql(server, team.publisher.token, RETIRE, { id: versionId }));
}
