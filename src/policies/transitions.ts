import { AppError, forbidden } from '#errors';
import { hasAnyRole, type Role } from './roles';
import type { FaultState, HandOffStatus, JobState, ScheduleState, VersionState } from '#db/schema';

/**
 * Every state machine of the domain as data: one table per stateful thing,
 * rows `{action, from, to, roles}`. `transition()` is the one function that
 * applies them; services, GraphQL and REST never compare states by hand. Who
 * may perform each action enters the one permission table (./permissions.ts)
 * from here, so the routes, the GraphQL operations and the authorization tests
 * read the same roles `transition()` enforces.
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

export const VERSION_ACTIONS = ['submit', 'reject', 'approve', 'publish', 'retire'] as const;
export type VersionAction = (typeof VERSION_ACTIONS)[number];
export const VERSION_TRANSITIONS: readonly Transition<VersionState, VersionAction>[] = [
  { action: 'submit', from: ['DRAFT'], to: 'IN_REVIEW', roles: ['admin', 'author'] },
  { action: 'reject', from: ['IN_REVIEW'], to: 'DRAFT', roles: ['admin', 'approver'] },
  { action: 'approve', from: ['IN_REVIEW'], to: 'APPROVED', roles: ['admin', 'approver'] },
  // publishing retires the template's previously published version (the service does that in the same transaction)
  { action: 'publish', from: ['APPROVED'], to: 'PUBLISHED', roles: ['admin', 'publisher'] },
  { action: 'retire', from: ['PUBLISHED'], to: 'RETIRED', roles: ['admin', 'publisher'] },
];

export type JobAction = 'start' | 'pause' | 'resume' | 'complete' | 'cancel' | 'review';
/** Who runs jobs: records steps, raises faults, hands off and co-works. */
export const RUNS_JOBS: readonly Role[] = ['admin', 'operator'];
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
export const PLANS_JOBS: readonly Role[] = ['admin', 'operator', 'publisher'];

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

/** Who may perform each action of a table: read by the permission table (./permissions.ts). */
export function rolesFor<S extends string, A extends string>(table: readonly Transition<S, A>[], action: A): readonly Role[] {
  return [...new Set(table.filter((row) => row.action === action).flatMap((row) => row.roles))];
}
