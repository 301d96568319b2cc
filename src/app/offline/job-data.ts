/**
 * A job as the operator's device keeps it: everything needed to run it with no
 * network (the version's document, the records, the faults), fetched once
 * online through GraphQL and kept in IndexedDB (offline/db.ts).
 */

import { serverHasNotApplicable } from '../api/features';
import { QUALIFICATION_FIELDS, type QualificationCheck } from '../rules/qualification';
import type {
  FaultSeverity,
  FaultState,
  FieldType,
  JobPriority,
  JobState,
  StepSignatureMeaning,
  StepStatus,
} from '../../domain/vocabulary';
export type { FieldType, JobState } from '../../domain/vocabulary';
import type { OperatorJobQuery } from '../api/operation-types';

/** The job as the server answers the operator's job query (src/app/api/operation-types.ts, from schema.graphql). */
type ServerJob = NonNullable<OperatorJobQuery['job']>;

export interface FileInfo {
  databaseId: number;
  name: string;
  contentType: string;
  url: string;
}

export interface FieldDef {
  key: string;
  label: string;
  type: FieldType;
  required: boolean;
  unit: string | null;
  min: number | null;
  max: number | null;
  options: string[] | null;
  /** the options as shown in the user's language (the options stay the values recorded) */
  optionLabels?: string[] | null;
  /** a CALCULATED field's formula (src/domain/expressions.ts); null for other types */
  expression: string | null;
}

/** The e-signatures a step needs (docs/execution-rules.md). */
export interface SignoffDef {
  performer: boolean;
  verifier: { roles: string[] } | null;
}

export interface StepDef {
  stepId: string;
  title: string;
  body: string;
  media: number[];
  mediaFiles: FileInfo[];
  fields: FieldDef[];
  /** the condition under which the step applies (src/domain/conditions.ts); null: always */
  when: unknown;
  signoff: SignoffDef | null;
  /** the operator may mark it not applicable, with a reason (absent where the server does not have the flag yet) */
  allowNotApplicable?: boolean;
}

export interface SectionDef {
  sectionId: string;
  title: string;
  when: unknown;
  steps: StepDef[];
}

/** Whether a step applies now, as the server computed it (GraphQL JobStep). */
export interface JobStepData {
  stepId: string;
  applies: boolean;
  reason: string | null;
}

/** An e-signature on a step (GraphQL StepSignature). */
export type StepSignatureData = ServerJob['signoffs'][number];

export interface PersonRef {
  databaseId: number;
  firstName: string;
  lastName: string;
  email: string;
}

export interface StepRecordData {
  stepId: string;
  status: StepStatus;
  /** `error`: a CALCULATED value the server could not compute (value null) */
  values: { key: string; value: unknown; outOfLimits: boolean; error?: string | null; files: FileInfo[] }[];
  comment: string | null;
  reason: string | null;
  recordedBy: PersonRef;
  /** when the server stored it (deprecated: receivedAt) */
  recordedAt: string;
  /** when the values were entered on the device, in server time */
  capturedAt?: string;
  receivedAt?: string;
  /** incremented by every recording of the step, from 1 */
  revision?: number;
}

export interface FaultData {
  id: string;
  databaseId: number;
  stepId: string | null;
  description: string;
  severity: FaultSeverity;
  state: FaultState;
  raisedAt: string;
}

export interface JobData {
  id: string;
  databaseId: number;
  title: string;
  state: JobState;
  priority: JobPriority;
  revision: number;
  dueAt: string | null;
  asset: { id: string; name: string; serialNumber: string | null } | null;
  template: { id: string; title: string };
  assignees: PersonRef[];
  /** `qualifications`: the skills whoever works on the job must hold (absent on older copies) */
  version: { id: string; number: number; content: { sections: SectionDef[]; qualifications?: { skill: string; level: number }[] } };
  records: StepRecordData[];
  /** every step in reading order with whether it applies (absent from a copy kept before the app knew them) */
  steps?: JobStepData[];
  signoffs?: StepSignatureData[];
  /** what completeJob would refuse now for the signed-in user (the server's own checks; absent on older copies) */
  completionBlockers?: { code: string; stepId: string | null; message: string }[];
  /** whether the signed-in user may work on it, the server's verdict when fetched (absent on older copies) */
  viewerQualification?: QualificationCheck;
  faults: { nodes: FaultData[] };
}

const PERSON = 'databaseId firstName lastName email';
const FILE = 'databaseId name contentType url';

/** What the app reads of a job; `notApplicable`: the server has Step.allowNotApplicable (api/features.ts). */
export function jobDocumentFields(notApplicable: boolean): string {
  return `id databaseId title state priority revision dueAt
  asset { id name serialNumber }
  template { id title }
  assignees { ${PERSON} }
  version { id number content(language: $language) { language qualifications { skill level } sections { sectionId title when steps { stepId title body media mediaFiles { ${FILE} }
    when signoff { performer verifier { roles } }${notApplicable ? ' allowNotApplicable' : ''}
    fields { key label type required unit min max options optionLabels expression } } } } }
  completionBlockers { code stepId message }
  viewerQualification { ${QUALIFICATION_FIELDS} }
  records { stepId status values { key value outOfLimits error files { ${FILE} } } comment reason recordedBy { ${PERSON} } recordedAt capturedAt receivedAt revision }
  steps { stepId applies reason }
  signoffs { stepId signer { ${PERSON} } signerName meaning signedAt invalidatedAt }
  faults(last: 50) { nodes { id databaseId stepId description severity state raisedAt } }`;
}

/** The job document as this server can answer it: an operation that selects it declares `$language: String` (requestLanguage()). */
export async function jobDocument(): Promise<string> {
  return jobDocumentFields(await serverHasNotApplicable());
}

/** `$language`: the operator's (requestLanguage()): the version's texts in its approved translation, the source where none. */
export async function jobQuery(): Promise<string> {
  return jobQueryOf(await jobDocument());
}

/** The operator's job query around a job document (jobDocumentFields). */
export const jobQueryOf = (jobFields: string) => `query OperatorJob($id: ID!, $language: String) { job(id: $id) { ${jobFields} } }`;

/** Every step of the job's version in order. */
export function stepsOfJob(job: Pick<JobData, 'version'>): StepDef[] {
  return job.version.content.sections.flatMap((s) => s.steps);
}

/** The files a job shows (step media): cached with the job so it runs offline. */
export function mediaUrlsOfJob(job: JobData): string[] {
  return [...new Set(stepsOfJob(job).flatMap((s) => s.mediaFiles.map((f) => f.url)))];
}

/** Whether a NUMBER (SENSOR, CALCULATED) value lies outside the field's limits (what the server flags as outOfLimits). */
export function outOfLimits(field: Pick<FieldDef, 'type' | 'min' | 'max'>, value: unknown): boolean {
  if (
    (field.type !== 'NUMBER' && field.type !== 'SENSOR' && field.type !== 'CALCULATED') ||
    typeof value !== 'number' ||
    !Number.isFinite(value)
  )
    return false;
  return (field.min != null && value < field.min) || (field.max != null && value > field.max);
}

export function isEmptyValue(value: unknown): boolean {
  return value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
}
