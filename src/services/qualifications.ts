import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Deps } from '#deps';
import type { DB, QualificationOverrideRow, RetrainingRow, SkillRow, UserSkillRow } from '#db/schema';
import type { CountedPage, PageInput } from '#db/pagination';
import { isUniqueViolation, withSavepoint, withTransaction } from '#db/transaction';
import { tenantScope } from '#db/tenant';
import { AppError, conflict, notFound, validationFailed } from '#errors';
import { parseOrFail } from '#lib/parse-or-fail';
import { deserializeContent, type Content } from '#domain/content';
import { grantExpiry, isExpired, MAX_LEVELS, SkillName } from '#domain/qualifications';
import { emitEvent } from '#events/emit';
import { appendAudit } from '#repos/audit';
import {
  acknowledgeRetrainingRow,
  deleteUserSkill,
  findRetraining,
  findUserSkill,
  getSkillById,
  heldSkillsOfUsers,
  insertOverride,
  insertSkill,
  listExpiringUserSkills,
  listSkills as listSkillRows,
  listUserIdsPage,
  markExpiryNoticed,
  overridesOfJob,
  overridesSince,
  putUserSkill,
  retrainingsOfUser,
  unnoticedExpiries,
} from '#repos/skills';
import { recordDeviation } from '#repos/deviations';
import { getJobById, loadJobMembers } from '#repos/jobs';
import { findVersionById, findVersionInState } from '#repos/template-versions';
import { listActiveUserIdsWithAnyRole, loadUsersByIds } from '#repos/users';
import type { RequestMeta, UserActor } from './actor';
import { jobRequirements, shortfallOf, standingOf, type Standing } from './qualification-gate';
import { notifyUsers } from './notifications';
import { PERMISSIONS, requirePermission } from '#policies/permissions';

/**
 * The template service is a route group of its own, required on first use: the maintenance round and the schedule
 * worker load this module soon after the start, and must not bring it along (test/cli/first-answers).
 */
const templates = () => require('./templates') as typeof import('./templates');

/**
 * Qualifications (docs/qualifications.md): a client's skills, the
 * skills its users hold, the overrides and the retraining acknowledgements —
 * what the API does. The gate the job services call is qualification-gate.ts.
 *
 * Who may do what is PERMISSIONS (src/policies/permissions.ts):
 * manageSkills creates skills, grantSkills grants and revokes (never to
 * oneself: SEPARATION_OF_DUTIES), overrideQualification overrides,
 * readQualifications reads the matrix and the expiring skills.
 */

const Id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const auditActor = (actor: UserActor) => ({ userId: actor.userId, email: actor.email });
const DAY = 86_400_000;

// ── Skills ──────────────────────────────────────────────────────────────────

export const CreateSkillInput = z.object({
  name: SkillName,
  description: z.string().trim().max(2000).nullish(),
  /** 1 (default): held or not; up to 4 levels */
  levels: z.number().int().min(1).max(MAX_LEVELS).nullish(),
  /** a grant expires this many days after it is given; null: never (unless the grant says) */
  validityDays: z.number().int().min(1).max(36_500).nullish(),
});
export type CreateSkillInput = z.input<typeof CreateSkillInput>;

/** @throws AppError FORBIDDEN, VALIDATION_ERROR, CONFLICT (a skill of that name exists) */
export async function createSkill(deps: Deps, actor: UserActor, raw: CreateSkillInput): Promise<SkillRow> {
  requirePermission(actor.roles, 'manageSkills');
  const input = parseOrFail(CreateSkillInput, raw);
  const nowIso = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: actor.scope.clientId }, async (trx) => {
    let skill: SkillRow;
    try {
      skill = await withSavepoint(trx, () =>
        insertSkill(trx, actor.scope, {
          name: input.name,
          description: input.description ?? '',
          levels: input.levels ?? 1,
          validity_days: input.validityDays ?? null,
          created_by: actor.userId,
          created_at: nowIso,
        }),
      );
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      throw conflict(`A skill named "${input.name}" exists`, { name: input.name });
    }
    await appendAudit(trx, actor.scope, {
      actor: auditActor(actor),
      action: 'skill.created',
      entityType: 'skill',
      entityId: skill.id,
      after: presentSkill(skill),
      at: nowIso,
    });
    return skill;
  });
}

