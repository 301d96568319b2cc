import { graphql } from '../../api/client';
import type { Tone } from '../../ui';
import type { Person } from './queries';
import type { DeviationKind, ReviewPart } from '../../../domain/vocabulary';
export type { DeviationKind } from '../../../domain/vocabulary';

/**
 * Review by exception (docs/execution-rules.md): the GraphQL documents of the
 * exceptions page — completed jobs waiting for their REVIEWED signature with
 * their deviations, and the deviations of other jobs still to acknowledge —
 * through the public API only (jobs, deviations, acknowledgeDeviation, reviewJob).
 */

/** How a deviation's kind is shown: a wrong value, a failed step, a fault or a change lost with a restore as danger, the rest as warning. */
export const DEVIATION_TONE: Record<DeviationKind, Tone> = {
  OUT_OF_LIMITS: 'danger',
  STEP_FAILED: 'danger',
  FAULT: 'danger',
  UNAPPLIED_CHANGE: 'danger',
  NOT_APPLICABLE: 'warning',
  OVERRIDE: 'warning',
  LATE_COMPLETION: 'warning',
};

export interface Deviation {
  id: string;
  databaseId: number;
  kind: DeviationKind;
  stepTitle: string | null;
  fieldKey: string | null;
  value: unknown;
  detail: string;
  raisedAt: string;
  raisedBy: Person | null;
  acknowledged: boolean;
  comment: string | null;
  acknowledgedByName: string | null;
  acknowledgedAt: string | null;
}

/** Why the signed-in user may not sign a job REVIEWED (Job.viewerReviewBlock: the server's own rule); null: they may. */
export interface ReviewBlock {
  reason: 'NOT_A_REVIEWER' | 'NOT_COMPLETED' | 'TOOK_PART';
  stepTitle: string | null;
  stepNumber: number | null;
  part: ReviewPart | null;
}

export interface JobToReview {
  id: string;
  databaseId: number;
  title: string;
  completedAt: string | null;
  deviations: Deviation[];
  viewerReviewBlock: ReviewBlock | null;
}

export interface OpenDeviation extends Deviation {
  job: { id: string; databaseId: number; title: string; state: string };
}

/** A deviation's fields as the pages show it (the exceptions page, the job record). */
export const DEVIATION_FIELDS =
  'id databaseId kind stepTitle fieldKey value detail raisedAt raisedBy { firstName lastName email } acknowledged comment acknowledgedByName acknowledgedAt';

export interface Exceptions {
  jobs: { totalCount: number; nodes: JobToReview[] };
  deviations: { totalCount: number; nodes: OpenDeviation[] };
  me: Person;
}

/** Completed jobs (the newest 100) with their deviations; the deviations not acknowledged yet (200). */
export function loadExceptions(): Promise<Exceptions> {
  return graphql<Exceptions>(
    `query Exceptions {
      jobs(last: 100, filter: { state: COMPLETED }) { totalCount nodes { id databaseId title completedAt deviations { ${DEVIATION_FIELDS} } viewerReviewBlock { reason stepTitle stepNumber part } } }
      deviations(first: 200, filter: { reviewed: false }) { totalCount nodes { ${DEVIATION_FIELDS} job { id databaseId title state } } }
      me { firstName lastName email }
    }`,
  );
}

export function acknowledge(deviationId: string, comment: string): Promise<unknown> {
  return graphql(
    `
      mutation Acknowledge($i: AcknowledgeDeviationInput!) {
        acknowledgeDeviation(input: $i) {
          deviation {
            id
            acknowledged
          }
        }
      }
    `,
    { i: { deviationId, comment } },
  );
}

export function reviewJob(jobId: string, credentials: { password: string | null; code: string | null }, comment: string): Promise<unknown> {
  return graphql(
    `
      mutation ReviewJob($i: ReviewJobInput!) {
        reviewJob(input: $i) {
          job {
            id
            state
          }
        }
      }
    `,
    { i: { jobId, ...credentials, comment: comment.trim() || null } },
  );
}
