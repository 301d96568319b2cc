import type { Kysely } from 'kysely';
import type { DB } from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';

/** tutorial id → completion time, for one user. */
export async function tutorialCompletions(db: Kysely<DB>, scope: TenantScope, userId: number): Promise<Map<string, string>> {
  const rows = await inTenant(db, scope)
    .selectFrom('tutorial_completions')
    .select(['tutorial_id', 'completed_at'])
    .where('user_id', '=', userId)
    .execute();
  return new Map(rows.map((r) => [r.tutorial_id, r.completed_at]));
}

/** Records a completion once: completing again keeps the first time. */
export async function insertTutorialCompletion(
  db: Kysely<DB>,
  scope: TenantScope,
  userId: number,
  tutorialId: string,
  at: string,
): Promise<void> {
  await db
    .insertInto('tutorial_completions')
    .values({ client_id: scope.clientId, user_id: userId, tutorial_id: tutorialId, completed_at: at })
    .onConflict((oc) => oc.columns(['client_id', 'user_id', 'tutorial_id']).doNothing())
    .execute();
}
