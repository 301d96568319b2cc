import { ApiError, globalId, graphql, requestLanguage } from '../../api/client';
import { jobDocument } from '../../offline';
import type {
  AppJobHandOffsQuery,
  AppJobHandOffsQueryVariables,
  AppJobRecordQuery,
  AppJobRecordQueryVariables,
} from '../../api/operation-types';
import { DEVIATION_FIELDS } from '../review/exceptions';
import { OVERRIDE_FIELDS, type Override } from '../qualifications/api';

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

/** The record as the server answers its query (src/app/api/operation-types.ts, generated from schema.graphql). */
type ServerRecord = NonNullable<AppJobRecordQuery['job']>;

export type RecordFault = ServerRecord['faultList']['nodes'][number];
export type RecordDeviation = ServerRecord['deviations'][number];
export type RecordHandOff = NonNullable<NonNullable<AppJobHandOffsQuery['job']>['handOffs']>['nodes'][number];
export type { HandOffStatus } from '../../../domain/vocabulary';

export interface JobRecord extends Omit<ServerRecord, 'qualificationOverrides'> {
  /** who was let work on it lacking a required skill, and why (docs/qualifications.md); `lacking` is JSON to the schema */
  qualificationOverrides: Override[];
  /** null: the licence lacks the collaboration feature (no hand-offs are made there either) */
  handOffs: { totalCount: number; nodes: RecordHandOff[] } | null;
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
export const HAND_OFFS = `query AppJobHandOffs($id: ID!) { job(id: $id) { handOffs(first: 100) { totalCount nodes {
  id from { ${PERSON} } to { ${PERSON} } status note createdAt decidedAt } } } }`;

/**
 * The job's hand-offs, or null where the licence lacks them: a query of its own, so that an installation without the
 * collaboration feature (Job.handOffs answers FEATURE_NOT_LICENSED) still shows the rest of the record.
 */
async function loadHandOffs(id: string): Promise<JobRecord['handOffs']> {
  try {
    return (await graphql<AppJobHandOffsQuery, AppJobHandOffsQueryVariables>(HAND_OFFS, { id })).job?.handOffs ?? null;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'FEATURE_NOT_LICENSED') return null;
    throw error;
  }
}

/** The record's query, around the job document the server can answer (jobDocument()). */
export const jobRecordQuery = (jobFields: string) =>
  `query AppJobRecord($id: ID!, $language: String) { job(id: $id) { ${jobFields} ${EXTRA} } }`;

/** The job's record, or null when the server has no job of this id for the user. */
export async function loadJobRecord(databaseId: string): Promise<JobRecord | null> {
  const id = globalId('Job', databaseId);
  const [data, handOffs] = await Promise.all([
    graphql<AppJobRecordQuery, AppJobRecordQueryVariables>(jobRecordQuery(await jobDocument()), { id, language: requestLanguage() }),
    loadHandOffs(id),
  ]);
  // Override's `lacking` is the JSON the server documents in docs/qualifications.md
  return data.job && { ...data.job, qualificationOverrides: data.job.qualificationOverrides as Override[], handOffs };
}
