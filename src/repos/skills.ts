import type { Insertable, Kysely } from 'kysely';
import type {
  DB,
  QualificationOverrideRow,
  QualificationOverridesTable,
  RetrainingRow,
  SkillRow,
  SkillsTable,
  UserSkillRow,
  UserSkillsTable,
} from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';
import { paginateCounted, type CountedPage, type PageInput } from '#db/pagination';
import { notFound } from '#errors';

/** Qualifications (docs/qualifications.md): skills, who holds them, overrides and retrainings. */

// ── Skills ──────────────────────────────────────────────────────────────────

export async function insertSkill(db: Kysely<DB>, scope: TenantScope, row: Omit<Insertable<SkillsTable>, 'client_id'>): Promise<SkillRow> {
  return db
    .insertInto('skills')
    .values({ ...row, client_id: scope.clientId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** @throws AppError NOT_FOUND, also for another client's skill */
export async function getSkillById(db: Kysely<DB>, scope: TenantScope, id: number): Promise<SkillRow> {
  const row = await inTenant(db, scope).selectFrom('skills').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('Skill');
  return row;
}

/** In id order (the order a connection pages in). */
export function listSkills(db: Kysely<DB>, scope: TenantScope, page: PageInput): Promise<CountedPage<SkillRow>> {
  return paginateCounted(inTenant(db, scope).selectFrom('skills').selectAll(), page);
}

export async function loadSkillsByIds(db: Kysely<DB>, scope: TenantScope, ids: readonly number[]): Promise<SkillRow[]> {
  if (ids.length === 0) return [];
  return inTenant(db, scope)
    .selectFrom('skills')
    .selectAll()
    .where('id', 'in', [...ids])
    .execute();
}

// ── What users hold ─────────────────────────────────────────────────────────

export async function findUserSkill(
  db: Kysely<DB>,
  scope: TenantScope,
  userId: number,
  skillId: number,
): Promise<UserSkillRow | undefined> {
  return inTenant(db, scope)
    .selectFrom('user_skills')
    .selectAll()
    .where('user_id', '=', userId)
    .where('skill_id', '=', skillId)
    .executeTakeFirst();
}

/** Grants (or grants again: level, expiry and sign-off replaced) the skill. */
export async function putUserSkill(
  db: Kysely<DB>,
  scope: TenantScope,
  row: Omit<Insertable<UserSkillsTable>, 'client_id'>,
): Promise<UserSkillRow> {
  const existing = await findUserSkill(db, scope, row.user_id, row.skill_id);
  if (!existing)
    return db
      .insertInto('user_skills')
      .values({ ...row, client_id: scope.clientId })
      .returningAll()
      .executeTakeFirstOrThrow();
  const { user_id: _user, skill_id: _skill, ...changes } = row;
  return inTenant(db, scope).updateTable('user_skills').set(changes).where('id', '=', existing.id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteUserSkill(db: Kysely<DB>, scope: TenantScope, id: number): Promise<void> {
  await inTenant(db, scope).deleteFrom('user_skills').where('id', '=', id).execute();
}

/** The grants of the users, with the skill's name (what the check compares requirements against). */
export async function heldSkillsOfUsers(
  db: Kysely<DB>,
  scope: TenantScope,
  userIds: readonly number[],
): Promise<(UserSkillRow & { skill_name: string })[]> {
  if (userIds.length === 0) return [];
  return inTenant(db, scope)
    .selectFrom('user_skills')
    .innerJoin('skills', (join) =>
      join.onRef('skills.id', '=', 'user_skills.skill_id').onRef('skills.client_id', '=', 'user_skills.client_id'),
    )
    .selectAll('user_skills')
    .select('skills.name as skill_name')
    .where('user_skills.user_id', 'in', [...userIds])
    .orderBy('user_skills.id')
    .execute();
}

/** The users holding the skill named `name` at `level` or more, unexpired at `nowIso`. */
export async function holdersOf(db: Kysely<DB>, scope: TenantScope, name: string, level: number, nowIso: string): Promise<number[]> {
  const rows = await inTenant(db, scope)
    .selectFrom('user_skills')
    .innerJoin('skills', (join) =>
      join.onRef('skills.id', '=', 'user_skills.skill_id').onRef('skills.client_id', '=', 'user_skills.client_id'),
    )
    .select('user_skills.user_id')
    .where('skills.name', '=', name)
    .where('user_skills.level', '>=', level)
    .where((eb) => eb.or([eb('user_skills.expires_at', 'is', null), eb('user_skills.expires_at', '>', nowIso)]))
    .execute();
  return rows.map((r) => r.user_id);
}

/** Grants expiring in [fromIso, toIso), in id order. */
export function listExpiringUserSkills(
  db: Kysely<DB>,
  scope: TenantScope,
  fromIso: string,
  toIso: string,
  page: PageInput,
): Promise<CountedPage<UserSkillRow>> {
  return paginateCounted(
    inTenant(db, scope).selectFrom('user_skills').selectAll().where('expires_at', '>=', fromIso).where('expires_at', '<', toIso),
    page,
  );
}

/**
 * The daily notice's work, across every client: grants expiring in
 * [fromIso, toIso) not yet noticed, with their skill's name.
 */
export async function unnoticedExpiries(
  db: Kysely<DB>,
  fromIso: string,
  toIso: string,
  limit: number,
): Promise<(UserSkillRow & { skill_name: string })[]> {
  return db
    .selectFrom('user_skills')
    .innerJoin('skills', (join) =>
      join.onRef('skills.id', '=', 'user_skills.skill_id').onRef('skills.client_id', '=', 'user_skills.client_id'),
    )
    .selectAll('user_skills')
    .select('skills.name as skill_name')
    .where('user_skills.expires_at', '>=', fromIso)
    .where('user_skills.expires_at', '<', toIso)
    .where('user_skills.expiry_notified_at', 'is', null)
    .orderBy('user_skills.client_id')
    .orderBy('user_skills.id')
    .limit(limit)
    .execute();
}

export async function markExpiryNoticed(db: Kysely<DB>, scope: TenantScope, ids: readonly number[], nowIso: string): Promise<void> {
  if (ids.length === 0) return;
  await inTenant(db, scope)
    .updateTable('user_skills')
    .set({ expiry_notified_at: nowIso })
    .where('id', 'in', [...ids])
    .execute();
}

// ── Overrides ───────────────────────────────────────────────────────────────

export async function insertOverride(
  db: Kysely<DB>,
  scope: TenantScope,
  row: Omit<Insertable<QualificationOverridesTable>, 'client_id'>,
): Promise<QualificationOverrideRow> {
  return db
    .insertInto('qualification_overrides')
    .values({ ...row, client_id: scope.clientId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** An override letting the user work on the job, or (jobId null, or none for the job) on jobs of the version. */
export async function findOverride(
  db: Kysely<DB>,
  scope: TenantScope,
  userId: number,
  versionId: number,
  jobId: number | null,
): Promise<QualificationOverrideRow | undefined> {
  return inTenant(db, scope)
    .selectFrom('qualification_overrides')
    .selectAll()
    .where('user_id', '=', userId)
    .where('version_id', '=', versionId)
    .where((eb) => (jobId === null ? eb('job_id', 'is', null) : eb.or([eb('job_id', 'is', null), eb('job_id', '=', jobId)])))
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

/** Overrides set since `sinceIso`, newest first (the supervisor's deviations). */
export async function overridesSince(
  db: Kysely<DB>,
  scope: TenantScope,
  sinceIso: string,
  limit: number,
): Promise<QualificationOverrideRow[]> {
  return inTenant(db, scope)
    .selectFrom('qualification_overrides')
    .selectAll()
    .where('created_at', '>=', sinceIso)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

// ── Retraining ──────────────────────────────────────────────────────────────

/** Makes the version's retraining due for the users (once: a user already due keeps the first date). */
export async function insertRetrainings(
  db: Kysely<DB>,
  scope: TenantScope,
  rows: { userId: number; templateId: number; versionId: number; previousVersionId: number; dueSince: string }[],
): Promise<void> {
  for (const row of rows) {
    await db
      .insertInto('retrainings')
      .values({
        client_id: scope.clientId,
        user_id: row.userId,
        template_id: row.templateId,
        version_id: row.versionId,
        previous_version_id: row.previousVersionId,
        due_since: row.dueSince,
        acknowledged_at: null,
      })
      .onConflict((oc) => oc.columns(['client_id', 'user_id', 'version_id']).doNothing())
      .execute();
  }
}

/** The user's unacknowledged retrainings of the template, for versions up to `versionId` (a job pinned to an older version needs none). */
export async function dueRetrainings(
  db: Kysely<DB>,
  scope: TenantScope,
  userId: number,
  templateId: number,
  versionId: number,
): Promise<RetrainingRow[]> {
  return inTenant(db, scope)
    .selectFrom('retrainings')
    .selectAll()
    .where('user_id', '=', userId)
    .where('template_id', '=', templateId)
    .where('version_id', '<=', versionId)
    .where('acknowledged_at', 'is', null)
    .orderBy('id')
    .execute();
}

/** The user's retrainings, the unacknowledged first, then newest first. */
export async function retrainingsOfUser(db: Kysely<DB>, scope: TenantScope, userId: number, limit: number): Promise<RetrainingRow[]> {
  return inTenant(db, scope)
    .selectFrom('retrainings')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export async function findRetraining(
  db: Kysely<DB>,
  scope: TenantScope,
  userId: number,
  versionId: number,
): Promise<RetrainingRow | undefined> {
  return inTenant(db, scope)
    .selectFrom('retrainings')
    .selectAll()
    .where('user_id', '=', userId)
    .where('version_id', '=', versionId)
    .executeTakeFirst();
}

export async function acknowledgeRetrainingRow(db: Kysely<DB>, scope: TenantScope, id: number, nowIso: string): Promise<RetrainingRow> {
  return inTenant(db, scope)
    .updateTable('retrainings')
    .set({ acknowledged_at: nowIso })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The client's users as the matrix pages them: ids in id order. */
export function listUserIdsPage(db: Kysely<DB>, scope: TenantScope, page: PageInput): Promise<CountedPage<{ id: number }>> {
  return paginateCounted(inTenant(db, scope).selectFrom('users').select('id'), page);
}

/** The overrides that concern a job: set on it, or on its version (job_id null) for one of `userIds` (its members). */
export async function overridesOfJob(
  db: Kysely<DB>,
  scope: TenantScope,
  job: { id: number; versionId: number },
  userIds: readonly number[],
): Promise<QualificationOverrideRow[]> {
  return inTenant(db, scope)
    .selectFrom('qualification_overrides')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb('job_id', '=', job.id),
        ...(userIds.length > 0
          ? [eb.and([eb('job_id', 'is', null), eb('version_id', '=', job.versionId), eb('user_id', 'in', [...userIds])])]
          : []),
      ]),
    )
    .orderBy('id')
    .execute();
}
