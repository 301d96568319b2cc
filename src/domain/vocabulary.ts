/**
 * The names the server, the database, the GraphQL schema, the floor app and the console share: states, kinds and
 * statuses, each declared once here as a list (in the order the GraphQL enums list them) and the type of its
 * values. The row types (src/db/schema.ts) and the rules (src/domain, src/policies) import them; so do the floor app
 * and the GraphQL modules, whose plain enums are written from these lists.
 *
 * This module imports nothing: it is the bottom of the layer order (.dependency-cruiser.cjs, `vocabulary`), so that
 * the database's row types, below the domain's rules, may use it too.
 */

/** A template version's life (VERSION_TRANSITIONS, src/policies/transitions.ts). */
export const VERSION_STATES = ['DRAFT', 'IN_REVIEW', 'APPROVED', 'PUBLISHED', 'RETIRED'] as const;
export type VersionState = (typeof VERSION_STATES)[number];

/** What a version's e-signature means. */
export const SIGNATURE_MEANINGS = ['APPROVED', 'PUBLISHED', 'REJECTED'] as const;
export type SignatureMeaning = (typeof SIGNATURE_MEANINGS)[number];

/** What a step's sign-off means (docs/execution-rules.md). */
export const STEP_SIGNATURE_MEANINGS = ['PERFORMED', 'VERIFIED'] as const;
export type StepSignatureMeaning = (typeof STEP_SIGNATURE_MEANINGS)[number];

/** The kinds of a step's fields (src/domain/content.ts). */
export const FIELD_TYPES = ['TEXT', 'NUMBER', 'PASS_FAIL', 'CHOICE', 'PHOTO', 'SIGNATURE', 'SENSOR', 'CALCULATED'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
/** The field types a formula may read and a condition may compare as numbers. */
export const NUMERIC_FIELD_TYPES: ReadonlySet<FieldType> = new Set(['NUMBER', 'SENSOR', 'CALCULATED']);

/** A job's life (JOB_TRANSITIONS, src/policies/transitions.ts). */
export const JOB_STATES = ['OPEN', 'IN_PROGRESS', 'PAUSED', 'COMPLETED', 'CANCELLED', 'REVIEWED'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** A job's priority (GraphQL `Priority`). */
export const JOB_PRIORITIES = ['HIGH', 'MEDIUM', 'LOW'] as const;
export type JobPriority = (typeof JOB_PRIORITIES)[number];

/** How a step was recorded. */
export const STEP_STATUSES = ['DONE', 'SKIPPED', 'FAILED'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

export const FAULT_SEVERITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
export type FaultSeverity = (typeof FAULT_SEVERITIES)[number];

export const FAULT_STATES = ['OPEN', 'CLOSED'] as const;
export type FaultState = (typeof FAULT_STATES)[number];

/** What went other than planned on a job (docs/execution-rules.md). */
export const DEVIATION_KINDS = [
  'OUT_OF_LIMITS',
  'STEP_FAILED',
  'NOT_APPLICABLE',
  'FAULT',
  'OVERRIDE',
  'LATE_COMPLETION',
  // a write a device had been told was recorded, lost with a restore and refused when sent again
  'UNAPPLIED_CHANGE',
] as const;
export type DeviationKind = (typeof DEVIATION_KINDS)[number];

/** How a person took part in a step of a job: recorded its values, or signed it PERFORMED or VERIFIED. */
export const REVIEW_PARTS = ['RECORDED', 'PERFORMED', 'VERIFIED'] as const;
export type ReviewPart = (typeof REVIEW_PARTS)[number];

/** A hand-off's life (HAND_OFF_TRANSITIONS). */
export const HAND_OFF_STATUSES = ['PENDING', 'ACCEPTED', 'DECLINED', 'CANCELLED'] as const;
export type HandOffStatus = (typeof HAND_OFF_STATUSES)[number];

/** A recurring job's schedule (SCHEDULE_TRANSITIONS; docs/recurring-and-follow-up-jobs.md). */
export const SCHEDULE_STATES = ['ACTIVE', 'PAUSED'] as const;
export type ScheduleState = (typeof SCHEDULE_STATES)[number];

/** What the worker does with an occurrence whose time has passed when it gets to it (after a pause of the daemon, a gap). */
export const MISSED_OCCURRENCES = ['CREATE', 'SKIP'] as const;
export type MissedOccurrences = (typeof MISSED_OCCURRENCES)[number];

export const OCCURRENCE_STATUSES = ['CREATED', 'SKIPPED'] as const;
export type OccurrenceStatus = (typeof OCCURRENCE_STATUSES)[number];

/** Whom a client requires a second factor of. */
export const TWO_FACTOR_REQUIREMENTS = ['off', 'all', 'admins'] as const;
export type TwoFactorRequirement = (typeof TWO_FACTOR_REQUIREMENTS)[number];

/** The kinds of single sign-on provider; `directory` is no sign-in page (it provisions users). */
export const SSO_PROVIDER_KINDS = ['oidc', 'saml', 'dynamics', 'directory'] as const;
export type SsoProviderKind = (typeof SSO_PROVIDER_KINDS)[number];
