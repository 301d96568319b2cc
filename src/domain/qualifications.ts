import { z } from 'zod';
import { AppError } from '#errors';

/**
 * Qualifications (docs/qualifications.md), the pure rules: what a
 * requirement looks like in a content document, whether what a user holds
 * meets it, and the NOT_QUALIFIED refusal. A requirement names a skill of the
 * client by its name (so a template package carries it to another client,
 * whose skill of that name then counts) and a level, 1 to 4.
 */

export const MAX_LEVELS = 4;
/** requirements per list (a version's, a step sign-off's) */
export const MAX_REQUIREMENTS = 20;

export const SkillName = z.string().trim().min(1).max(100);

export const SkillRequirementInput = z
  .object({
    skill: SkillName,
    level: z.number().int().min(1).max(MAX_LEVELS).default(1),
  })
  .strict();

export const SkillRequirementsInput = z.array(SkillRequirementInput).max(MAX_REQUIREMENTS);

export interface SkillRequirement {
  skill: string;
  level: number;
}

/** A skill a user holds, as the check reads it. */
export interface HeldSkill {
  skill: string;
  level: number;
  expiresAt: string | null;
}

export type LackReason = 'NOT_HELD' | 'LEVEL_TOO_LOW' | 'EXPIRED';

/** One unmet requirement: NOT_QUALIFIED's `details.skills`. */
export interface LackingSkill {
  skill: string;
  requiredLevel: number;
  /** null: not held at all */
  heldLevel: number | null;
  /** the held grant's expiry (past when EXPIRED) */
  expiresAt: string | null;
  reason: LackReason;
}

/** A grant counts until its expiry instant, exclusive. */
export function isExpired(expiresAt: string | null, now: Date): boolean {
  return expiresAt !== null && Date.parse(expiresAt) <= now.getTime();
}

/** The requirements `held` does not meet at `now`, in the order required. */
export function lackingSkills(required: readonly SkillRequirement[], held: readonly HeldSkill[], now: Date): LackingSkill[] {
  const lacking: LackingSkill[] = [];
  for (const requirement of required) {
    const grant = held.find((h) => h.skill === requirement.skill);
    if (!grant)
      lacking.push({ skill: requirement.skill, requiredLevel: requirement.level, heldLevel: null, expiresAt: null, reason: 'NOT_HELD' });
    else if (isExpired(grant.expiresAt, now))
      lacking.push({
        skill: requirement.skill,
        requiredLevel: requirement.level,
        heldLevel: grant.level,
        expiresAt: grant.expiresAt,
        reason: 'EXPIRED',
      });
    else if (grant.level < requirement.level)
      lacking.push({
        skill: requirement.skill,
        requiredLevel: requirement.level,
        heldLevel: grant.level,
        expiresAt: grant.expiresAt,
        reason: 'LEVEL_TOO_LOW',
      });
  }
  return lacking;
}

/** Several lists as one: each skill once, at the highest level any list asks. */
export function mergeRequirements(...lists: readonly (readonly SkillRequirement[] | null | undefined)[]): SkillRequirement[] {
  const levels = new Map<string, number>();
  for (const list of lists) for (const r of list ?? []) levels.set(r.skill, Math.max(levels.get(r.skill) ?? 0, r.level));
  return [...levels].map(([skill, level]) => ({ skill, level }));
}

/** Duplicate skill names in one list: a VALIDATION_ERROR path each. */
export function requirementProblems(input: unknown, path: string): { path: string; message: string }[] {
  if (!Array.isArray(input)) return [];
  const seen = new Set<string>();
  const problems: { path: string; message: string }[] = [];
  input.forEach((entry, i) => {
    const name = entry !== null && typeof entry === 'object' ? (entry as { skill?: unknown }).skill : undefined;
    if (typeof name !== 'string') return;
    if (seen.has(name.trim())) problems.push({ path: `${path}.${i}.skill`, message: `skill "${name.trim()}" is required twice` });
    seen.add(name.trim());
  });
  return problems;
}

/** A retraining the user has not acknowledged yet: NOT_QUALIFIED's `details.retrainingDue`. */
export interface DueRetraining {
  templateId: number;
  versionId: number;
  dueSince: string;
}

/**
 * The refusal. `details`: the user refused, the unmet requirements (skill,
 * required and held level, expiry, why) and the unacknowledged retrainings,
 * plus where (`jobId`, `stepId`, `action`).
 */
export function notQualified(
  userId: number,
  skills: LackingSkill[],
  retrainingDue: DueRetraining[],
  where: Record<string, unknown>,
): AppError {
  const names = skills.map((s) => s.skill);
  const what = [
    names.length > 0 && `lacks ${names.join(', ')}`,
    retrainingDue.length > 0 && 'has not acknowledged the retraining of a new version',
  ]
    .filter(Boolean)
    .join(' and ');
  return new AppError('NOT_QUALIFIED', `The user is not qualified for this work: ${what}`, { userId, skills, retrainingDue, ...where });
}

/** The expiry a grant gets: the one given, else `validityDays` after granting, else none. */
export function grantExpiry(grantedAt: Date, validityDays: number | null, given: string | null | undefined): string | null {
  if (given) return new Date(given).toISOString();
  if (validityDays === null) return null;
  return new Date(grantedAt.getTime() + validityDays * 86_400_000).toISOString();
}

/** Whether a diff between two versions touches the steps (retraining is due only then, not for a new title). */
export function stepsChanged(diff: { added: unknown[]; removed: unknown[]; moved: unknown[]; changed: unknown[] }): boolean {
  return diff.added.length + diff.removed.length + diff.moved.length + diff.changed.length > 0;
}
