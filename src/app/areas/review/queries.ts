import type { ContentDoc, ServerDiff } from './diff-model';

/**
 * The GraphQL documents of the review pages and the shapes they answer.
 * Everything comes from the public API (reviewQueue, templateVersion,
 * versionDiff and the three signing mutations); nothing here is private.
 */

export type VersionState = 'DRAFT' | 'IN_REVIEW' | 'APPROVED' | 'PUBLISHED' | 'RETIRED';
export type VersionAction = 'SUBMIT' | 'REJECT' | 'APPROVE' | 'PUBLISH' | 'RETIRE';
/** what the reviewer signs: the three signed actions of the page */
export type SignedAction = 'APPROVE' | 'REJECT' | 'PUBLISH';

export interface Person {
  firstName: string;
  lastName: string;
  email: string;
}

export interface QueueItem {
  id: string;
  databaseId: number;
  number: number;
  state: VersionState;
  waitingSince: string | null;
  viewerActions: VersionAction[];
  template: { id: string; title: string };
  updatedBy: Person | null;
}

export const QUEUE = /* GraphQL */ `
  query ReviewQueue {
    reviewQueue(first: 200) {
      totalCount
      nodes {
        id
        databaseId
        number
        state
        waitingSince
        viewerActions
        template {
          id
          title
        }
        updatedBy {
          firstName
          lastName
          email
        }
      }
    }
  }
`;

const CONTENT = /* GraphQL */ `
  content {
    sections {
      sectionId
      title
      when
      steps {
        stepId
        title
        body
        media
        model { fileId }
        fields { key label type required unit min max options sensorId expression }
        when
        signoff { performer verifier { roles } }
      }
    }
  }
`;

export interface Signature {
  signerName: string;
  meaning: 'APPROVED' | 'PUBLISHED' | 'REJECTED';
  signedAt: string;
  contentHash: string;
}

export interface VersionSummary {
  id: string;
  databaseId: number;
  number: number;
  state: VersionState;
}

export interface ReviewVersion extends VersionSummary {
  contentHash: string;
  waitingSince: string | null;
  submittedAt: string | null;
  rejectReason: string | null;
  viewerActions: VersionAction[];
  createdBy: Person | null;
  updatedBy: Person | null;
  signatures: Signature[];
  content: ContentDoc;
  template: { id: string; databaseId: number; title: string; versions: { nodes: VersionSummary[] } };
}

export const VERSION = /* GraphQL */ `
  query ReviewVersion($id: ID!) {
    templateVersion(id: $id) {
      id
      databaseId
      number
      state
      contentHash
      waitingSince
      submittedAt
      rejectReason
      viewerActions
      createdBy { firstName lastName email }
      updatedBy { firstName lastName email }
      signatures { signerName meaning signedAt contentHash }
      ${CONTENT}
      template {
        id
        databaseId
        title
        versions(first: 200) { nodes { id databaseId number state } }
      }
    }
    me { firstName lastName email }
  }
`;

export interface BaseVersion {
  templateVersion: { number: number; content: ContentDoc } | null;
  versionDiff: ServerDiff;
}

/** the version compared against and the semantic diff to the reviewed one */
export const BASE_AND_DIFF = /* GraphQL */ `
  query ReviewDiff($base: ID!, $id: ID!) {
    templateVersion(id: $base) { number ${CONTENT} }
    versionDiff(fromVersionId: $base, toVersionId: $id) {
      added { stepId }
      removed { stepId }
      moved { stepId }
      changed { stepId changedFields }
    }
  }
`;

export interface OlderJob {
  id: string;
  databaseId: number;
  title: string;
  state: 'OPEN' | 'IN_PROGRESS' | 'PAUSED';
  dueAt: string | null;
  version: { number: number };
  assignees: Person[];
}

export const OLDER_JOBS = /* GraphQL */ `
  query OlderJobs($id: ID!) {
    templateVersion(id: $id) {
      openJobsOnOlderVersions(first: 100) {
        totalCount
        nodes {
          id
          databaseId
          title
          state
          dueAt
          version {
            number
          }
          assignees {
            firstName
            lastName
            email
          }
        }
      }
    }
  }
`;

const SIGNED_VERSION = 'version { id state }';

/** the mutation of each signed action; every one takes the version, a password or a code (and reject a reason) */
export const SIGN: Record<SignedAction, string> = {
  APPROVE: `mutation Approve($versionId: ID!, $password: String, $code: String) {
    approveVersion(input: { versionId: $versionId, password: $password, code: $code }) { ${SIGNED_VERSION} } }`,
  REJECT: `mutation Reject($versionId: ID!, $reason: String!, $password: String, $code: String) {
    rejectVersion(input: { versionId: $versionId, reason: $reason, password: $password, code: $code }) { ${SIGNED_VERSION} } }`,
  PUBLISH: `mutation Publish($versionId: ID!, $password: String, $code: String) {
    publishVersion(input: { versionId: $versionId, password: $password, code: $code }) { ${SIGNED_VERSION} } }`,
};

/**
 * The GraphQL id of the version a page URL names. The app's URLs carry the database id (what REST, the
 * notifications' links and the PDFs use); GraphQL's ids of integer-keyed objects are `Type:databaseId`.
 */
export const versionGlobalId = (databaseId: number | string) => `TemplateVersion:${databaseId}`;

export const personName = (p: Person | null | undefined) => (p ? `${p.firstName} ${p.lastName}`.trim() || p.email : '');

/**
 * The version a reviewed one is compared with: the template's published version when it is older; otherwise (the
 * reviewed one is the published one, or none is published now) the newest older version that was ever published
 * (RETIRED). None: nothing was published before it — every step is new.
 */
export function baseVersionOf(version: Pick<ReviewVersion, 'number' | 'template'>): VersionSummary | null {
  const older = version.template.versions.nodes.filter((v) => v.number < version.number);
  const published = older.find((v) => v.state === 'PUBLISHED');
  if (published) return published;
  const retired = older.filter((v) => v.state === 'RETIRED').sort((a, b) => b.number - a.number);
  return retired[0] ?? null;
}