/** Every user of the client reads the skills (templates name them). */
export function listSkills(deps: Deps, actor: UserActor, page: PageInput): Promise<CountedPage<SkillRow>> {
  return listSkillRows(deps.db.kysely, actor.scope, page);
}

// ── Granting ────────────────────────────────────────────────────────────────

export const GrantSkillInput = z.object({
  userId: Id,
  skillId: Id,
  level: z.number().int().min(1).max(MAX_LEVELS).nullish(),
  /** omitted: the skill's validity from now (or none) */
  expiresAt: z.iso.datetime({ offset: true }).nullish(),
  /** the trainer's sign-off: the granting user's e-signature (meaning TRAINED) */
  password: z.string().max(1024).nullish(),
  code: z.string().max(64).nullish(),
});
export type GrantSkillInput = z.input<typeof GrantSkillInput>;

/**
 * Grants a skill (again: level, expiry and sign-off replaced). With a password
 * or code the granter signs as trainer (meaning TRAINED), an e-signature like
 * approving a version: a wrong one counts toward the lockout.
 * @throws AppError FORBIDDEN, NOT_FOUND (user or skill), SEPARATION_OF_DUTIES (oneself),
 *   VALIDATION_ERROR (level above the skill's, expiry in the past), INVALID_CREDENTIALS, TOO_MANY_ATTEMPTS
 */
export async function grantSkill(deps: Deps, actor: UserActor, raw: GrantSkillInput, meta: RequestMeta): Promise<UserSkillRow> {
  requirePermission(actor.roles, 'grantSkills');
  const input = parseOrFail(GrantSkillInput, raw);
  if (input.userId === actor.userId) throw new AppError('SEPARATION_OF_DUTIES', 'A skill is granted by someone else than its holder');
  const now = deps.clock.now();
  if (input.expiresAt && Date.parse(input.expiresAt) <= now.getTime())
    throw validationFailed({ fields: [{ path: 'expiresAt', message: 'must be in the future' }] });
  // checked before the signature: a grant that cannot be made is not signed
  const skill = await getSkillById(deps.db.kysely, actor.scope, input.skillId);
  const level = input.level ?? 1;
  if (level > skill.levels) throw validationFailed({ fields: [{ path: 'level', message: `the skill has ${skill.levels} level(s)` }] });
  if ((await loadUsersByIds(deps.db.kysely, actor.scope, [input.userId])).length === 0) throw notFound('User');
  const trainer =
    input.password || input.code
      ? await templates().verifySignature(deps, actor, { password: input.password, code: input.code }, meta)
      : null;
  const nowIso = now.toISOString();
  return withTransaction(deps.db, { lockClient: actor.scope.clientId }, async (trx) => {
    const before = await findUserSkill(trx, actor.scope, input.userId, skill.id);
    const grant = await putUserSkill(trx, actor.scope, {
      user_id: input.userId,
      skill_id: skill.id,
      level,
      granted_by: actor.userId,
      granted_at: nowIso,
      expires_at: grantExpiry(now, skill.validity_days, input.expiresAt),
      trainer_id: trainer ? actor.userId : null,
      trainer_name: trainer?.name ?? null,
      trainer_method: trainer?.method ?? null,
      trained_at: trainer ? nowIso : null,
      expiry_notified_at: null,
    });
    await appendAudit(trx, actor.scope, {
      actor: auditActor(actor),
      action: 'skill.granted',
      entityType: 'user',
      entityId: input.userId,
      before: before ? presentUserSkill(before) : null,
      after: {
        ...presentUserSkill(grant),
        skill: skill.name,
        ...(trainer && { signature: { meaning: 'TRAINED', method: trainer.method, signerName: trainer.name } }),
      },
      at: nowIso,
    });
    return grant;
  });
}

