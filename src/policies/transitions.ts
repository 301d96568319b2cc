import { AppError, forbidden } from '#errors';
import { hasAnyRole, type Role } from './roles';
import type { FaultState, HandOffStatus, JobState, ScheduleState, VersionState } from '#db/schema';

/**
 * Every state machine of the domain as data: one table per stateful thing,
 * rows `{action, from, to, roles}`. `transition()` is the one function that
 * applies them; services, GraphQL and REST never compare states by hand. The
 * "who may do what" tables of docs/work-instructions.md and the authorization tests are checked
 * against these same tables.
 *
 * `roles` is who may perform the action at all; rules that depend on the
 * particular person (separation of duties, being the receiver of a hand-off)
 * are checked by the service after the transition is found legal.
 */
export interface Transition<S extends string, A extends string> {
  action: A;
  from: readonly S[];
  to: S;
  roles: readonly Role[];
}

export type VersionAction = 'submit' | 'reject' | 'approve' | 'publish' | 'retire';
export const VERSION_TRANSITIONS: readonly Transition<VersionState, VersionAction>[] = [
  { action: 'submit', from: ['DRAFT'], to: 'IN_REVIEW', roles: ['admin', 'author'] },
  { action: 'reject', from: ['IN_REVIEW'], to: 'DRAFT', roles: ['admin', 'approver'] },
  { action: 'approve', from: ['IN_REVIEW'], to: 'APPROVED', roles: ['admin', 'approver'] },
  // publishing retires the template's previously published version (the service does that in the same transaction)
  { action: 'publish', from: ['APPROVED'], to: 'PUBLISHED', roles: ['admin', 'publisher'] },
  { action: 'retire', from: ['PUBLISHED'], to: 'RETIRED', roles: ['admin', 'publisher'] },
];

export type JobAction = 'start' | 'pause' | 'resume' | 'complete' | 'cancel' | 'review';
const RUNS_JOBS: readonly Role[] = ['admin', 'operator'];
export const JOB_TRANSITIONS: readonly Transition<JobState, JobAction>[] = [
  { action: 'start', from: ['OPEN'], to: 'IN_PROGRESS', roles: RUNS_JOBS },
  { action: 'pause', from: ['IN_PROGRESS'], to: 'PAUSED', roles: RUNS_JOBS },
  { action: 'resume', from: ['PAUSED'], to: 'IN_PROGRESS', roles: RUNS_JOBS },
  { action: 'complete', from: ['IN_PROGRESS'], to: 'COMPLETED', roles: RUNS_JOBS },
  { action: 'cancel', from: ['OPEN', 'IN_PROGRESS', 'PAUSED'], to: 'CANCELLED', roles: RUNS_JOBS },
  // review by exception (docs/execution-rules.md): an e-signature on a completed job, not work on it
  { action: 'review', from: ['COMPLETED'], to: 'REVIEWED', roles: ['admin', 'approver'] },
];

export type HandOffAction = 'accept' | 'decline' | 'cancel';
export const HAND_OFF_TRANSITIONS: readonly Transition<HandOffStatus, HandOffAction>[] = [
  { action: 'accept', from: ['PENDING'], to: 'ACCEPTED', roles: RUNS_JOBS },
  { action: 'decline', from: ['PENDING'], to: 'DECLINED', roles: RUNS_JOBS },
  { action: 'cancel', from: ['PENDING'], to: 'CANCELLED', roles: RUNS_JOBS },
];

export type FaultAction = 'close';
export const FAULT_TRANSITIONS: readonly Transition<FaultState, FaultAction>[] = [
  { action: 'close', from: ['OPEN'], to: 'CLOSED', roles: ['admin', 'operator'] },
];

/** Who plans work: creates and assigns jobs, keeps schedules of recurring jobs, creates follow-up jobs. */
const PLANS_JOBS: readonly Role[] = ['admin', 'operator', 'publisher'];

