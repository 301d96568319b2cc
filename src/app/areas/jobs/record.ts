import { ApiError, globalId, graphql, requestLanguage } from '../../api/client';
import { jobDocument, type FaultData, type FileInfo, type JobData, type PersonRef } from '../../offline';
import { DEVIATION_FIELDS, type Deviation } from '../review/exceptions';
import { OVERRIDE_FIELDS, type Override } from '../qualifications/api';
import type { HandOffStatus } from '../../../domain/vocabulary';
export type { HandOffStatus } from '../../../domain/vocabulary';

/**
 * What the job record page reads: the job as the app knows it (the operator's
 * document: the version's steps, the records with both times, the sign-offs)
 * and beyond it what only a reader of the whole record needs — who created it
 * and when, start and completion, every fault with its photos, the deviations
 * and the review, and the hand-offs. The server decides whether the user may
 * read the job (NOT_FOUND for another client's or a missing one).
 */

const PERSON = 'databaseId firstName lastName email';
const FILE = 'databaseId name contentType url';

export interface RecordFault extends FaultData {
  raisedBy: PersonRef;
  capturedAt: string;
  closedBy: PersonRef | null;
  closedAt: string | null;
  closeNote: string | null;
  photoFiles: FileInfo[];
}

export interface RecordDeviation extends Deviation {
  stepId: string | null;
}

export interface JobRecord extends JobData {
  createdAt: string;
  createdBy: PersonRef | null;
  startedAt: string | null;
  completedAt: string | null;
  cancelReason: string | null;
  coworkers: PersonRef[];
  versionInfo: { publishedAt: string | null };
  faultList: { totalCount: number; nodes: RecordFault[] };
  deviations: RecordDeviation[];
  review: { signerName: string; signedAt: string; comment: string | null } | null;
  /** who was let work on it lacking a required skill, and why (docs/qualifications.md) */
  qualificationOverrides: Override[];
  /** null: the licence lacks the collaboration feature (no hand-offs are made there either) */
  handOffs: { totalCount: number; nodes: RecordHandOff[] } | null;
}

export interface RecordHandOff {
  id: string;
  from: PersonRef | null;
  to: PersonRef | null;
  status: HandOffStatus;
  note: string;
  createdAt: string;
  decidedAt: string | null;
}

/** The first 100 faults: a job with more is an exception the list says so of (totalCount). */
const EXTRA = `createdAt createdBy { ${PERSON} } startedAt completedAt cancelReason coworkers { ${PERSON} }
  versionInfo: version { publishedAt }
  faultList: faults(first: 100) { totalCount nodes { id databaseId stepId description severity state raisedBy { ${PERSON} } raisedAt capturedAt
    closedBy { ${PERSON} } closedAt closeNote photoFiles { ${FILE} } } }
  deviations { stepId ${DEVIATION_FIELDS} }
  review { signerName signedAt comment }
  qualificationOverrides { ${OVERRIDE_FIELDS} }`;

/** The first 100 hand-offs, like the faults. */
const HAND_OFFS = `query AppJobHandOffs($id: ID!) { job(id: $id) { handOffs(first: 100) { totalCount nodes {
  id from { ${PERSON} } to { ${PERSON} } status note createdAt decidedAt } } } }`;

/**
 * The job's hand-offs, or null where the licence lacks them: a query of its own, so that an installation without the
 * collaboration feature (Job.handOffs answers FEATURE_NOT_LICENSED) still shows the rest of the record.
 */
async function loadHandOffs(id: string): Promise<JobRecord['handOffs']> {
  try {
    return (await graphql<{ job: { handOffs: JobRecord['handOffs'] } | null }>(HAND_OFFS, { id })).job?.handOffs ?? null;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'FEATURE_NOT_LICENSED') return null;
    throw error;
  }
}

/** The job's record, or null when the server has no job of this id for the user. */
export async function loadJobRecord(databaseId: string): Promise<JobRecord | null> {
  const id = globalId('Job', databaseId);
  const [data, handOffs] = await Promise.all([
    graphql<{ job: Omit<JobRecord, 'handOffs'> | null }>(
      `query AppJobRecord($id: ID!, $language: String) { job(id: $id) { ${await jobDocument()} ${EXTRA} } }`,
      { id, language: requestLanguage() },
    ),
    loadHandOffs(id),
  ]);
  return data.job && { ...data.job, handOffs };
}
