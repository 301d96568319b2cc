import type { ContentDoc, ServerDiff } from './diff-model';
import { STEP } from '../author/queries';
import type { JobState, SignatureMeaning, VersionState } from '../../../domain/vocabulary';
import type { VersionAction as DomainVersionAction } from '../../../policies/transitions';
export type { VersionState } from '../../../domain/vocabulary';

/**
 * The GraphQL documents of the review pages and the shapes they answer.
 * Everything comes from the public API (reviewQueue, templateVersion,
 * versionDiff and the three signing mutations); nothing here is private.
 */

/** a version's action as GraphQL spells it (enum VersionAction): the transition table's, in capitals */
export type VersionAction = Uppercase<DomainVersionAction>;
/** what the reviewer signs: the three signed actions of the page */
export type SignedAction = Extract<VersionAction, 'APPROVE' | 'REJECT' | 'PUBLISH'>;

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
  signatures: Pick<Signature, 'signerName' | 'meaning'>[];
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
        signatures {
          signerName
          meaning
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

/**
 * A version's document as the author's preview reads it (author/queries.ts STEP: texts, files, fields, conditions,
 * sign-offs with their skills), so the review page shows each step with the same StepView.
 */
const CONTENT = /* GraphQL */ `
  content {
    qualifications { skill level }
    sections {
      sectionId
      title
      when
      steps { ${STEP.replace('signoff { performer verifier { roles } }', 'signoff { performer verifier { roles } skills { skill level } }')} }
    }
  }
`;

export interface Signature {
  signerName: string;
  meaning: SignatureMeaning;
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
      qualificationsChanged
    }
  }
`;

export interface OlderJob {
  id: string;
  databaseId: number;
  title: string;
  state: Extract<JobState, 'OPEN' | 'IN_PROGRESS' | 'PAUSED'>;
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

/**
 * Who brought the version to its state, in words' parts: the signer of its newest APPROVED or PUBLISHED signature,
 * else (a draft, or one in review) the last person who edited it. A state names who did it, never the author for an
 * approval.
 */
export function actedBy(
  version: Pick<QueueItem, 'state' | 'signatures' | 'updatedBy'>,
): { by: 'APPROVED' | 'PUBLISHED' | 'EDITED'; name: string } | null {
  const meaning =
    version.state === 'APPROVED' ? 'APPROVED' : version.state === 'PUBLISHED' || version.state === 'RETIRED' ? 'PUBLISHED' : null;
  const signed = meaning && [...version.signatures].reverse().find((s) => s.meaning === meaning);
  if (meaning && signed) return { by: meaning, name: signed.signerName };
  return version.updatedBy ? { by: 'EDITED', name: personName(version.updatedBy) } : null;
}

export interface TemplateVersionRow {
  databaseId: number;
  number: number;
  state: VersionState;
  updatedAt: string;
  updatedBy: Person | null;
  signatures: Signature[];
}

export interface ReviewTemplate {
  databaseId: number;
  title: string;
  description: string;
  versions: { nodes: TemplateVersionRow[] };
}

/** A template read-only, for its reviewers: its versions, their states and who brought each there. */
export const TEMPLATE = /* GraphQL */ `
  query ReviewTemplate($id: ID!) {
    template(id: $id) {
      databaseId
      title
      description
      versions(first: 200) {
        nodes {
          databaseId
          number
          state
          updatedAt
          updatedBy {
            firstName
            lastName
            email
          }
          signatures {
            signerName
            meaning
            signedAt
            contentHash
          }
        }
      }
    }
  }
`;
