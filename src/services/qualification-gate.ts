import type { Kysely } from 'kysely';
import type { DB, TemplateVersionRow } from '#db/schema';
import type { TenantScope } from '#db/tenant';
import { deserializeContent, type Content } from '#domain/content';
import { diffContents } from '#domain/diff';
import {
  lackingSkills,
  notQualified,
  stepsChanged,
  type DueRetraining,
  type LackingSkill,
  type SkillRequirement,
} from '#domain/qualifications';
import { appendAudit, type AuditEntry } from '#repos/audit';
import { dueRetrainings, findOverride, heldSkillsOfUsers, holdersOf, insertRetrainings } from '#repos/skills';

/**
 * The qualification gate (docs/qualifications.md): the one check the job
 * services call before someone is assigned to, accepts, starts, records on or
 * signs a job. It reads nothing for a version that requires no skill, so jobs
 * of such templates (most of them) pay no extra statement on the hot path.
 * Kept apart from services/qualifications.ts (the API), which imports the
 * e-signature code of services/templates.ts: the job and template services
 * import this file without a circle.
 */

export interface GateTarget {
  templateId: number;
  versionId: number;
  /** null: the job does not exist yet (being created) */
  jobId: number | null;
}

export interface Shortfall {
  skills: LackingSkill[];
  retrainingDue: DueRetraining[];
}

/** What the user lacks for the requirements on jobs of the version (empty lists: qualified). */
export async function shortfallOf(
  trx: Kysely<DB>,
  scope: TenantScope,
  userId: number,
  required: readonly SkillRequirement[],
  target: GateTarget,
  now: Date,
): Promise<Shortfall> {
  if (required.length === 0) return { skills: [], retrainingDue: [] };
  const held = (await heldSkillsOfUsers(trx, scope, [userId])).map((g) => ({
    skill: g.skill_name,
    level: g.level,
    expiresAt: g.expires_at,
  }));
  const due = await dueRetrainings(trx, scope, userId, target.templateId, target.versionId);
  return {
    skills: lackingSkills(required, held, now),
    retrainingDue: due.map((r) => ({ templateId: r.template_id, versionId: r.version_id, dueSince: r.due_since })),
  };
}

/** The gate's verdict on one user: what they lack, and whether they may work all the same. */
export interface Standing extends Shortfall {
  /** lacks nothing, or an override covers what they lack */
  qualified: boolean;
  /** an override lets them work although they lack something */
  overridden: boolean;
}

/**
 * Whether the user may work on the target now, by the rule assertQualified
 * refuses with: what they lack, unless an override covers it. What the app
 * shows before the work (Job.viewerQualification) is this same verdict.
 */
export async function standingOf(
  trx: Kysely<DB>,
  scope: TenantScope,
  userId: number,
  required: readonly SkillRequirement[],
  target: GateTarget,
  now: Date,
): Promise<Standing> {
  const shortfall = await shortfallOf(trx, scope, userId, required, target, now);
  if (shortfall.skills.length === 0 && shortfall.retrainingDue.length === 0) return { ...shortfall, qualified: true, overridden: false };
  const overridden = !!(await findOverride(trx, scope, userId, target.versionId, target.jobId));
  return { ...shortfall, qualified: overridden, overridden };
}

/**
 * Refuses the first of `userIds` who lacks a required, valid skill (or has a
 * retraining of the template due), unless an override lets them work on the
 * job (or, before the job exists, on jobs of the version).
 * @throws AppError NOT_QUALIFIED (`details`: userId, skills [{skill, requiredLevel, heldLevel, expiresAt, reason}],
 *   retrainingDue, action, jobId, stepId)
 */
export async function assertQualified(
  trx: Kysely<DB>,
  scope: TenantScope,
  userIds: readonly number[],
  required: readonly SkillRequirement[] | null | undefined,
  target: GateTarget,
  where: { action: 'assign' | 'accept' | 'start' | 'record' | 'sign' | 'complete'; stepId?: string },
  now: Date,
): Promise<void> {
  if (!required || required.length === 0) return;
  for (const userId of new Set(userIds)) {
    const standing = await standingOf(trx, scope, userId, required, target, now);
    if (standing.qualified) continue;
    throw notQualified(userId, standing.skills, standing.retrainingDue, {
      action: where.action,
      jobId: target.jobId,
      ...(where.stepId && { stepId: where.stepId }),
    });
  }
}

/** The skills a job of the version needs of whoever works on it. */
export const jobRequirements = (content: Content): SkillRequirement[] => content.qualifications ?? [];

/**
 * Publishing `published` after `previous`: when the steps changed, the users
 * qualified on the template — holding every skill the new version requires,
 * valid now — must read the diff and acknowledge it (acknowledgeRetraining)
 * before they work on jobs of the new version again. A version requiring no
 * skill has no one qualified on it: no retraining.
 * @returns the users now due
 */
export async function markRetrainingDue(
  trx: Kysely<DB>,
  scope: TenantScope,
  previous: TemplateVersionRow,
  published: TemplateVersionRow,
  actor: AuditEntry['actor'],
  nowIso: string,
): Promise<number[]> {
  const content = deserializeContent(published.content);
  const required = jobRequirements(content);
  if (required.length === 0) return [];
  if (!stepsChanged(diffContents(deserializeContent(previous.content), content))) return [];
  let qualified: number[] | null = null;
  for (const r of required) {
    const holders = new Set(await holdersOf(trx, scope, r.skill, r.level, nowIso));
    qualified = (qualified ?? [...holders]).filter((id) => holders.has(id));
  }
  const userIds = [...new Set(qualified ?? [])].sort((a, b) => a - b);
  if (userIds.length === 0) return [];
  await insertRetrainings(
    trx,
    scope,
    userIds.map((userId) => ({
      userId,
      templateId: published.template_id,
      versionId: published.id,
      previousVersionId: previous.id,
      dueSince: nowIso,
    })),
  );
  await appendAudit(trx, scope, {
    actor,
    action: 'retraining.due',
    entityType: 'template_version',
    entityId: published.id,
    after: { templateId: published.template_id, versionId: published.id, previousVersionId: previous.id, userIds },
    at: nowIso,
  });
  return userIds;
}

/** The gate's target for an existing job. */
export const jobTarget = (job: { id: number; template_id: number; version_id: number }): GateTarget => ({
  templateId: job.template_id,
  versionId: job.version_id,
  jobId: job.id,
});
