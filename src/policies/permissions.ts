import { forbidden } from '#errors';
import { hasAnyRole, SECURITY_ADMIN, type Role } from './roles';
import {
  FAULT_TRANSITIONS,
  HAND_OFF_TRANSITIONS,
  JOB_TRANSITIONS,
  PLANS_JOBS,
  rolesFor,
  RUNS_JOBS,
  SCHEDULE_TRANSITIONS,
  VERSION_TRANSITIONS,
} from './transitions';

/**
 * Who may do what: the one table of permissions, action → the roles that may perform it. A REST route names its
 * permission (`permission` in its declaration, checked by the route's guard), a GraphQL operation its own
 * (./operations.ts, checked before the resolver runs), a service the one its rule needs (`requirePermission`), the
 * floor app what it shows (src/app/api/session.ts); the authorization matrix test
 * (test/http/authorization-matrix.test.ts) reads this same table and checks every cell against the running server.
 *
 * The actions of the state machines come from their transition tables (./transitions.ts), which `transition()`
 * enforces: the two cannot disagree. Rules that depend on the particular person (separation of duties, the receiver
 * of a hand-off, the verifier roles a template names) stay in the services.
 */
export const PERMISSIONS = {
  // templates and their versions
  /** create templates and edit drafts (and start a new draft) */
  author: ['admin', 'author'],
  submitVersion: rolesFor(VERSION_TRANSITIONS, 'submit'),
  rejectVersion: rolesFor(VERSION_TRANSITIONS, 'reject'),
  /** approve a version, and a version's translation */
  approveVersion: rolesFor(VERSION_TRANSITIONS, 'approve'),
  publishVersion: rolesFor(VERSION_TRANSITIONS, 'publish'),
  retireVersion: rolesFor(VERSION_TRANSITIONS, 'retire'),
  /** read editorial analytics (views, edits, dwell per step) of templates */
  readEditorial: ['admin', 'author', 'approver', 'publisher'],

  // jobs
  /** create jobs from published versions, assign them, see the supervisor's board */
  createJob: PLANS_JOBS,
  /** create, edit, pause and delete schedules of recurring jobs (docs/recurring-and-follow-up-jobs.md) */
  manageSchedules: PLANS_JOBS,
  pauseSchedule: rolesFor(SCHEDULE_TRANSITIONS, 'pause'),
  resumeSchedule: rolesFor(SCHEDULE_TRANSITIONS, 'resume'),
  /** create a follow-up job from a fault or a FAILED step (a job like createJob's, linked to the fault) */
  createFollowUpJob: PLANS_JOBS,
  /** record steps, raise faults, hand off and co-work */
  runJob: RUNS_JOBS,
  startJob: rolesFor(JOB_TRANSITIONS, 'start'),
  pauseJob: rolesFor(JOB_TRANSITIONS, 'pause'),
  resumeJob: rolesFor(JOB_TRANSITIONS, 'resume'),
  completeJob: rolesFor(JOB_TRANSITIONS, 'complete'),
  cancelJob: rolesFor(JOB_TRANSITIONS, 'cancel'),
  /** review by exception: an e-signature on a completed job (docs/execution-rules.md) */
  reviewJob: rolesFor(JOB_TRANSITIONS, 'review'),
  /** receive a hand-off (accept it): who may be offered one */
  acceptHandOff: rolesFor(HAND_OFF_TRANSITIONS, 'accept'),
  closeFault: rolesFor(FAULT_TRANSITIONS, 'close'),
  /** list deviations, acknowledge them and review jobs (the review's own transition: reviewJob) */
  reviewDeviations: ['admin', 'approver'],

  // catalogue, sensors, files
  /** assets, locations, asset classes, sensors, organizations */
  manageCatalogue: ['admin', 'author'],
  /** send sensor readings (a device signs in as an operator account) */
  sendReadings: ['admin', 'operator'],
  /** upload and replace files: step media (authors), photos and signatures (job runners) */
  uploadFiles: ['admin', 'author', 'operator'],
  /** delete any file of the client (other uploaders delete only their own) */
  deleteAnyFile: ['admin', 'author'],

  // qualifications (docs/qualifications.md)
  /** create a client's skills */
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

  // the client's account
  /** see the audit trail */
  readAudit: ['admin', 'user_admin'],
  /** the Security Administrator's acts: users, single sign-on, security settings, the agreement, copies between clients */
  administerSecurity: [SECURITY_ADMIN],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

/** Whether a holder of `roles` may perform `permission`. */
export function permitted(roles: readonly string[], permission: Permission): boolean {
  return hasAnyRole(roles, PERMISSIONS[permission]);
}

/** @throws AppError FORBIDDEN unless `roles` may perform `permission` */
export function requirePermission(roles: readonly string[], permission: Permission): void {
  if (!permitted(roles, permission)) throw forbidden();
}