export const RevokeSkillInput = z.object({ userId: Id, skillId: Id });

/** @throws AppError FORBIDDEN, NOT_FOUND (the user does not hold the skill), SEPARATION_OF_DUTIES (oneself) */
export async function revokeSkill(deps: Deps, actor: UserActor, raw: z.input<typeof RevokeSkillInput>): Promise<UserSkillRow> {
  requirePermission(actor.roles, 'grantSkills');
  const input = parseOrFail(RevokeSkillInput, raw);
  if (input.userId === actor.userId) throw new AppError('SEPARATION_OF_DUTIES', 'A skill is revoked by someone else than its holder');
  const nowIso = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: actor.scope.clientId }, async (trx) => {
    const grant = await findUserSkill(trx, actor.scope, input.userId, input.skillId);
    if (!grant) throw notFound('Skill of the user');
    await deleteUserSkill(trx, actor.scope, grant.id);
    await appendAudit(trx, actor.scope, {
      actor: auditActor(actor),
      action: 'skill.revoked',
      entityType: 'user',
      entityId: input.userId,
      before: presentUserSkill(grant),
      at: nowIso,
    });
    return grant;
  });
}

// ── Reading ─────────────────────────────────────────────────────────────────

/** A page of the client's users (id order) with every skill each holds, expired grants too (`expired` tells). */
export async function skillMatrix(
  deps: Deps,
  actor: UserActor,
  page: PageInput,
): Promise<CountedPage<{ id: number; userId: number; skills: UserSkillRow[] }>> {
  requirePermission(actor.roles, 'readQualifications');
  const db = deps.db.kysely;
  const users = await listUserIdsPage(db, actor.scope, page);
  const grants = await heldSkillsOfUsers(
    db,
    actor.scope,
    users.items.map((u) => u.id),
  );
  return { ...users, items: users.items.map((u) => ({ id: u.id, userId: u.id, skills: grants.filter((g) => g.user_id === u.id) })) };
}

/** Grants expiring within `withinDays` from now (not yet expired), in id order. */
export function expiringSkills(deps: Deps, actor: UserActor, withinDays: number, page: PageInput): Promise<CountedPage<UserSkillRow>> {
  requirePermission(actor.roles, 'readQualifications');
  const days = parseOrFail(z.number().int().min(0).max(3650), withinDays, 'withinDays');
  const now = deps.clock.now();
  return listExpiringUserSkills(deps.db.kysely, actor.scope, now.toISOString(), new Date(now.getTime() + days * DAY).toISOString(), page);
}

/** The caller's own skills. */
export async function mySkills(deps: Deps, actor: UserActor): Promise<UserSkillRow[]> {
  return heldSkillsOfUsers(deps.db.kysely, actor.scope, [actor.userId]);
}

// ── Overrides ───────────────────────────────────────────────────────────────

export const OverrideQualificationInput = z
  .object({
    userId: Id,
    /** the job the user may work on */
    jobId: Id.nullish(),
    /** or: jobs of the template's published version (to assign a job being created) */
    templateId: Id.nullish(),
    reason: z.string().trim().min(1).max(2000),
  })
  .refine((i) => (i.jobId == null) !== (i.templateId == null), { path: ['jobId'], message: 'give a jobId or a templateId, not both' });

/**
 * Lets a user who lacks a required skill (or has a retraining due) work on a
 * job — or, with a template, be assigned jobs of its published version — with
 * a reason: written to the audit chain and listed with the deviations.
 * @throws AppError FORBIDDEN, NOT_FOUND (user, job, template), NO_PUBLISHED_VERSION,
 *   VALIDATION_ERROR (no reason; both or neither of jobId and templateId; the user is qualified: nothing to override)
 */
