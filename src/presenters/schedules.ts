import type { FollowUpJobRow, ScheduleOccurrenceRow, ScheduleRow } from '#db/schema';

// Schedules of recurring jobs and their occurrences: row → API shape. GraphQL's Schedule and ScheduleOccurrence
// resolve their scalar fields from these objects and their relations (template, asset, users…) from the *Id fields.

/** `timeZone`: the client's, in which `startsAt` and the recurrence are read. */
export function presentSchedule(schedule: ScheduleRow, timeZone: string) {
  return {
    id: schedule.id,
    title: schedule.title,
    templateId: schedule.template_id,
    pinnedVersionId: schedule.version_id,
    assetId: schedule.asset_id,
    assetClassId: schedule.asset_class_id,
    assigneeIds: JSON.parse(schedule.assignee_ids) as number[],
    teamId: schedule.team_id,
    priority: schedule.priority,
    dueOffsetMinutes: schedule.due_offset_minutes,
    recurrence: schedule.rrule,
    startsAt: schedule.starts_at,
    timeZone,
    missedOccurrences: schedule.missed,
    state: schedule.state,
    revision: schedule.revision,
    generatedUntil: schedule.generated_until,
    createdById: schedule.created_by,
    createdAt: schedule.created_at,
    updatedAt: schedule.updated_at,
    deletedAt: schedule.deleted_at,
  };
}
export type PresentedSchedule = ReturnType<typeof presentSchedule>;

export function presentOccurrence(occurrence: ScheduleOccurrenceRow) {
  return {
    id: occurrence.id,
    scheduleId: occurrence.schedule_id,
    occursAt: occurrence.occurs_at,
    assetId: occurrence.asset_key === 0 ? null : occurrence.asset_key,
    status: occurrence.status,
    reason: occurrence.reason,
    jobId: occurrence.job_id,
    handledAt: occurrence.created_at,
  };
}
export type PresentedOccurrence = ReturnType<typeof presentOccurrence>;

export function presentFollowUp(row: FollowUpJobRow) {
  return {
    id: row.id,
    faultId: row.fault_id,
    jobId: row.job_id,
    closesFault: row.closes_fault === 1,
    createdById: row.created_by,
    createdAt: row.created_at,
  };
}
