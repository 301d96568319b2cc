import type { FaultRow, HandOffRow, JobMemberRow, JobRow, StepRecordRow } from '#db/schema';
import type { RecordedValue } from '#domain/recording';

// Jobs, records, faults and hand-offs: row → API shape. GraphQL's Job, StepRecord
// and Fault types resolve their scalar fields straight from these objects and
// their relations (template, version, users…) from the *Id fields through loaders.

export function presentJob(job: JobRow) {
  return {
    id: job.id,
    title: job.title,
    state: job.state,
    priority: job.priority,
    revision: job.revision,
    templateId: job.template_id,
    versionId: job.version_id,
    assetId: job.asset_id,
    dueAt: job.due_at,
    cancelReason: job.cancel_reason,
    createdById: job.created_by,
    createdAt: job.created_at,
    updatedAt: job.updated_at,
    startedAt: job.started_at,
    completedAt: job.completed_at,
  };
}
export type PresentedJob = ReturnType<typeof presentJob>;

/** A job with its members, as REST answers it. */
export function presentJobMembers(members: readonly JobMemberRow[]) {
  const of = (kind: JobMemberRow['kind']) => members.filter((m) => m.kind === kind);
  return {
    assigneeIds: of('ASSIGNEE').map((m) => m.user_id),
    coworkerIds: of('COWORKER').map((m) => m.user_id),
    stepOwners: of('STEP_OWNER').map((m) => ({ stepId: m.step_id, userId: m.user_id })),
  };
}

export function presentStepRecord(record: StepRecordRow) {
  const values = JSON.parse(record.values) as RecordedValue[];
  return {
    stepId: record.step_id,
    status: record.status,
    values: values.map((v) => ({
      key: v.key,
      value: v.value,
      outOfLimits: v.outOfLimits,
      ...(v.readingId !== undefined && { readingId: v.readingId }),
      ...(v.error !== undefined && { error: v.error }),
    })),
    comment: record.comment,
    reason: record.reason,
    recordedById: record.recorded_by,
    /** deprecated: receivedAt under its old name, for existing clients */
    recordedAt: record.recorded_at,
    /** when the values were entered on the device (server time); receivedAt when the device sent none */
    capturedAt: record.captured_at,
    /** when the server stored the record */
    receivedAt: record.recorded_at,
    /** incremented by every recording of the step: what expectedStepRevision names */
    revision: record.revision,
  };
}

export function presentFault(fault: FaultRow) {
  return {
    id: fault.id,
    jobId: fault.job_id,
    stepId: fault.step_id,
    assetId: fault.asset_id,
    description: fault.description,
    severity: fault.severity,
    photos: JSON.parse(fault.photos) as number[],
    state: fault.state,
    raisedById: fault.raised_by,
    /** when the server stored the fault */
    raisedAt: fault.raised_at,
    /** when it was raised on the device (server time); raisedAt when the device sent none */
    capturedAt: fault.captured_at,
    closedById: fault.closed_by,
    closedAt: fault.closed_at,
    closeNote: fault.close_note,
  };
}

export function presentHandOff(handOff: HandOffRow) {
  return {
    id: handOff.id,
    jobId: handOff.job_id,
    fromUserId: handOff.from_user_id,
    toUserId: handOff.to_user_id,
    status: handOff.status,
    note: handOff.note,
    createdAt: handOff.created_at,
    decidedAt: handOff.decided_at,
  };
}