export async function overrideQualification(
  deps: Deps,
  actor: UserActor,
  raw: z.input<typeof OverrideQualificationInput>,
): Promise<QualificationOverrideRow> {
  requirePermission(actor.roles, 'overrideQualification');
  const input = parseOrFail(OverrideQualificationInput, raw);
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  const scope = actor.scope;
  return withTransaction(deps.db, { lockClient: scope.clientId }, async (trx) => {
    const [user] = await loadUsersByIds(trx, scope, [input.userId]);
    if (!user) throw notFound('User');
    const target = await overrideTarget(trx, actor, input);
    const shortfall = await shortfallOf(trx, scope, user.id, target.required, target, now);
    if (shortfall.skills.length === 0 && shortfall.retrainingDue.length === 0) {
      throw validationFailed({
        fields: [{ path: 'userId', message: 'the user holds every skill the version requires: nothing to override' }],
      });
    }
    const override = await insertOverride(trx, scope, {
      user_id: user.id,
      template_id: target.templateId,
      version_id: target.versionId,
      job_id: target.jobId,
      reason: input.reason,
      lacking: JSON.stringify(shortfall),
      overridden_by: actor.userId,
      overridden_by_name: `${actor.user.first_name} ${actor.user.last_name}`.trim() || actor.email,
      created_at: nowIso,
    });
    // an override on a job is one of its deviations (docs/execution-rules.md): the reviewer sees and acknowledges it
    if (target.jobId !== null) {
      const name = `${user.first_name} ${user.last_name}`.trim() || user.email;
      await recordDeviation(trx, scope, {
        jobId: target.jobId,
        kind: 'OVERRIDE',
        detail: `qualification of ${name}: ${input.reason}`,
        raisedBy: actor.userId,
        at: nowIso,
      });
    }
    await appendAudit(trx, scope, {
      actor: auditActor(actor),
      action: 'qualification.overridden',
      entityType: target.jobId === null ? 'template_version' : 'job',
      entityId: target.jobId ?? target.versionId,
      after: presentOverride(override),
      at: nowIso,
    });
    return override;
  });
}

async function overrideTarget(trx: Kysely<DB>, actor: UserActor, input: { jobId?: number | null; templateId?: number | null }) {
  if (input.jobId != null) {
    const job = await getJobById(trx, actor.scope, input.jobId);
    const version = await findVersionById(trx, actor.scope, job.version_id);
    return {
      templateId: job.template_id,
      versionId: job.version_id,
      jobId: job.id,
      required: version ? jobRequirements(deserializeContent(version.content)) : [],
    };
  }
  await templates().getVisibleTemplate(trx, actor, input.templateId!);
  const version = await findVersionInState(trx, actor.scope, input.templateId!, 'PUBLISHED');
  if (!version) throw new AppError('NO_PUBLISHED_VERSION', 'The template has no published version', { templateId: input.templateId });
  return {
    templateId: version.template_id,
    versionId: version.id,
    jobId: null,
    required: jobRequirements(deserializeContent(version.content)),
  };
}

// ── Before the work: the gate's verdict, asked ───────────────────────────────

/**
 * The caller's standing on a job they can see, of the version whose content is given (Job.viewerQualification):
 * what starting it would be refused for. A version requiring nothing costs no statement (a page of jobs asks it).
 */
export function viewerStanding(
  deps: Deps,
  actor: UserActor,
  job: { id: number; templateId: number; versionId: number },
  content: Content,
): Promise<Standing> {
  const target = { templateId: job.templateId, versionId: job.versionId, jobId: job.id };
  return standingOf(deps.db.kysely, actor.scope, actor.userId, jobRequirements(content), target, deps.clock.now());
}

/** users one question may ask about (a New job form's assignees) */
export const MAX_STANDING_USERS = 50;

/**
 * Whether each user could be assigned a job of the template's published
 * version now (Template.assigneeQualifications, the New job form): the check
 * createJob refuses with, asked before. Ids of no user of the client are left out.
 * @throws AppError FORBIDDEN (not a job planner), NOT_FOUND (template), NO_PUBLISHED_VERSION,
 *   VALIDATION_ERROR (more than MAX_STANDING_USERS users)
 */
