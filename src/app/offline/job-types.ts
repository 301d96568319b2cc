/**
 * The job as the device keeps it, as types only: what the sync engine and its
 * storage read (offline/job-data.ts selects it from the server). Free of the
 * browser so the engine's rules compile and run in Node.
 */
import type { LackingSkill } from '../../domain/qualifications';
import type { OperatorJobQuery } from '../api/operation-types';
import type { FaultSeverity, FaultState, FieldType, JobPriority, JobState, StepStatus } from '../../domain/vocabulary';

/** The job as the server answers the operator's job query (src/app/api/operation-types.ts, from schema.graphql). */
type ServerJob = NonNullable<OperatorJobQuery['job']>;

/** Whether the signed-in user may work on a job (GraphQL QualificationCheck). */
export interface QualificationCheck {
  qualified: boolean;
  overridden: boolean;
  retrainingDue: boolean;
  lacking: LackingSkill[];
}

export type { FieldType, JobState } from '../../domain/vocabulary';

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
