import type { Migration } from 'kysely';
import * as m0001 from './0001_foundation';
import * as m0002 from './0002_event_log';
import * as m0003 from './0003_account_lifecycle';
import * as m0004 from './0004_licensing_agreements';
import * as m0005 from './0005_work_instructions';
import * as m0009 from './0009_files';
import * as m0010 from './0010_reports';
import * as m0011 from './0011_events';
import * as m0012 from './0012_push';
import * as m0013 from './0013_platform';
import * as m0014 from './0014_file_deletion';
import * as m0015 from './0015_integrations';
import * as m0016 from './0016_sso';
import * as m0017 from './0017_console';
import * as m0018 from './0018_shared_secrets';
import * as m0019 from './0019_rate_limits';
import * as m0020 from './0020_usage_counts';
import * as m0021 from './0021_maintenance_runs';
import * as m0022 from './0022_notification_preferences';
import * as m0023 from './0023_log_actor';
import * as m0024 from './0024_audit_checkpoints';
import * as m0028 from './0028_draft_revision';
import * as m0031 from './0031_user_roles_by_role';
import * as m0032 from './0032_step_signatures';
import * as m0033 from './0033_deviations';
import * as m0034 from './0034_qualifications';
import * as m0035 from './0035_schedules';
import * as m0036 from './0036_version_translations';
import * as m0037 from './0037_exactly_once';
import * as m0038 from './0038_capture_time';

/**
 * The explicit registry of migrations, in order. An explicit list (not a folder
 * scan) keeps working when the code is bundled into the single executable.
 * Migrations import no application code.
 */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_event_log': m0002,
  '0003_account_lifecycle': m0003,
  '0004_licensing_agreements': m0004,
  '0005_work_instructions': m0005,
  '0009_files': m0009,
  '0010_reports': m0010,
  '0011_events': m0011,
  '0012_push': m0012,
  '0013_platform': m0013,
  '0014_file_deletion': m0014,
  '0015_integrations': m0015,
  '0016_sso': m0016,
  '0017_console': m0017,
  '0018_shared_secrets': m0018,
  '0019_rate_limits': m0019,
  '0020_usage_counts': m0020,
  '0021_maintenance_runs': m0021,
  '0022_notification_preferences': m0022,
  '0023_log_actor': m0023,
  '0024_audit_checkpoints': m0024,
  '0028_draft_revision': m0028,
  '0031_user_roles_by_role': m0031,
  '0032_step_signatures': m0032,
  '0033_deviations': m0033,
  '0034_qualifications': m0034,
  '0035_schedules': m0035,
  '0036_version_translations': m0036,
  '0037_exactly_once': m0037,
  '0038_capture_time': m0038,
};
