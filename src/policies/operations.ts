import type { Role } from './roles';
import { DOMAIN_PERMISSIONS, FAULT_TRANSITIONS, JOB_TRANSITIONS, rolesFor, SCHEDULE_TRANSITIONS, VERSION_TRANSITIONS } from './transitions';

/**
 * Who may call each GraphQL operation, declared in one table built from the
 * same permission and transition tables the services enforce. REST routes
 * declare theirs on the route (`auth`, `roles`). The authorization matrix test
 * (test/http/authorization-matrix.test.ts) checks every cell of both against
 * the running server — every role, token state and foreign client — and
 * refuses an operation missing here, so a new one is a deliberate decision.
 *
 * `any`: every signed-in client user (what they then see is scoped to their
 * client and, for templates, to their visibility).
 */
export const GRAPHQL_OPERATION_ROLES: Record<string, readonly Role[] | 'any'> = {
  // reads
  me: 'any',
  dataEpoch: 'any',
  organizations: 'any',
  assets: 'any',
  assetClasses: 'any',
  locations: 'any',
  sensors: 'any',
  templates: 'any',
  template: 'any',
  templateVersion: 'any',
  versionDiff: 'any',
  reviewQueue: 'any',
  jobs: 'any',
  job: 'any',
  faults: 'any',
  tutorials: 'any',
  // records anyone can verify: the keys' fingerprints; a finished job's signed bundle, for whoever reads the job
  signingKeys: 'any',
  node: 'any',
  nodes: 'any',
  notificationPreferences: 'any',
  // catalogue
  createOrganization: DOMAIN_PERMISSIONS.manageCatalogue,
  createAsset: DOMAIN_PERMISSIONS.manageCatalogue,
  createAssetClass: DOMAIN_PERMISSIONS.manageCatalogue,
  createLocation: DOMAIN_PERMISSIONS.manageCatalogue,
  createSensor: DOMAIN_PERMISSIONS.manageCatalogue,
  // templates
  createTemplate: DOMAIN_PERMISSIONS.author,
  updateTemplate: DOMAIN_PERMISSIONS.author,
  createDraft: DOMAIN_PERMISSIONS.author,
  updateDraft: DOMAIN_PERMISSIONS.author,
  submitVersion: rolesFor(VERSION_TRANSITIONS, 'submit'),
  rejectVersion: rolesFor(VERSION_TRANSITIONS, 'reject'),
  approveVersion: rolesFor(VERSION_TRANSITIONS, 'approve'),
  // a version's translation is approved by those who approve versions (services/translations.ts)
  approveTranslation: rolesFor(VERSION_TRANSITIONS, 'approve'),
  publishVersion: rolesFor(VERSION_TRANSITIONS, 'publish'),
  retireVersion: rolesFor(VERSION_TRANSITIONS, 'retire'),
  // jobs
  createJob: DOMAIN_PERMISSIONS.createJob,
  startJob: rolesFor(JOB_TRANSITIONS, 'start'),
  pauseJob: rolesFor(JOB_TRANSITIONS, 'pause'),
  resumeJob: rolesFor(JOB_TRANSITIONS, 'resume'),
  completeJob: rolesFor(JOB_TRANSITIONS, 'complete'),
  cancelJob: rolesFor(JOB_TRANSITIONS, 'cancel'),
  recordStep: DOMAIN_PERMISSIONS.runJob,
  // who signs depends on the step: PERFORMED the job's runners, VERIFIED the roles the template names (any role);
  // the service checks both (src/services/signoffs.ts)
  signStep: 'any',
  raiseFault: DOMAIN_PERMISSIONS.runJob,
  closeFault: rolesFor(FAULT_TRANSITIONS, 'close'),
  exportRecordBundle: 'any',
  // deviations and review by exception (docs/execution-rules.md): read like jobs; acknowledged and reviewed by reviewers
  deviations: 'any',
  acknowledgeDeviation: DOMAIN_PERMISSIONS.reviewDeviations,
  markStepNotApplicable: DOMAIN_PERMISSIONS.runJob,
  reviewJob: rolesFor(JOB_TRANSITIONS, 'review'),
  // qualifications (docs/qualifications.md): skills are read by everyone (templates name them), the matrix by supervisors
  skills: 'any',
  skillMatrix: DOMAIN_PERMISSIONS.readQualifications,
  expiringSkills: DOMAIN_PERMISSIONS.readQualifications,
  qualificationOverrides: DOMAIN_PERMISSIONS.readQualifications,
  mySkills: 'any',
  myRetrainings: 'any',
  createSkill: DOMAIN_PERMISSIONS.manageSkills,
  grantSkill: DOMAIN_PERMISSIONS.grantSkills,
  revokeSkill: DOMAIN_PERMISSIONS.grantSkills,
  overrideQualification: DOMAIN_PERMISSIONS.overrideQualification,
  // a retraining is the caller's own
  acknowledgeRetraining: 'any',
  // recurring and follow-up jobs: schedules are read by every user of the client, like jobs
  schedules: 'any',
  // the next occurrences of a rule before it is saved: the app's schedule form, for whoever may save one
  schedulePreview: DOMAIN_PERMISSIONS.manageSchedules,
  createSchedule: DOMAIN_PERMISSIONS.manageSchedules,
  updateSchedule: DOMAIN_PERMISSIONS.manageSchedules,
  pauseSchedule: rolesFor(SCHEDULE_TRANSITIONS, 'pause'),
  resumeSchedule: rolesFor(SCHEDULE_TRANSITIONS, 'resume'),
  deleteSchedule: DOMAIN_PERMISSIONS.manageSchedules,
  createFollowUpJob: DOMAIN_PERMISSIONS.createFollowUpJob,
  // onboarding
  completeTutorial: 'any',
  // the caller's own account
  setNotificationPreferences: 'any',
};