export async function assigneeStandings(
  deps: Deps,
  actor: UserActor,
  templateId: number,
  userIds: readonly number[],
): Promise<{ userId: number; standing: Standing }[]> {
  requirePermission(actor.roles, 'createJob');
  if (userIds.length > MAX_STANDING_USERS)
    throw validationFailed({ fields: [{ path: 'userIds', message: `at most ${MAX_STANDING_USERS} users` }] });
  const db = deps.db.kysely;
  const target = await overrideTarget(db, actor, { templateId });
  const users = await loadUsersByIds(db, actor.scope, [...new Set(userIds)]);
  const now = deps.clock.now();
  const standings: { userId: number; standing: Standing }[] = [];
  for (const user of users)
    standings.push({ userId: user.id, standing: await standingOf(db, actor.scope, user.id, target.required, target, now) });
  return standings;
}

export const OVERRIDES_LIMIT = 200;

/** The overrides set in the last `days` days (1 to 90), newest first: the supervisors' deviations (at most 200). */
export async function recentOverrides(deps: Deps, actor: UserActor, days: number): Promise<QualificationOverrideRow[]> {
  requirePermission(actor.roles, 'readQualifications');
  const n = parseOrFail(z.number().int().min(1).max(90), days, 'days');
  return overridesSince(deps.db.kysely, actor.scope, new Date(deps.clock.now().getTime() - n * DAY).toISOString(), OVERRIDES_LIMIT);
}

/** The overrides a job ran under: set on the job, or on its version for one of its members. */
export async function overridesOfJobFor(
  deps: Deps,
  actor: UserActor,
  job: { id: number; versionId: number },
): Promise<QualificationOverrideRow[]> {
  const members = await loadJobMembers(deps.db.kysely, actor.scope, [job.id]);
  return overridesOfJob(deps.db.kysely, actor.scope, job, [...new Set(members.map((m) => m.user_id))]);
}

// ── Retraining ──────────────────────────────────────────────────────────────

export const RETRAININGS_LIMIT = 200;

/** The caller's retrainings: the due ones first, then the acknowledged, newest first. */
export async function myRetrainings(deps: Deps, actor: UserActor): Promise<RetrainingRow[]> {
  const rows = await retrainingsOfUser(deps.db.kysely, actor.scope, actor.userId, RETRAININGS_LIMIT);
  return [...rows.filter((r) => r.acknowledged_at === null), ...rows.filter((r) => r.acknowledged_at !== null)];
}

/**
 * The caller has read the diff of `versionId` against the version before it:
 * the retraining stops being due (idempotent: a second acknowledgement keeps the first time).
 * @throws AppError NOT_FOUND (no retraining of that version for the caller)
 */
export async function acknowledgeRetraining(deps: Deps, actor: UserActor, versionId: number): Promise<RetrainingRow> {
  const nowIso = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: actor.scope.clientId }, async (trx) => {
    const row = await findRetraining(trx, actor.scope, actor.userId, versionId);
    if (!row) throw notFound('Retraining');
    if (row.acknowledged_at !== null) return row;
    const acknowledged = await acknowledgeRetrainingRow(trx, actor.scope, row.id, nowIso);
    await appendAudit(trx, actor.scope, {
      actor: auditActor(actor),
      action: 'retraining.acknowledged',
      entityType: 'template_version',
      entityId: versionId,
      after: presentRetraining(acknowledged),
      at: nowIso,
    });
    return acknowledged;
  });
}

// ── The daily notice of expiries ────────────────────────────────────────────

/** How far ahead the daily round warns of an expiry. */
export const EXPIRY_NOTICE_DAYS = 30;
const NOTICE_BATCH = 1000;

/**
 * The daemon's daily round (ops/maintenance.ts, once across nodes): each grant
 * that expires within EXPIRY_NOTICE_DAYS and was not noticed yet is told once —
 * a `skill.expiring` event per grant (webhooks, live streams), and a
 * `skill_expiring` notification (mail, web push) to its holder and to the
 * client's users who may grant skills, each listing the skills concerned.
 * Granting again clears the mark, so a renewed grant is noticed again.
 * @returns how many grants were noticed
 */
