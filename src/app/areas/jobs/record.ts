import { globalId, graphql, requestLanguage } from '../../api/client';
import { jobDocument, type FaultData, type FileInfo, type JobData, type PersonRef } from '../../offline';
import { DEVIATION_FIELDS, type Deviation } from '../review/exceptions';

/**
 * What the job record page reads: the job as the app knows it (the operator's
 * document: the version's steps, the records with both times, the sign-offs)
 * and beyond it what only a reader of the whole record needs — who created it
 * and when, start and completion, every fault with its photos, the deviations
 * and the review. One GraphQL query; the server decides whether the user may
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
}

/** The first 100 faults: a job with more is an exception the list says so of (totalCount). */
const EXTRA = `createdAt createdBy { ${PERSON} } startedAt completedAt cancelReason coworkers { ${PERSON} }
  versionInfo: version { publishedAt }
  faultList: faults(first: 100) { totalCount nodes { id databaseId stepId description severity state raisedBy { ${PERSON} } raisedAt capturedAt
    closedBy { ${PERSON} } closedAt closeNote photoFiles { ${FILE} } } }
  deviations { stepId ${DEVIATION_FIELDS} }
  review { signerName signedAt comment }`;

/** The job's record, or null when the server has no job of this id for the user. */
export async function loadJobRecord(databaseId: string): Promise<JobRecord | null> {
  const data = await graphql<{ job: JobRecord | null }>(
    `query AppJobRecord($id: ID!, $language: String) { job(id: $id) { ${await jobDocument()} ${EXTRA} } }`,
    { id: globalId('Job', databaseId), language: requestLanguage() },
  );
  return data.job;
}
