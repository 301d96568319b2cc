import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import type {
  VersionState,
  SignatureMeaning,
  StepSignatureMeaning,
  JobState,
  JobPriority,
  StepStatus,
  FaultSeverity,
  FaultState,
  DeviationKind,
  HandOffStatus,
  ScheduleState,
  MissedOccurrences,
  OccurrenceStatus,
  TwoFactorRequirement,
  SsoProviderKind,
} from '#domain/vocabulary';

// the shared names (states, kinds) are the domain's vocabulary, declared once there; re-exported for the row types' readers
export type {
  VersionState,
  SignatureMeaning,
  StepSignatureMeaning,
  JobState,
  JobPriority,
  StepStatus,
  FaultSeverity,
  FaultState,
  DeviationKind,
  HandOffStatus,
  ScheduleState,
  MissedOccurrences,
  OccurrenceStatus,
  TwoFactorRequirement,
  SsoProviderKind,
} from '#domain/vocabulary';

/**
 * Table types, one interface a table, snake_case as stored. Timestamps are
 * ISO-8601 UTC text (portable, sortable). Tenant-owned tables carry client_id.
 */
export interface SystemAdminsTable {
  id: Generated<number>;
  username: string;
  password_hash: string;
  created_at: string;
  updated_at: string;
}

export interface AdminSessionsTable {
  id: Generated<number>;
  admin_id: number;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  ip: string | null;
  user_agent: string | null;
  /** sha256 of the console's session cookie value; null for a bearer-only session */
  cookie_hash: string | null;
  /** last request of a cookie session (idle timeout); null for a bearer-only session */
  last_seen_at: string | null;
}

export interface ClientsTable {
  id: Generated<number>;
  name: string;
  /** a system file (POST /api/admin/upload) shown as the client's logo */
  logo_file_id: Generated<number | null>;
  /** IANA time zone the client's schedules recur in (migration 0035) */
  time_zone: Generated<string>;
  created_at: string;
  updated_at: string;
}