export type ScheduleAction = 'pause' | 'resume';
export const SCHEDULE_TRANSITIONS: readonly Transition<ScheduleState, ScheduleAction>[] = [
  { action: 'pause', from: ['ACTIVE'], to: 'PAUSED', roles: PLANS_JOBS },
  { action: 'resume', from: ['PAUSED'], to: 'ACTIVE', roles: PLANS_JOBS },
];

/**
 * The state `action` leads to from `state` for a caller holding `roles`.
 * @throws AppError FORBIDDEN when no role of the caller may perform the action,
 *   INVALID_TRANSITION when the action does not apply in this state
 */
export function transition<S extends string, A extends string>(
  table: readonly Transition<S, A>[],
  state: S,
  action: A,
  roles: readonly string[],
): S {
  const rows = table.filter((row) => row.action === action);
  if (rows.length === 0) throw new Error(`unknown action ${action}`);
  if (!rows.some((row) => hasAnyRole(roles, row.roles))) throw forbidden();
  const row = rows.find((r) => r.from.includes(state));
  if (!row) {
    throw new AppError('INVALID_TRANSITION', `Cannot ${action} in state ${state}`, {
      action,
      state,
      allowedFrom: rows.flatMap((r) => r.from),
    });
  }
  return row.to;
}

/** Who may perform each action of a table: for the docs' tables and the authorization tests. */
export function rolesFor<S extends string, A extends string>(table: readonly Transition<S, A>[], action: A): readonly Role[] {
  return [...new Set(table.filter((row) => row.action === action).flatMap((row) => row.roles))];
}

/** Non-transition permissions of the domain, in the same one place. */
export const DOMAIN_PERMISSIONS = {
  /** create templates and edit drafts (and start a new draft) */
  author: ['admin', 'author'],
  /** create jobs from published versions */
  createJob: PLANS_JOBS,
  /** create, edit, pause and delete schedules of recurring jobs (docs/recurring-and-follow-up-jobs.md) */
  manageSchedules: PLANS_JOBS,
  /** create a follow-up job from a fault or a FAILED step (a job like createJob's, linked to the fault) */
  createFollowUpJob: PLANS_JOBS,
  /** record steps, raise faults, hand off and co-work */
  runJob: RUNS_JOBS,
  /** assets, locations, asset classes, sensors, organizations */
  manageCatalogue: ['admin', 'author'],
  /** send sensor readings (a device signs in as an operator account) */
  sendReadings: ['admin', 'operator'],
  /** read editorial analytics (views, edits, dwell per step) of templates */
  readEditorial: ['admin', 'author', 'approver', 'publisher'],
  /** upload and replace files: step media (authors), photos and signatures (job runners) */
  uploadFiles: ['admin', 'author', 'operator'],
  /** delete any file of the client (other uploaders delete only their own) */
  deleteAnyFile: ['admin', 'author'],
  /** list deviations, acknowledge them and review jobs (the review's own transition: JOB_TRANSITIONS' review) */
  reviewDeviations: ['admin', 'approver'],
  /** see the audit trail */
  readAudit: ['admin', 'user_admin'],
  /** create a client's skills (docs/qualifications.md) */
  manageSkills: ['admin', 'user_admin'],
  /** grant and revoke users' skills, signing as trainer: the supervisor-type roles (never to oneself) */
  grantSkills: ['admin', 'user_admin', 'publisher'],
  /**
   * let a user lacking a required skill work on a job anyway, with a reason: a signed deviation, an approver's kind
   * of act — so a supervisor needs no publishing right for it (operator + approver, docs/guides/supervisor.md)
   */
  overrideQualification: ['admin', 'approver', 'publisher'],
  /** read the skill matrix and the skills expiring soon */
  readQualifications: ['admin', 'user_admin', 'approver', 'publisher'],
} as const satisfies Record<string, readonly Role[]>;

/** @throws AppError FORBIDDEN unless `roles` holds one of `allowed` */
export function requireRole(roles: readonly string[], allowed: readonly Role[]): void {
  if (!hasAnyRole(roles, allowed)) throw forbidden();
}
