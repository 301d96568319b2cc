import type { Deps } from '#deps';
import { deserializeContent, stepsOf, type Content } from '#domain/content';
import type { RecordedValue } from '#domain/recording';
import {
  assigneesOfJobs,
  deviatingRecordsSince,
  openFaults,
  openJobsByDue,
  overdueJobs,
  unappliedChangesSince,
  usersWithRoles,
  versionContents,
  type BoardJobRow,
  type MemberName,
} from '#repos/supervision';
import type { UserActor } from './actor';
import { PERMISSIONS, requirePermission } from '#policies/permissions';

/**
 * What a supervisor — whoever may create and assign jobs
 * (PERMISSIONS.createJob) — sees in the floor app: the
 * board of open jobs by due date, the people a job can be assigned to, and
 * the deviations of the last days (values out of limits, failed and skipped
 * steps, open faults, overdue jobs). Reads only; each list bounded, with a
 * `truncated` flag when there is more.
 */

export const BOARD_LIMIT = 500;
export const DEVIATIONS_LIMIT = 200;
export const ASSIGNEES_LIMIT = 1000;

const name = (row: { first_name: string; last_name: string; email: string }) =>
  [row.first_name, row.last_name].filter(Boolean).join(' ') || row.email;

function bounded<T>(rows: T[], limit: number): { items: T[]; truncated: boolean } {
  return { items: rows.slice(0, limit), truncated: rows.length > limit };
}

function presentBoardJob(row: BoardJobRow, assignees: MemberName[]) {
  return {
    id: row.id,
    title: row.title,
    state: row.state,
    priority: row.priority,
    revision: row.revision,
    dueAt: row.due_at,
    createdAt: row.created_at,
    startedAt: row.started_at,
    templateId: row.template_id,
    versionId: row.version_id,
    asset: row.asset_id === null ? null : { id: row.asset_id, name: row.asset_name ?? '' },
    assignees: assignees.filter((a) => a.job_id === row.id).map((a) => ({ id: a.user_id, name: name(a) })),
  };
}

async function withAssignees(deps: Deps, actor: UserActor, rows: BoardJobRow[]) {
  const assignees = await assigneesOfJobs(
    deps.db.kysely,
    actor.scope,
    rows.map((r) => r.id),
  );
  return rows.map((row) => presentBoardJob(row, assignees));
}

/** Open jobs (OPEN, IN_PROGRESS, PAUSED), the earliest due first. */
export async function jobBoard(deps: Deps, actor: UserActor) {
  requirePermission(actor.roles, 'createJob');
  const { items, truncated } = bounded(await openJobsByDue(deps.db.kysely, actor.scope, BOARD_LIMIT), BOARD_LIMIT);
  return { jobs: await withAssignees(deps, actor, items), truncated };
}

/** Who a job can be assigned to: the client's active users who may run jobs. */
export async function assignableUsers(deps: Deps, actor: UserActor) {
  requirePermission(actor.roles, 'createJob');
  const { items, truncated } = bounded(
    await usersWithRoles(deps.db.kysely, actor.scope, PERMISSIONS.runJob, ASSIGNEES_LIMIT),
    ASSIGNEES_LIMIT,
  );
  return { users: items.map((u) => ({ id: u.id, name: name(u), email: u.email, title: u.title })), truncated };
}

/** The deviations of the last `days` days (open faults and overdue jobs whatever their age: they are open now). */
export async function deviations(deps: Deps, actor: UserActor, days: number) {
  requirePermission(actor.roles, 'createJob');
  const db = deps.db.kysely;
  const now = deps.clock.now();
  const since = new Date(now.getTime() - days * 24 * 60 * 60 * 1000).toISOString();
  const [records, unapplied, faults, overdue] = await Promise.all([
    deviatingRecordsSince(db, actor.scope, since, DEVIATIONS_LIMIT),
    unappliedChangesSince(db, actor.scope, since, DEVIATIONS_LIMIT),
    openFaults(db, actor.scope, DEVIATIONS_LIMIT),
    overdueJobs(db, actor.scope, now.toISOString(), DEVIATIONS_LIMIT),
  ]);
  const recorded = bounded(records, DEVIATIONS_LIMIT);
  const contents = await versionContents(
    db,
    actor.scope,
    recorded.items.map((r) => r.version_id),
  );
  const parsed = new Map<number, Content>();
  const contentOf = (versionId: number) => {
    let content = parsed.get(versionId);
    if (!content) parsed.set(versionId, (content = deserializeContent(contents.get(versionId) ?? '{"sections":[]}')));
    return content;
  };

  const outOfLimits = [];
  const stepProblems = [];
  for (const row of recorded.items) {
    const step = stepsOf(contentOf(row.version_id)).find((s) => s.step.id === row.step_id)?.step;
    const base = {
      job: { id: row.job_id, title: row.job_title },
      asset: row.asset_id === null ? null : { id: row.asset_id, name: row.asset_name ?? '' },
      stepId: row.step_id,
      stepTitle: step?.title ?? row.step_id,
      recordedBy: { id: row.recorded_by, name: name(row) },
      recordedAt: row.recorded_at,
      capturedAt: row.captured_at,
      receivedAt: row.recorded_at,
    };
    const values = JSON.parse(row.values) as RecordedValue[];
    for (const value of values.filter((v) => v.outOfLimits)) {
      const field = step?.fields.find((f) => f.key === value.key);
      outOfLimits.push({
        ...base,
        fieldKey: value.key,
        fieldLabel: field?.label ?? value.key,
        value: typeof value.value === 'number' && Number.isFinite(value.value) ? value.value : null,
        unit: field?.unit ?? null,
        min: field?.min ?? null,
        max: field?.max ?? null,
      });
    }
    if (row.status !== 'DONE') stepProblems.push({ ...base, status: row.status, reason: row.reason, comment: row.comment });
  }
  const lost = bounded(unapplied, DEVIATIONS_LIMIT);
  const open = bounded(faults, DEVIATIONS_LIMIT);
  const late = bounded(overdue, DEVIATIONS_LIMIT);
  return {
    days,
    since,
    outOfLimits,
    stepProblems,
    // one bound for both: they come from the same bounded read of step records
    recordsTruncated: recorded.truncated,
    unappliedChanges: lost.items.map((d) => ({
      id: d.id,
      job: { id: d.job_id, title: d.job_title },
      asset: d.asset_id === null ? null : { id: d.asset_id, name: d.asset_name ?? '' },
      stepId: d.step_id,
      detail: d.detail,
      raisedBy: { id: d.raised_by, name: name(d) },
      raisedAt: d.raised_at,
      acknowledged: d.acknowledged_at !== null,
    })),
    unappliedChangesTruncated: lost.truncated,
    openFaults: open.items.map((f) => ({
      id: f.id,
      severity: f.severity,
      description: f.description,
      job: f.job_id === null ? null : { id: f.job_id, title: f.job_title ?? '' },
      asset: f.asset_id === null ? null : { id: f.asset_id, name: f.asset_name ?? '' },
      stepId: f.step_id,
      raisedBy: { id: f.raised_by, name: name(f) },
      raisedAt: f.raised_at,
      capturedAt: f.captured_at,
    })),
    openFaultsTruncated: open.truncated,
    overdueJobs: await withAssignees(deps, actor, late.items),
    overdueJobsTruncated: late.truncated,
  };
}
