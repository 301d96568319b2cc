import type { Permission } from './permissions';

/**
 * Which permission (./permissions.ts) each GraphQL operation needs, one name per operation. The GraphQL layer
 * checks it before the resolver runs (src/graphql/schema.ts: a refused caller gets FORBIDDEN and the service is
 * never called); the services check their own rule again with the same table. The authorization matrix test
 * (test/http/authorization-matrix.test.ts) checks every cell against the running server — every role, token state
 * and foreign client — and the schema refuses to build with an operation missing here, so a new one is a
 * deliberate decision.
 *
 * `any`: every signed-in client user (what they then see is scoped to their
 * client and, for templates, to their visibility).
 */
export const GRAPHQL_OPERATIONS: Record<string, Permission | 'any'> = {
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
  createOrganization: 'manageCatalogue',
  createAsset: 'manageCatalogue',
  createAssetClass: 'manageCatalogue',
  createLocation: 'manageCatalogue',
  createSensor: 'manageCatalogue',
  // templates
  createTemplate: 'author',
  updateTemplate: 'author',
  createDraft: 'author',
  updateDraft: 'author',
  submitVersion: 'submitVersion',
  rejectVersion: 'rejectVersion',
  approveVersion: 'approveVersion',
  // a version's translation is approved by those who approve versions (services/translations.ts)
  approveTranslation: 'approveVersion',
  publishVersion: 'publishVersion',
  retireVersion: 'retireVersion',
  // jobs
  createJob: 'createJob',
  startJob: 'startJob',
  pauseJob: 'pauseJob',
  resumeJob: 'resumeJob',
  completeJob: 'completeJob',
  cancelJob: 'cancelJob',
  recordStep: 'runJob',
  // who signs depends on the step: PERFORMED the job's runners, VERIFIED the roles the template names (any role);
  // the service checks both (src/services/signoffs.ts)
  signStep: 'any',
  raiseFault: 'runJob',
  closeFault: 'closeFault',
  exportRecordBundle: 'any',
  // deviations and review by exception (docs/execution-rules.md): read like jobs; acknowledged and reviewed by reviewers
  deviations: 'any',
  acknowledgeDeviation: 'reviewDeviations',
  markStepNotApplicable: 'runJob',
  reviewJob: 'reviewJob',
  // qualifications (docs/qualifications.md): skills are read by everyone (templates name them), the matrix by supervisors
  skills: 'any',
  skillMatrix: 'readQualifications',
  expiringSkills: 'readQualifications',
  qualificationOverrides: 'readQualifications',
  mySkills: 'any',
  myRetrainings: 'any',
  createSkill: 'manageSkills',
  grantSkill: 'grantSkills',
  revokeSkill: 'grantSkills',
  overrideQualification: 'overrideQualification',
  // a retraining is the caller's own
  acknowledgeRetraining: 'any',
  // recurring and follow-up jobs: schedules are read by every user of the client, like jobs
  schedules: 'any',
  // the next occurrences of a rule before it is saved: the app's schedule form, for whoever may save one
  schedulePreview: 'manageSchedules',
  createSchedule: 'manageSchedules',
  updateSchedule: 'manageSchedules',
  pauseSchedule: 'pauseSchedule',
  resumeSchedule: 'resumeSchedule',
  deleteSchedule: 'manageSchedules',
  createFollowUpJob: 'createFollowUpJob',
  // onboarding
  completeTutorial: 'any',
  // the caller's own account
  setNotificationPreferences: 'any',
};