export async function noticeSkillExpiries(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  const until = new Date(now.getTime() + EXPIRY_NOTICE_DAYS * DAY).toISOString();
  const due = await unnoticedExpiries(deps.db.kysely, now.toISOString(), until, NOTICE_BATCH);
  if (due.length === 0) return 0;
  const byClient = new Map<number, typeof due>();
  for (const row of due) byClient.set(row.client_id, [...(byClient.get(row.client_id) ?? []), row]);
  for (const [clientId, rows] of byClient) {
    const scope = tenantScope(clientId);
    await withTransaction(deps.db, { lockClient: clientId }, async (trx, afterCommit) => {
      const tx = { deps, trx, afterCommit };
      const users = new Map((await loadUsersByIds(trx, scope, [...new Set(rows.map((r) => r.user_id))])).map((u) => [u.id, u]));
      const supervisors = await listActiveUserIdsWithAnyRole(trx, scope, PERMISSIONS.grantSkills);
      const lines = new Map<number, string[]>();
      const tell = (userId: number, line: string) => lines.set(userId, [...(lines.get(userId) ?? []), line]);
      for (const row of rows) {
        const holder = users.get(row.user_id);
        const name = holder ? `${holder.first_name} ${holder.last_name}`.trim() || holder.email : `#${row.user_id}`;
        await emitEvent(tx, scope, 'skill.expiring', { ...presentUserSkill(row), skill: row.skill_name, userName: name });
        const line = `${row.skill_name} (${name}, level ${row.level}): ${row.expires_at}`;
        tell(row.user_id, line);
        for (const id of supervisors) if (id !== row.user_id) tell(id, line);
      }
      await notifyUsers(tx, scope, [...lines.keys()], 'skill_expiring', (t, userId) => {
        const list = lines.get(userId)!;
        return {
          title: t('skill_expiring.title', { count: list.length }),
          body: t('skill_expiring.text', { days: EXPIRY_NOTICE_DAYS, skills: list.map((l) => `- ${l}`).join('\n') }),
          summary: list.join('; '),
          data: { count: list.length },
          page: null,
        };
      });
      await markExpiryNoticed(
        trx,
        scope,
        rows.map((r) => r.id),
        now.toISOString(),
      );
    });
  }
  return due.length;
}

// ── Shapes ──────────────────────────────────────────────────────────────────

export function presentSkill(s: SkillRow) {
  return { id: s.id, name: s.name, description: s.description, levels: s.levels, validityDays: s.validity_days, createdAt: s.created_at };
}

export function presentUserSkill(g: UserSkillRow) {
  return {
    id: g.id,
    userId: g.user_id,
    skillId: g.skill_id,
    level: g.level,
    grantedById: g.granted_by,
    grantedAt: g.granted_at,
    expiresAt: g.expires_at,
    trainerId: g.trainer_id,
    trainerName: g.trainer_name,
    trainedAt: g.trained_at,
  };
}
export type PresentedUserSkill = ReturnType<typeof presentUserSkill>;

/** `expired` at the clock's now. */
export const userSkillExpired = (deps: Deps, g: { expiresAt: string | null }) => isExpired(g.expiresAt, deps.clock.now());

export function presentOverride(o: QualificationOverrideRow) {
  return {
    id: o.id,
    userId: o.user_id,
    templateId: o.template_id,
    versionId: o.version_id,
    jobId: o.job_id,
    reason: o.reason,
    lacking: JSON.parse(o.lacking) as unknown,
    overriddenById: o.overridden_by,
    overriddenByName: o.overridden_by_name,
    createdAt: o.created_at,
  };
}
export type PresentedOverride = ReturnType<typeof presentOverride>;

export function presentRetraining(r: RetrainingRow) {
  return {
    id: r.id,
    userId: r.user_id,
    templateId: r.template_id,
    versionId: r.version_id,
    previousVersionId: r.previous_version_id,
    dueSince: r.due_since,
    acknowledgedAt: r.acknowledged_at,
  };
}
export type PresentedRetraining = ReturnType<typeof presentRetraining>;