export const USER_STATUSES = ['active', 'invited', 'disabled'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

export interface UsersTable {
  id: Generated<number>;
  client_id: number;
  email: string;
  /** lower-cased email: uniqueness within a client is case-insensitive */
  email_normalized: string;
  first_name: string;
  last_name: string;
  title: string;
  license_type: string;
  status: UserStatus;
  password_hash: string | null;
  /** JSON array of organization identifiers */
  available_to_org: string;
  created_at: string;
  updated_at: string;
}

export interface UserRolesTable {
  client_id: number;
  user_id: number;
  role: string;
}

export interface LicensesTable {
  id: Generated<number>;
  client_id: number;
  license_type: string;
  seats: number;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface SessionsTable {
  id: Generated<number>;
  client_id: number;
  user_id: number;
  cookie_hash: string | null;
  created_at: string;
  last_seen_at: string;
  /** absolute end: the refresh token lifetime */
  expires_at: string;
  revoked_at: string | null;
  ip: string | null;
  user_agent: string | null;
}

export interface RefreshTokensTable {
  id: Generated<number>;
  client_id: number;
  session_id: number;
  token_hash: string;
  expires_at: string;
  /** set when rotated; presenting a used token again is reuse */
  used_at: string | null;
  created_at: string;
}

/** invite and reset are emailed links; two_factor is the sign-in challenge between password and code */
/** sso_code: the one-time code an SSO callback hands the web app, exchanged for tokens */
export type UserTokenPurpose = 'invite' | 'reset' | 'two_factor' | 'sso_code';

export interface UserTokensTable {
  id: Generated<number>;
  client_id: number;
  user_id: number;
  purpose: UserTokenPurpose;
  token_hash: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export type LogLevel = 'info' | 'warn' | 'error';

export interface LogsTable {
  id: Generated<number>;
  created_at: string;
  level: LogLevel;
  /** dotted event name, e.g. auth.sign_in_failed */
  event: string;
  message: string;
  client_id: number | null;
  user_id: number | null;
  admin_id: number | null;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
  /** JSON object with event-specific detail (never secrets) */
  data: string;
  /** who did it: 'admin' | 'user' | 'cli' | 'system' (NULL when nobody is known and on rows older than migration 0023) */
  actor_kind: string | null;
  /** the admin's or user's id; NULL for the CLI and the system */
  actor_id: number | null;
  /** the actor's name when the event was recorded */
  actor_name: string | null;
}

export type OutboxStatus = 'pending' | 'sent' | 'stored' | 'failed';

export interface OutboxTable {
  id: Generated<number>;
  created_at: string;
  updated_at: string;
  client_id: number | null;
  user_id: number | null;
  /** template name: invitation, password_reset, password_changed, two_factor_reset */
  kind: string;
  to_address: string;
  subject: string;
  /** emptied once delivered over SMTP: it may hold a live link */
  text_body: string;
  status: OutboxStatus;
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  sent_at: string | null;
}

export interface ClientSettingsTable {
  client_id: number;
  password_min_length: number;
  two_factor_required: TwoFactorRequirement;
  /** seconds; null: the appliance default (sessionIdleTtl) */
  session_idle_timeout: number | null;
  /** JSON array of lower-case domains */
  allowed_sign_up_domains: string;
  sso_enforced: number;
  /** 1: an approver may approve a version they authored or last edited (separation of duties relaxed) */
  allow_self_approval: Generated<number>;
  /** bytes of distinct content the client may store; null: unlimited */
  storage_quota_bytes: Generated<number | null>;
  updated_at: string;
}

export interface AuthFailuresTable {
  id: Generated<number>;
  key: string;
  created_at: string;
}

export interface AuthLockoutsTable {
  key: string;
  locked_until: string;
  created_at: string;
}

export interface UserTwoFactorTable {
  client_id: number;
  user_id: number;
  /** the TOTP secret, sealed with the data directory's key */
  secret: string;
  enabled_at: string | null;
  /** the last accepted TOTP time step: a code of that step or older is a replay */
  last_used_step: number;
  /** JSON array of SHA-256 hashes of unused recovery codes */
  recovery_codes: string;
  created_at: string;
  updated_at: string;
}

export interface InstalledLicensesTable {
  id: Generated<number>;
  /** the key as installed (verified again whenever it is loaded) */
  license_key: string;
  kid: string;
  license_id: string;
  licensee: string;
  expires_at: string;
  installed_at: string;
  /** who installed it: "admin:<id>" or "cli" */
  installed_by: string;
}

/** One row (id 1). */
export interface DeploymentStateTable {
  id: number;
  installation_id: string;
  /** the current installed_licenses row; null: evaluation mode */
  license_row_id: number | null;
  /** newest time seen by the appliance, for clock-rollback detection */
  newest_seen_at: string | null;
  updated_at: string;
}

export type AgreementKind = 'eula' | 'msa';

export interface AgreementsTable {
  id: Generated<number>;
  kind: AgreementKind;
  version: string;
  title: string;
  body_markdown: string | null;
  /** file-store key of an uploaded PDF */
  file_key: string | null;
  file_name: string | null;
  file_size: number | null;
  effective_at: string;
  /** 1: publishing this version makes acceptances of earlier versions stale */
  requires_reacceptance: number;
  created_at: string;
  updated_at: string;
}

export interface AgreementAcceptancesTable {
  id: Generated<number>;
  client_id: number;
  agreement_id: number;
  kind: AgreementKind;
  version: string;
  /** EULA: the accepting user; MSA: the Security Administrator who accepted for the client */
  user_id: number;
  user_email: string;
  accepted_at: string;
  ip: string | null;
  user_agent: string | null;
}

// ── The work-instruction domain (migration 0005) ────────────────────────────

export interface OrganizationsTable {
  id: Generated<number>;
  client_id: number;
  name: string;
  parent_id: number | null;
  /** a system file shown as the organization's logo (else the client's) */
  logo_file_id: Generated<number | null>;
  created_at: string;
  updated_at: string;
}

export interface AssetClassesTable {
  id: Generated<number>;
  client_id: number;
  name: string;
  description: string;
  created_at: string;
  updated_at: string;
}

export interface LocationsTable {
  id: Generated<number>;
  client_id: number;
  name: string;
  parent_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface AssetsTable {
  id: Generated<number>;
  client_id: number;
  name: string;
  serial_number: string | null;
  location_id: number | null;
  asset_class_id: number | null;
  /** spatial origin of 3D content placed on the asset */
  anchor_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface TemplatesTable {
  id: Generated<number>;
  client_id: number;
  title: string;
  description: string;
  /** JSON array of strings */
  tags: string;
  asset_class_id: number | null;
  owner_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface TemplateOrganizationsTable {
  client_id: number;
  template_id: number;
  organization_id: number;
}

export interface TemplateVersionsTable {
  id: Generated<number>;
  client_id: number;
  template_id: number;
  number: number;
  state: VersionState;
  /** canonical JSON of the content document (src/domain/content.ts) */
  content: string;
  /** SHA-256 hex of `content`: what signatures sign */
  content_hash: string;
  created_by: number;
  /** last user who edited the content */
  updated_by: number;
  /** incremented by every write to the version: the optimistic lock of concurrent draft edits (expectedRevision) */
  revision: Generated<number>;
  reject_reason: string | null;
  created_at: string;
  updated_at: string;
  submitted_at: string | null;
  approved_at: string | null;
  published_at: string | null;
  retired_at: string | null;
}

/** A version's translation into one language, beside the version with its own approval (migration 0036). */
export interface VersionTranslationsTable {
  id: Generated<number>;
  client_id: number;
  version_id: number;
  /** BCP 47, canonical */
  language: string;
  /** canonical JSON: unit id → { source: SHA-256 of the source text translated, target } */
  units: string;
  /** SHA-256 of `units`: what an approval signs */
  units_hash: string;
  updated_by: number;
  updated_at: string;
  /** the units_hash approved; the translation is approved while it equals units_hash */
  approved_hash: string | null;
  approved_by: number | null;
  approver_name: string | null;
  approver_email: string | null;
  approval_method: string | null;
  approved_at: string | null;
}

export interface StepSignaturesTable {
  id: Generated<number>;
  client_id: number;
  job_id: number;
  step_id: string;
  signer_id: number;
  signer_name: string;
  signer_email: string;
  meaning: StepSignatureMeaning;
  method: string;
  /** SHA-256 of the step's recorded values (canonical JSON) when signed */
  values_hash: string;
  signed_at: string;
  /** set when the step was recorded again: the signature no longer counts */
  invalidated_at: string | null;
}

/** A client's skills (migration 0034, docs/qualifications.md). */
export interface SkillsTable {
  id: Generated<number>;
  client_id: number;
  name: string;
  description: string;
  /** 1: held or not; 2..4: levels 1..levels */
  levels: number;
  /** a grant expires this many days after it is given (null: never, unless the grant says) */
  validity_days: number | null;
  created_by: number;
  created_at: string;
}

/** A skill a user holds: one row per user and skill. */
export interface UserSkillsTable {
  id: Generated<number>;
  client_id: number;
  user_id: number;
  skill_id: number;
  level: number;
  granted_by: number;
  granted_at: string;
  expires_at: string | null;
  /** the trainer's e-signature (meaning TRAINED) */
  trainer_id: number | null;
  trainer_name: string | null;
  trainer_method: string | null;
  trained_at: string | null;
  /** when the daily notice of the coming expiry went out (a new grant clears it) */
  expiry_notified_at: string | null;
}

/** Someone allowed to work without a required skill: on one job, or on jobs of one version (job_id null). */
export interface QualificationOverridesTable {
  id: Generated<number>;
  client_id: number;
  user_id: number;
  template_id: number;
  version_id: number;
  job_id: number | null;
  reason: string;
  /** JSON: what the user lacked when the override was set */
  lacking: string;
  overridden_by: number;
  overridden_by_name: string;
  created_at: string;
}

/** A published version whose steps changed, due to be read by a user qualified on its template. */
export interface RetrainingsTable {
  id: Generated<number>;
  client_id: number;
  user_id: number;
  template_id: number;
  version_id: number;
  previous_version_id: number;
  due_since: string;
  acknowledged_at: string | null;
}

export interface VersionSignaturesTable {
  id: Generated<number>;
  client_id: number;
  version_id: number;
  signer_id: number;
  signer_name: string;
  signer_email: string;
  meaning: SignatureMeaning;
  /** password or totp: what the signer re-authenticated with */
  method: string;
  content_hash: string;
  signed_at: string;
}

export interface DeviationsTable {
  id: Generated<number>;
  client_id: number;
  job_id: number;
  kind: DeviationKind;
  step_id: string | null;
  field_key: string | null;
  /** JSON of the value that deviated (a number out of limits); null otherwise */
  value: string | null;
  /** what happened, for people: the operator's reason, the fault's description, … */
  detail: string;
  fault_id: number | null;
  /** who caused it (null: the server, e.g. a late completion found at completion) */
  raised_by: number | null;
  raised_at: string;
  /** the reviewer's comment: set together with acknowledged_by/_name/_at */
  ack_comment: string | null;
  acknowledged_by: number | null;
  acknowledged_by_name: string | null;
  acknowledged_at: string | null;
}

/** The REVIEWED e-signature on a completed job (one per job). */
export interface JobReviewsTable {
  id: Generated<number>;
  client_id: number;
  job_id: number;
  signer_id: number;
  signer_name: string;
  signer_email: string;
  method: string;
  comment: string;
  /** SHA-256 of the job's deviations as acknowledged when signed */
  deviations_hash: string;
  signed_at: string;
}

export interface JobsTable {
  id: Generated<number>;
  client_id: number;
  template_id: number;
  version_id: number;
  title: string;
  asset_id: number | null;
  priority: JobPriority;
  state: JobState;
  revision: Generated<number>;
  due_at: string | null;
  cancel_reason: string | null;
  created_by: number;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  completed_at: string | null;
}

export type JobMemberKind = 'ASSIGNEE' | 'COWORKER' | 'STEP_OWNER';

export interface JobMembersTable {
  id: Generated<number>;
  client_id: number;
  job_id: number;
  user_id: number;
  kind: JobMemberKind;
  /** the step of a STEP_OWNER; '' otherwise */
  step_id: Generated<string>;
  created_at: string;
}

export interface StepRecordsTable {
  id: Generated<number>;
  client_id: number;
  job_id: number;
  step_id: string;
  status: StepStatus;
  /** JSON array of {key, value, outOfLimits} */
  values: string;
  comment: string | null;
  /** why a step was skipped */
  reason: string | null;
  recorded_by: number;
  /** when the server stored the record (the API's receivedAt, and the deprecated recordedAt) */
  recorded_at: string;
  /** when the values were entered on the device, in server time (migration 0038; the receipt time when none was sent) */
  captured_at: string;
  /** incremented by every recording of the step, from 1 (migration 0038): what expectedStepRevision names */
  revision: Generated<number>;
}

/** Steps recorded per client, UTC day and user (migration 0020): the meter's counts, kept with every recording. */
export interface UsageStepDaysTable {
  client_id: number;
  /** YYYY-MM-DD (UTC), the day of step_records.recorded_at */
  day: string;
  /** step_records.recorded_by */
  user_id: number;
  /** step records whose latest recording was by this user on this day (rows at zero are removed) */
  steps: number;
}

/** Jobs started and completed per client and UTC day (migration 0020): the meter's job counts, kept with every job write. */
export interface UsageJobDaysTable {
  client_id: number;
  /** YYYY-MM-DD (UTC) */
  day: string;
  /** jobs whose started_at falls on this day */
  started: number;
  /** jobs whose completed_at falls on this day */
  completed: number;
}

export interface FaultsTable {
  id: Generated<number>;
  client_id: number;
  job_id: number | null;
  step_id: string | null;
  asset_id: number | null;
  description: string;
  severity: FaultSeverity;
  /** JSON array of file ids */
  photos: string;
  state: FaultState;
  raised_by: number;
  /** when the server stored the fault */
  raised_at: string;
  /** when it was raised on the device, in server time (migration 0038; the receipt time when none was sent) */
  captured_at: string;
  closed_by: number | null;
  closed_at: string | null;
  close_note: string | null;
}

// ── Recurring and follow-up jobs (migration 0035) ───────────────────────────

export interface SchedulesTable {
  id: Generated<number>;
  client_id: number;
  title: string;
  template_id: number;
  /** the pinned version; null: each occurrence runs the version published at the time */
  version_id: number | null;
  asset_id: number | null;
  /** one job per asset of the class at each occurrence */
  asset_class_id: number | null;
  /** JSON array of user ids */
  assignee_ids: string;
  /** an organization: its members who run jobs are the assignees, as they are at each occurrence */
  team_id: number | null;
  priority: JobPriority;
  due_offset_minutes: number | null;
  /** RFC 5545 RRULE value (FREQ=…;…), without DTSTART */
  rrule: string;
  /** the first occurrence as local wall-clock time, YYYY-MM-DDTHH:mm, in the client's time zone */
  starts_at: string;
  missed: MissedOccurrences;
  state: ScheduleState;
  /** occurrences up to this instant (ISO UTC) have been handled */
  generated_until: string;
  revision: Generated<number>;
  created_by: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export interface ScheduleOccurrencesTable {
  id: Generated<number>;
  client_id: number;
  schedule_id: number;
  /** ISO UTC */
  occurs_at: string;
  /** the asset's id, 0 for none: part of the unique key (schedule, occurrence, asset) */
  asset_key: number;
  status: OccurrenceStatus;
  /** why an occurrence was skipped (MISSED, NO_PUBLISHED_VERSION, NO_ASSETS) */
  reason: string | null;
  job_id: number | null;
  created_at: string;
}

export interface FollowUpJobsTable {
  id: Generated<number>;
  client_id: number;
  fault_id: number;
  job_id: number;
  /** 1: completing the job closes the fault */
  closes_fault: number;
  created_by: number;
  created_at: string;
}

export interface HandOffsTable {
  id: Generated<number>;
  client_id: number;
  job_id: number;
  from_user_id: number;
  to_user_id: number;
  status: HandOffStatus;
  note: string;
  created_at: string;
  decided_at: string | null;
}

export interface SensorsTable {
  id: Generated<number>;
  client_id: number;
  name: string;
  unit: string;
  kind: string;
  created_at: string;
  updated_at: string;
}

export interface SensorReadingsTable {
  id: Generated<number>;
  client_id: number;
  sensor_id: number;
  reading_id: string;
  value: number;
  measured_at: string;
  received_at: string;
}

export type EditorialEventType = 'VIEWED' | 'EDITED' | 'STEP_DWELL';

export interface EditorialEventsTable {
  id: Generated<number>;
  client_id: number;
  user_id: number;
  type: EditorialEventType;
  template_id: number;
  version_id: number | null;
  step_id: string | null;
  duration_ms: number | null;
  at: string;
}

export interface TutorialCompletionsTable {
  client_id: number;
  user_id: number;
  tutorial_id: string;
  completed_at: string;
}

export interface AuditEntriesTable {
  id: Generated<number>;
  client_id: number;
  /** position in the client's chain, from 1 */
  seq: number;
  actor_user_id: number | null;
  /** who, readable: "user:12 a@b.c", "admin:1 admin", "cli" */
  actor: string;
  /** dotted: template.created, version.approved, job.step_recorded… */
  action: string;
  entity_type: string;
  entity_id: string;
  /** JSON snapshots (null for creation / deletion) */
  before: string | null;
  after: string | null;
  at: string;
  /** hash of the previous entry of the client ('' * 64 zeros for the first) */
  prev_hash: string;
  hash: string;
}

/** System-wide text (client_id NULL) or one client's override; written by system administrators only. */
export interface TranslationsTable {
  id: Generated<number>;
  client_id: number | null;
  language: string;
  namespace: string;
  key: string;
  text: string;
  created_at: string;
  updated_at: string;
}

export interface BugReportsTable {
  id: Generated<number>;
  client_id: number;
  user_id: number;
  kind: 'app' | 'web';
  description: string;
  app_version: string;
  device: string;
  platform: string;
  logs: string | null;
  attachment_file_ids: string;
  created_at: string;
}

export interface WebrtcLogsTable {
  id: Generated<number>;
  client_id: number;
  user_id: number;
  call_id: string;
  at: string;
  level: string;
  message: string;
  stats: string | null;
  created_at: string;
}

export interface AuditHeadsTable {
  client_id: number;
  seq: number;
  hash: string;
}

/** Per client, one row per distinct content: ref_count rows of files/file_revisions point at it. */
export interface FileBlobsTable {
  client_id: number;
  sha256: string;
  size: number;
  ref_count: number;
  created_at: string;
}

/** Content whose last client reference was deleted: its bytes leave the store once nothing references them (migration 0014). */
export interface FileGarbageTable {
  sha256: string;
  queued_at: string;
}

export interface FilesTable {
  id: Generated<number>;
  client_id: number;
  name: string;
  description: Generated<string>;
  sha256: string;
  size: number;
  /** detected from the bytes, never taken from the client */
  content_type: string;
  revision: Generated<number>;
  uploaded_by: number | null;
  created_at: string;
  updated_at: string;
}

export interface FileRevisionsTable {
  id: Generated<number>;
  client_id: number;
  file_id: number;
  revision: number;
  name: string;
  sha256: string;
  size: number;
  content_type: string;
  uploaded_by: number | null;
  created_at: string;
  replaced_at: string;
  replaced_by: number | null;
}

export interface SystemFilesTable {
  id: Generated<number>;
  name: string;
  description: Generated<string>;
  sha256: string;
  size: number;
  content_type: string;
  uploaded_by_admin: number | null;
  created_at: string;
}

export interface ContainerNotificationsTable {
  id: Generated<number>;
  notification_id: string;
  kind: string;
  payload: string;
  authenticated_by: string;
  received_at: string;
}

export interface ErpSyncRunsTable {
  id: Generated<number>;
  client_id: number;
  started_by: number;
  started_at: string;
  finished_at: string;
  status: 'succeeded' | 'partial' | 'failed';
  pulled: number;
  created: number;
  skipped: number;
  pushed: number;
  errors: string;
}

export interface ErpWorkOrdersTable {
  client_id: number;
  external_id: string;
  job_id: number;
  created_at: string;
  result_pushed_at: string | null;
}

export interface AlignmentDataTable {
  id: Generated<number>;
  client_id: number;
  file_id: number;
  template_id: number | null;
  step_id: string | null;
  asset_id: number | null;
  format: string;
  point_count: number;
  /** JSON {min: [x, y, z], max: [x, y, z]} */
  bounds: string;
  created_by: number | null;
  created_at: string;
}

// Events and webhooks (0011_events): client_id NULL = system (see the migration).
export interface EventsTable {
  id: Generated<number>;
  client_id: number | null;
  /** evt_…: the event id of the payload and the webhook-id header */
  public_id: string;
  type: string;
  template_id: number | null;
  /** JSON {id, type, timestamp, data} */
  payload: string;
  created_at: string;
}

export interface WebhooksTable {
  id: Generated<number>;
  client_id: number | null;
  url: string;
  description: string;
  /** JSON array of event types */
  events: string;
  active: number;
  /** sealed whsec_… */
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  failing_since: string | null;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  client_id: number | null;
  webhook_id: number;
  event_id: number;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: string;
  last_status_code: number | null;
  last_duration_ms: number | null;
  last_error: string | null;
  last_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface IdempotencyKeysTable {
  principal: string;
  key: string;
  fingerprint: string;
  status: 'in_progress' | 'done';
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
  /** in progress: the process running the request (idempotency_owners); null when done (migration 0037) */
  owner: string | null;
}

/** Processes that may hold Idempotency-Keys in progress, and their leases (migration 0037). */
export interface IdempotencyOwnersTable {
  owner: string;
  node: string;
  lease_until: string;
}

/** The data epoch devices are told (Wip-Data-Epoch): one row, replaced by every restore (migration 0037). */
export interface DataEpochTable {
  id: number;
  epoch: string;
  changed_at: string;
  reason: 'created' | 'restore';
}

/** PostgreSQL mode: secrets shared by all nodes, sealed with WIP_MASTER_KEY (migration 0018). */
export interface AuditCheckpointsTable {
  id: Generated<number>;
  client_id: number;
  seq: number;
  hash: string;
  kid: string;
  /** flattened JWS, JSON text */
  jws: string;
  /** base64 DER RFC 3161 TimeStampToken, or null */
  timestamp_token: string | null;
  timestamp_attempts: Generated<number>;
  timestamp_error: string | null;
  created_at: string;
}
export interface SharedSecretsTable {
  name: string;
  sealed: string;
  created_at: string;
}

/** PostgreSQL mode: request rate-limit counters shared by the nodes (migration 0019). */
export interface RateLimitsTable {
  key: string;
  hits: number;
  /** Unix ms; bigint, which the pg driver returns as a string */
  reset_at: number | string;
}

/** Work that must happen once per period across the nodes: when it last ran (migration 0021). */
export interface MaintenanceRunsTable {
  name: string;
  last_run_at: string;
  last_node: string;
}

export interface DB {
  audit_checkpoints: AuditCheckpointsTable;
  maintenance_runs: MaintenanceRunsTable;
  shared_secrets: SharedSecretsTable;
  rate_limits: RateLimitsTable;
  file_blobs: FileBlobsTable;
  file_garbage: FileGarbageTable;
  files: FilesTable;
  file_revisions: FileRevisionsTable;
  system_files: SystemFilesTable;
  container_notifications: ContainerNotificationsTable;
  erp_sync_runs: ErpSyncRunsTable;
  erp_work_orders: ErpWorkOrdersTable;
  alignment_data: AlignmentDataTable;
  outbox: OutboxTable;
  client_settings: ClientSettingsTable;
  auth_failures: AuthFailuresTable;
  auth_lockouts: AuthLockoutsTable;
  user_two_factor: UserTwoFactorTable;
  logs: LogsTable;
  system_admins: SystemAdminsTable;
  admin_sessions: AdminSessionsTable;
  clients: ClientsTable;
  users: UsersTable;
  user_roles: UserRolesTable;
  licenses: LicensesTable;
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
  user_tokens: UserTokensTable;
  installed_licenses: InstalledLicensesTable;
  deployment_state: DeploymentStateTable;
  agreements: AgreementsTable;
  agreement_acceptances: AgreementAcceptancesTable;
  organizations: OrganizationsTable;
  asset_classes: AssetClassesTable;
  locations: LocationsTable;
  assets: AssetsTable;
  templates: TemplatesTable;
  template_organizations: TemplateOrganizationsTable;
  template_versions: TemplateVersionsTable;
  version_signatures: VersionSignaturesTable;
  step_signatures: StepSignaturesTable;
  version_translations: VersionTranslationsTable;
  deviations: DeviationsTable;
  job_reviews: JobReviewsTable;
  skills: SkillsTable;
  user_skills: UserSkillsTable;
  qualification_overrides: QualificationOverridesTable;
  retrainings: RetrainingsTable;
  jobs: JobsTable;
  job_members: JobMembersTable;
  step_records: StepRecordsTable;
  usage_step_days: UsageStepDaysTable;
  usage_job_days: UsageJobDaysTable;
  faults: FaultsTable;
  hand_offs: HandOffsTable;
  schedules: SchedulesTable;
  schedule_occurrences: ScheduleOccurrencesTable;
  follow_up_jobs: FollowUpJobsTable;
  sensors: SensorsTable;
  sensor_readings: SensorReadingsTable;
  editorial_events: EditorialEventsTable;
  tutorial_completions: TutorialCompletionsTable;
  audit_entries: AuditEntriesTable;
  audit_heads: AuditHeadsTable;
  push_subscriptions: PushSubscriptionsTable;
  push_preferences: PushPreferencesTable;
  notification_preferences: NotificationPreferencesTable;
  push_outbox: PushOutboxTable;
  translations: TranslationsTable;
  bug_reports: BugReportsTable;
  webrtc_logs: WebrtcLogsTable;
  events: EventsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  idempotency_keys: IdempotencyKeysTable;
  data_epoch: DataEpochTable;
  idempotency_owners: IdempotencyOwnersTable;
  sso_providers: SsoProvidersTable;
  sso_identities: SsoIdentitiesTable;
  sso_pending: SsoPendingTable;
  sso_assertions_seen: SsoAssertionsSeenTable;
}

export interface SsoProvidersTable {
  id: Generated<number>;
  client_id: number;
  /** unique across the appliance: the `provider` of sign-in URLs */
  name: string;
  kind: SsoProviderKind;
  enabled: number;
  issuer: string;
  oauth_client_id: string;
  /** sealed (SecretBox 'sso-secrets') */
  client_secret: string | null;
  /** JSON, per kind */
  settings: string;
  /** JSON {email?, firstName?, lastName?, roles?, organizations?}: claim or attribute names */
  attribute_mapping: string;
  jit_enabled: number;
  /** JSON array of roles */
  jit_roles: string;
  jit_license_type: string;
  post_login_url: string | null;
  created_at: string;
  updated_at: string;
}

export interface SsoIdentitiesTable {
  id: Generated<number>;
  client_id: number;
  provider_id: number;
  subject: string;
  user_id: number;
  created_at: string;
  last_sign_in_at: string;
}

export interface SsoPendingTable {
  id: Generated<number>;
  client_id: number;
  provider_id: number;
  handle: string;
  browser_hash: string | null;
  secrets: string | null;
  expires_at: string;
  created_at: string;
}

export interface SsoAssertionsSeenTable {
  client_id: number;
  provider_id: number;
  assertion_id: string;
  expires_at: string;
}

export interface PushSubscriptionsTable {
  id: Generated<number>;
  client_id: number;
  user_id: number;
  /** the push service URL the browser gave (https) */
  endpoint: string;
  /** the browser's P-256 public key and auth secret (base64url): what payloads are encrypted for */
  p256dh: string;
  auth: string;
  created_at: string;
  updated_at: string;
}

export interface PushPreferencesTable {
  client_id: number;
  user_id: number;
  enabled: number;
  updated_at: string;
}

/** A user's notification choices (no row: every kind on, default language). */
export interface NotificationPreferencesTable {
  client_id: number;
  user_id: number;
  /** BCP 47 tag; null: the appliance's default language */
  language: string | null;
  /** JSON array of the kinds turned off */
  disabled_kinds: string;
  updated_at: string;
}

export type PushOutboxStatus = 'pending' | 'sent' | 'failed';

export interface PushOutboxTable {
  id: Generated<number>;
  client_id: number;
  subscription_id: number;
  /** a notification kind (services/notifications.ts NOTIFICATION_KINDS) */
  kind: string;
  /** JSON notification {title, body, url, tag} */
  payload: string;
  status: PushOutboxStatus;
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  sent_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Tables that belong to one client and must always be queried through a TenantScope. */
export type TenantTable = {
  [K in keyof DB]: DB[K] extends { client_id: number } ? K : never;
}[keyof DB];

export type SystemAdminRow = Selectable<SystemAdminsTable>;
export type ClientRow = Selectable<ClientsTable>;
export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type LicenseRow = Selectable<LicensesTable>;
export type SessionRow = Selectable<SessionsTable>;
export type LogRow = Selectable<LogsTable>;
export type OutboxRow = Selectable<OutboxTable>;
export type ClientSettingsRow = Selectable<ClientSettingsTable>;
export type UserTwoFactorRow = Selectable<UserTwoFactorTable>;
export type SsoProviderRow = Selectable<SsoProvidersTable>;
export type InstalledLicenseRow = Selectable<InstalledLicensesTable>;
export type DeploymentStateRow = Selectable<DeploymentStateTable>;
export type AgreementRow = Selectable<AgreementsTable>;
export type AgreementAcceptanceRow = Selectable<AgreementAcceptancesTable>;
export type OrganizationRow = Selectable<OrganizationsTable>;
export type AssetClassRow = Selectable<AssetClassesTable>;
export type LocationRow = Selectable<LocationsTable>;
export type AssetRow = Selectable<AssetsTable>;
export type TemplateRow = Selectable<TemplatesTable>;
export type TemplateVersionRow = Selectable<TemplateVersionsTable>;
export type VersionSignatureRow = Selectable<VersionSignaturesTable>;
export type StepSignatureRow = Selectable<StepSignaturesTable>;
export type VersionTranslationRow = Selectable<VersionTranslationsTable>;
export type DeviationRow = Selectable<DeviationsTable>;
export type JobReviewRow = Selectable<JobReviewsTable>;
export type SkillRow = Selectable<SkillsTable>;
export type UserSkillRow = Selectable<UserSkillsTable>;
export type QualificationOverrideRow = Selectable<QualificationOverridesTable>;
export type RetrainingRow = Selectable<RetrainingsTable>;
export type JobRow = Selectable<JobsTable>;
export type JobMemberRow = Selectable<JobMembersTable>;
export type StepRecordRow = Selectable<StepRecordsTable>;
export type FaultRow = Selectable<FaultsTable>;
export type HandOffRow = Selectable<HandOffsTable>;
export type ScheduleRow = Selectable<SchedulesTable>;
export type ScheduleOccurrenceRow = Selectable<ScheduleOccurrencesTable>;
export type FollowUpJobRow = Selectable<FollowUpJobsTable>;
export type PushSubscriptionRow = Selectable<PushSubscriptionsTable>;
export type PushOutboxRow = Selectable<PushOutboxTable>;
export type SensorRow = Selectable<SensorsTable>;
export type SensorReadingRow = Selectable<SensorReadingsTable>;
export type AuditEntryRow = Selectable<AuditEntriesTable>;
export type AuditCheckpointRow = Selectable<AuditCheckpointsTable>;
export type FileRow = Selectable<FilesTable>;
export type SystemFileRow = Selectable<SystemFilesTable>;
export type ContainerNotificationRow = Selectable<ContainerNotificationsTable>;
export type ErpSyncRunRow = Selectable<ErpSyncRunsTable>;
export type AlignmentDataRow = Selectable<AlignmentDataTable>;
export type EventRow = Selectable<EventsTable>;
export type WebhookRow = Selectable<WebhooksTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type IdempotencyKeyRow = Selectable<IdempotencyKeysTable>;
