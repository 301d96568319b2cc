/**
 * A job as the operator's device keeps it: everything needed to run it with no
 * network (the version's document, the records, the faults), fetched once
 * online through GraphQL and kept in IndexedDB (offline/db.ts).
 */

import { serverHasNotApplicable } from '../api/features';
import { QUALIFICATION_FIELDS } from '../rules/qualification';

export type { FileInfo, FieldDef, SignoffDef, StepDef, SectionDef, StepRecordData, JobData } from './job-types';
import type { FieldDef, JobData, StepDef } from './job-types';

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
