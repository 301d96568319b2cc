/**
 * A job as the operator's device keeps it: everything needed to run it with no
 * network (the version's document, the records, the faults), fetched once
 * online through GraphQL and kept in IndexedDB (offline/db.ts).
 */

export type FieldType = 'TEXT' | 'NUMBER' | 'PASS_FAIL' | 'CHOICE' | 'PHOTO' | 'SIGNATURE' | 'SENSOR';
export type JobState = 'OPEN' | 'IN_PROGRESS' | 'PAUSED' | 'COMPLETED' | 'CANCELLED' | 'REVIEWED';

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
}

export interface StepDef {
  stepId: string;
  title: string;
  body: string;
  media: number[];
  mediaFiles: FileInfo[];
  fields: FieldDef[];
}

export interface SectionDef {
  sectionId: string;
  title: string;
  steps: StepDef[];
}

export interface PersonRef {
  databaseId: number;
  firstName: string;
  lastName: string;
  email: string;
}

export interface StepRecordData {
  stepId: string;
  status: 'DONE' | 'SKIPPED' | 'FAILED';
  values: { key: string; value: unknown; outOfLimits: boolean; files: FileInfo[] }[];
  comment: string | null;
  reason: string | null;
  recordedBy: PersonRef;
  recordedAt: string;
}

export interface FaultData {
  id: string;
  databaseId: number;
  stepId: string | null;
  description: string;
  severity: 'LOW' | 'MEDIUM' | 'HIGH' | 'CRITICAL';
  state: 'OPEN' | 'CLOSED';
  raisedAt: string;
}

export interface JobData {
  id: string;
  databaseId: number;
  title: string;
  state: JobState;
  priority: 'HIGH' | 'MEDIUM' | 'LOW';
  revision: number;
  dueAt: string | null;
  asset: { id: string; name: string; serialNumber: string | null } | null;
  template: { id: string; title: string };
  assignees: PersonRef[];
  version: { id: string; number: number; content: { sections: SectionDef[] } };
  records: StepRecordData[];
  faults: { nodes: FaultData[] };
}

const PERSON = 'databaseId firstName lastName email';
const FILE = 'databaseId name contentType url';

export const JOB_DOCUMENT_FIELDS = `id databaseId title state priority revision dueAt
  asset { id name serialNumber }
  template { id title }
  assignees { ${PERSON} }
  version { id number content { sections { sectionId title steps { stepId title body media mediaFiles { ${FILE} }
    fields { key label type required unit min max options } } } } }
  records { stepId status values { key value outOfLimits files { ${FILE} } } comment reason recordedBy { ${PERSON} } recordedAt }
  faults(last: 50) { nodes { id databaseId stepId description severity state raisedAt } }`;

export const JOB_QUERY = `query OperatorJob($id: ID!) { job(id: $id) { ${JOB_DOCUMENT_FIELDS} } }`;

/** Every step of the job's version in order. */
export function stepsOfJob(job: Pick<JobData, 'version'>): StepDef[] {
  return job.version.content.sections.flatMap((s) => s.steps);
}

/** The files a job shows (step media): cached with the job so it runs offline. */
export function mediaUrlsOfJob(job: JobData): string[] {
  return [...new Set(stepsOfJob(job).flatMap((s) => s.mediaFiles.map((f) => f.url)))];
}

/** Whether a NUMBER value lies outside the field's limits (what the server flags as outOfLimits). */
export function outOfLimits(field: Pick<FieldDef, 'type' | 'min' | 'max'>, value: unknown): boolean {
  if ((field.type !== 'NUMBER' && field.type !== 'SENSOR') || typeof value !== 'number' || !Number.isFinite(value)) return false;
  return (field.min != null && value < field.min) || (field.max != null && value > field.max);
}

export function isEmptyValue(value: unknown): boolean {
  return value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
}
