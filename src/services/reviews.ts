import type { Deps } from '#deps';
import { AppError } from '#errors';
import type { JobRow, VersionState } from '#db/schema';
import type { CountedPage, PageInput } from '#db/pagination';
import { hasAnyRole } from '#policies/roles';
import { transition, VERSION_TRANSITIONS, type VersionAction } from '#policies/transitions';
import { assertSeparationOfDuties } from '#policies/versions';
import { listOpenJobsOnOlderVersions, listReviewQueue } from '#repos/review-queue';
import { templateVisibilityOf } from '#repos/templates';
import type { VersionSummaryRow } from '#repos/template-versions';
import type { UserActor } from './actor';
import { readSecuritySettings, type SecuritySettings } from './security-settings';
import { getVersion } from './templates';

/**
 * What reviewers (approvers and publishers) need beyond the version life
 * cycle itself: the queue of versions waiting for them, which actions they
 * may take on a version now, and the jobs still running on older versions.
 * The rules are the transition table's and the separation of duties' — read
 * here, never restated.
 */

/** The state whose versions each reviewing action moves on: IN_REVIEW for approve (and reject), APPROVED for publish. */
const QUEUE_ACTIONS = ['approve', 'publish'] as const satisfies readonly VersionAction[];
export type QueueAction = (typeof QUEUE_ACTIONS)[number];

const fromState = (action: VersionAction): VersionState => VERSION_TRANSITIONS.find((row) => row.action === action)!.from[0];

/**
 * The versions of templates the caller sees that wait for an action the caller may take: IN_REVIEW ones when they
 * may approve (those they created or last edited left out, unless the client allows self-approval), APPROVED ones
 * when they may publish; `only` narrows to one action. In version id order (the order they were created).
 */
export async function reviewQueue(
  deps: Deps,
  actor: UserActor,
  only: QueueAction | null,
  page: PageInput,
): Promise<CountedPage<VersionSummaryRow>> {
  const db = deps.db.kysely;
  const actions = QUEUE_ACTIONS.filter(
    (action) =>
      (only === null || only === action) && hasAnyRole(actor.roles, VERSION_TRANSITIONS.find((row) => row.action === action)!.roles),
  );
  const settings = await readSecuritySettings(db, actor.scope);
  const visibility = await templateVisibilityOf(db, actor.scope, { roles: actor.roles, availableToOrg: actor.user.available_to_org });
  return listReviewQueue(
    db,
    actor.scope,
    { states: actions.map(fromState), notAuthoredBy: settings.allowSelfApproval ? null : actor.userId },
    visibility,
    page,
  );
}

/** When a version began waiting for its next step: submitted (IN_REVIEW), approved (APPROVED); null in other states. */
export function waitingSince(version: Pick<VersionSummaryRow, 'state' | 'submitted_at' | 'approved_at'>): string | null {
  if (version.state === 'IN_REVIEW') return version.submitted_at;
  if (version.state === 'APPROVED') return version.approved_at;
  return null;
}

/**
 * The actions of VERSION_TRANSITIONS the caller may take on a version now: its state and their roles allow it, and
 * for approve the separation of duties (`settings`: the client's, read once for a page of versions). What the app
 * shows as buttons; the mutations check it all again.
 */
export function allowedVersionActions(
  actor: UserActor,
  version: Pick<VersionSummaryRow, 'state' | 'created_by' | 'updated_by'>,
  settings: Pick<SecuritySettings, 'allowSelfApproval'>,
): VersionAction[] {
  const actions = [...new Set(VERSION_TRANSITIONS.map((row) => row.action))];
  return actions.filter((action) => {
    try {
      transition(VERSION_TRANSITIONS, version.state, action, actor.roles);
      if (action === 'approve') assertSeparationOfDuties(version, actor.userId, settings);
      return true;
    } catch (error) {
      if (error instanceof AppError) return false;
      throw error;
    }
  });
}

/** The client's security settings, for allowedVersionActions. */
export function reviewSettings(deps: Deps, actor: UserActor): Promise<SecuritySettings> {
  return readSecuritySettings(deps.db.kysely, actor.scope);
}

/**
 * Jobs still running (OPEN, IN_PROGRESS, PAUSED) on versions of the template older than `versionId` (numbered
 * below it): what keeps running on the old instructions once this version is published.
 * @throws AppError NOT_FOUND (the version is another client's or its template not visible)
 */
export async function openJobsOnOlderVersions(
  deps: Deps,
  actor: UserActor,
  versionId: number,
  page: PageInput,
): Promise<CountedPage<JobRow>> {
  const version = await getVersion(deps, actor, versionId);
  return listOpenJobsOnOlderVersions(deps.db.kysely, actor.scope, version.template_id, version.number, page);
}
