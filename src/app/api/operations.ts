import { jobDocumentFields, jobQueryOf } from '../offline/job-data';
import { RAISE_FAULT, RECORD_STEP, transitionMutation } from '../offline/sync';
import { HAND_OFFS, jobRecordQuery } from '../areas/jobs/record';
import { MARK } from '../areas/operator/step-rules';
import { JOBS } from '../areas/operator/job-list';
import { signStepMutation } from '../rules/sign-step-dialog';

/**
 * The app's GraphQL operations typed from schema.graphql: each named operation, the document exactly as the app
 * builds it — with the fields a newer server has selected (jobDocumentFields(true)). `npm run graphql:types`
 * (scripts/graphql-app-types.ts) validates them against schema.graphql and writes their answers' and variables'
 * types to ./operation-types.ts; test/unit/app-graphql-types.test.ts fails when one does not validate, when the
 * types are stale, or when the app sends a named operation that is neither here nor in NOT_TYPED_YET.
 * Only the generator reads this module: the app imports the documents from where they are used.
 */
const JOB = jobDocumentFields(true);

export const APP_OPERATIONS: Record<string, string> = {
  OperatorJob: jobQueryOf(JOB),
  OperatorJobs: JOBS,
  AppJobRecord: jobRecordQuery(JOB),
  AppJobHandOffs: HAND_OFFS,
  RecordStep: RECORD_STEP,
  RaiseFault: RAISE_FAULT,
  // pauseJob and resumeJob answer the same JobPayload
  Transition: transitionMutation('completeJob'),
  AppMarkNotApplicable: MARK(JOB),
  AppSignStep: signStepMutation(JOB),
};

/** Named operations whose answers the app still types by hand: each one moved into APP_OPERATIONS leaves this list. */
export const NOT_TYPED_YET: readonly string[] = [
  'Acknowledge',
  'AppStepFields',
  'AppToVerify',
  'AppVerifyJob',
  'Approve',
  'Assets',
  'AssigneeQualifications',
  'AuthorAssetClasses',
  'AuthorCreateDraft',
  'AuthorCreateTemplate',
  'AuthorLibrary',
  'AuthorSaveDraft',
  'AuthorSensors',
  'AuthorSkills',
  'AuthorSubmit',
  'AuthorTemplate',
  'AuthorTranslations',
  'AuthorUpdateTemplate',
  'AuthorVersion',
  'ClassesAndTeams',
  'CreateFollowUpJob',
  'CreateJob',
  'CreateSchedule',
  'CreateSkill',
  'DeleteSchedule',
  'Exceptions',
  'GrantSkill',
  'OlderJobs',
  'OverrideQualification',
  'Publish',
  'PublishedTemplates',
  'RecentOverrides',
  'Reject',
  'ReviewDiff',
  'ReviewHome',
  'ReviewJob',
  'ReviewQueue',
  'ReviewTemplate',
  'ReviewVersion',
  'RevokeSkill',
  'ScanAssets',
  'Schedule',
  'SchedulePreview',
  'Schedules',
  'SetSchedulePaused',
  'SkillMatrix',
  'UpdateSchedule',
];
