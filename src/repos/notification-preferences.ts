import type { Kysely } from 'kysely';
import type { DB } from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';

// Each user's notification choices: the language and the kinds turned off.
// No row means every kind on in the default language.

export interface StoredPreferences {
  language: string | null;
  disabledKinds: string[];
}

const NONE: StoredPreferences = { language: null, disabledKinds: [] };

function parse(row: { language: string | null; disabled_kinds: string }): StoredPreferences {
  return { language: row.language, disabledKinds: JSON.parse(row.disabled_kinds) as string[] };
}

export async function getNotificationPreferences(db: Kysely<DB>, scope: TenantScope, userId: number): Promise<StoredPreferences> {
  const row = await inTenant(db, scope)
    .selectFrom('notification_preferences')
    .select(['language', 'disabled_kinds'])
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row ? parse(row) : NONE;
}

export async function putNotificationPreferences(
  db: Kysely<DB>,
  scope: TenantScope,
  userId: number,
  prefs: StoredPreferences,
  now: string,
): Promise<void> {
  const values = { language: prefs.language, disabled_kinds: JSON.stringify(prefs.disabledKinds), updated_at: now };
  await db
    .insertInto('notification_preferences')
    .values({ client_id: scope.clientId, user_id: userId, ...values })
    .onConflict((oc) => oc.columns(['client_id', 'user_id']).doUpdateSet(values))
    .execute();
}

export interface NotifiableUser {
  id: number;
  email: string;
  roles: string[];
  availableToOrg: string;
  preferences: StoredPreferences;
}

/**
 * The active users among `userIds`, with their roles and notification
 * choices: whom a notification may reach (disabled and invited-but-not-yet-
 * active accounts are told nothing).
 */
export async function loadNotifiableUsers(db: Kysely<DB>, scope: TenantScope, userIds: readonly number[]): Promise<NotifiableUser[]> {
  if (userIds.length === 0) return [];
  const t = inTenant(db, scope);
  const users = await t
    .selectFrom('users')
    .select(['id', 'email', 'available_to_org'])
    .where('id', 'in', [...userIds])
    .where('status', '=', 'active')
    .orderBy('id')
    .execute();
  if (users.length === 0) return [];
  const ids = users.map((u) => u.id);
  const roles = await t.selectFrom('user_roles').select(['user_id', 'role']).where('user_id', 'in', ids).execute();
  const prefs = await t
    .selectFrom('notification_preferences')
    .select(['user_id', 'language', 'disabled_kinds'])
    .where('user_id', 'in', ids)
    .execute();
  const prefsOf = new Map(prefs.map((p) => [p.user_id, parse(p)]));
  return users.map((u) => ({
    id: u.id,
    email: u.email,
    availableToOrg: u.available_to_org,
    roles: roles.filter((r) => r.user_id === u.id).map((r) => r.role),
    preferences: prefsOf.get(u.id) ?? NONE,
  }));
}
