import type { Kysely } from 'kysely';
import { columnContains } from '#db/search';
import type { DB, NewUser, UserRow, UserUpdate } from '#db/schema';
import { inTenant, selectByIds, tenantScope, type TenantScope } from '#db/tenant';
import { afterId, decodeCursor, paginate, toPage, type Page, type PageInput } from '#db/pagination';
import { compiledRead } from '#db/compiled-query';
import { columnSet, type ColumnSet } from '#db/columns';
import { notFound } from '#errors';

export type UserWithRoles = UserRow & { roles: string[] };

/**
 * The columns lists and loaders read: what the API may show, and no more (the
 * password hash is never loaded where it is not needed; fewer columns also make
 * a page of rows cheaper to materialize).
 */
export const USER_SUMMARY_COLUMNS = [
  'id',
  'client_id',
  'email',
  'first_name',
  'last_name',
  'title',
  'license_type',
  'available_to_org',
  'status',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof UserRow)[];
export type UserSummaryColumn = (typeof USER_SUMMARY_COLUMNS)[number];
export type UserSummary = Pick<UserRow, UserSummaryColumn> & { roles: string[] };
const USER_SUMMARY = columnSet(USER_SUMMARY_COLUMNS);

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function findUserById(db: Kysely<DB>, scope: TenantScope, id: number): Promise<UserWithRoles | undefined> {
  const row = await inTenant(db, scope).selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? (await withRoles(db, scope, [row]))[0] : undefined;
}

/** Users of the client among `ids` (for DataLoaders: one statement for many ids; others' ids are not found). */
export async function loadUsersByIds(db: Kysely<DB>, scope: TenantScope, ids: readonly number[]): Promise<UserSummary[]> {
  return withRoles(db, scope, await loadUserRowsByIds(db, scope, ids));
}

/**
 * The same users without their roles (GraphQL reads roles only when a query asks for them: loadRolesOfUsers),
 * with only `columns` (GraphQL: the fields a query selects), the others absent.
 */
export async function loadUserRowsByIds(
  db: Kysely<DB>,
  scope: TenantScope,
  ids: readonly number[],
  columns: ColumnSet<UserSummaryColumn> = USER_SUMMARY,
): Promise<Omit<UserSummary, 'roles'>[]> {
  return selectByIds(db, scope, `users:${columns.key}`, ids, (batch) =>
    inTenant(db, scope).selectFrom('users').select(columns.columns).where('id', 'in', batch),
  );
}

/**
 * The roles of the client's users among `userIds`, each list in the usual order (users without a role are left out).
 * Ids close together — a page of the list, always — are read as one range of the roles' primary key
 * (client_id, user_id, role): one index seek instead of one per id, and one statement text for every
 * page instead of one per list length (about half the cost on a page of 51); roles of users in the
 * range but not among the ids are read and left out. Scattered ids go through the batched id list.
 */
export async function loadRolesOfUsers(db: Kysely<DB>, scope: TenantScope, userIds: readonly number[]): Promise<Map<number, string[]>> {
  const byUser = new Map<number, string[]>();
  if (userIds.length === 0) return byUser;
  let low = userIds[0];
  let high = low;
  for (const id of userIds) {
    if (id < low) low = id;
    else if (id > high) high = id;
  }
  const inRange = high - low < 2 * userIds.length;
  const rows = inRange
    ? await rolesInRange(db, scope.clientId, low, high)
    : await selectByIds(db, scope, 'userRoles', userIds, (batch) =>
        inTenant(db, scope).selectFrom('user_roles').select(['user_id', 'role']).where('user_id', 'in', batch),
      );
  const wanted = inRange ? new Set(userIds) : undefined;
  for (const { user_id, role } of rows) {
    if (wanted && !wanted.has(user_id)) continue;
    const roles = byUser.get(user_id);
    if (roles) roles.push(role);
    else byUser.set(user_id, [role]);
  }
  for (const roles of byUser.values()) sortRoles(roles);
  return byUser;
}

/** @throws AppError NOT_FOUND, also for a user of another client */
export async function getUserById(db: Kysely<DB>, scope: TenantScope, id: number): Promise<UserWithRoles> {
  const user = await findUserById(db, scope, id);
  if (!user) throw notFound('User');
  return user;
}

export async function findUserByEmail(db: Kysely<DB>, scope: TenantScope, email: string): Promise<UserRow | undefined> {
  return inTenant(db, scope).selectFrom('users').selectAll().where('email_normalized', '=', normalizeEmail(email)).executeTakeFirst();
}

/** Oldest first; `search` keeps users whose email, first or last name contains it (any case). */
export async function listUsers(db: Kysely<DB>, scope: TenantScope, page: PageInput & { search?: string }): Promise<Page<UserSummary>> {
  const search = page.search;
  let result: Page<Omit<UserSummary, 'roles'>>;
  if (search) {
    const query = inTenant(db, scope).selectFrom('users').select(USER_SUMMARY_COLUMNS);
    result = await paginate(
      query.where((eb) => eb.or(['email', 'first_name', 'last_name'].map((column) => columnContains(column, search)))),
      page,
    );
  } else {
    // the list as it is paged at volume: compiled once
    result = toPage(await userPage(db, scope.clientId, decodeCursor(page.cursor), page.limit + 1), page.limit);
  }
  return { items: await withRoles(db, scope, result.items), nextCursor: result.nextCursor };
}

const userPage = compiledRead((db, clientId: number, after: number, limit: number) =>
  afterId(inTenant(db, tenantScope(clientId)).selectFrom('users').select(USER_SUMMARY_COLUMNS), after, limit),
);

/** Sign-in candidates: the same email may exist in several clients. */
export async function findUsersByEmailAcrossClients(db: Kysely<DB>, email: string): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().where('email_normalized', '=', normalizeEmail(email)).orderBy('id').execute();
}

export async function insertUser(db: Kysely<DB>, scope: TenantScope, user: Omit<NewUser, 'client_id'>): Promise<UserRow> {
  return db
    .insertInto('users')
    .values({ ...user, client_id: scope.clientId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateUser(db: Kysely<DB>, scope: TenantScope, id: number, changes: UserUpdate): Promise<UserRow> {
  const { client_id: _ignored, id: _id, ...safe } = changes;
  const row = await inTenant(db, scope).updateTable('users').set(safe).where('id', '=', id).returningAll().executeTakeFirst();
  if (!row) throw notFound('User');
  return row;
}

/** Deletes the user; sessions, tokens and roles go with it (ON DELETE CASCADE). */
export async function deleteUser(db: Kysely<DB>, scope: TenantScope, id: number): Promise<boolean> {
  const result = await inTenant(db, scope).deleteFrom('users').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * Replaces the user's roles. A role named twice is stored once: the list may
 * come from an identity provider's claim or a provider's JIT settings, and a
 * repeated role would otherwise hit user_roles' primary key.
 */
export async function setUserRoles(db: Kysely<DB>, scope: TenantScope, userId: number, roles: readonly string[]): Promise<void> {
  await inTenant(db, scope).deleteFrom('user_roles').where('user_id', '=', userId).execute();
  if (roles.length === 0) return;
  await db
    .insertInto('user_roles')
    .values([...new Set(roles)].map((role) => ({ client_id: scope.clientId, user_id: userId, role })))
    .execute();
}

export async function countUsersWithLicenseType(
  db: Kysely<DB>,
  scope: TenantScope,
  licenseType: string,
  exceptUserId?: number,
): Promise<number> {
  let query = inTenant(db, scope)
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('license_type', '=', licenseType);
  if (exceptUserId !== undefined) query = query.where('id', '!=', exceptUserId);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Gives each user (fresh rows, extended in place: no copy per row) its roles, in one statement (loadRolesOfUsers). */
async function withRoles<T extends { id: number }>(db: Kysely<DB>, scope: TenantScope, users: T[]): Promise<(T & { roles: string[] })[]> {
  if (users.length === 0) return [];
  const byUser = await loadRolesOfUsers(
    db,
    scope,
    users.map((u) => u.id),
  );
  const withRoles = users as (T & { roles: string[] })[];
  for (const user of withRoles) user.roles = byUser.get(user.id) ?? [];
  return withRoles;
}

const rolesInRange = compiledRead((db, clientId: number, low: number, high: number) =>
  inTenant(db, tenantScope(clientId))
    .selectFrom('user_roles')
    .select(['user_id', 'role'])
    .where('user_id', '>=', low)
    .where('user_id', '<=', high),
);

const ROLE_ORDER = ['admin', 'user_admin', 'author', 'operator', 'approver', 'publisher', 'viewer'];
function sortRoles(roles: string[]): string[] {
  return roles.sort((a, b) => ROLE_ORDER.indexOf(a) - ROLE_ORDER.indexOf(b));
}

/** For system administrators, who may read a user of any client. */
export async function findUserByIdAcrossClients(db: Kysely<DB>, id: number): Promise<UserWithRoles | undefined> {
  const row = await db.selectFrom('users').select('client_id').where('id', '=', id).executeTakeFirst();
  return row ? findUserById(db, tenantScope(row.client_id), id) : undefined;
}

/** The longest-standing user holding `role` (the client's owner for the Security Administrator role). */
export async function findFirstUserWithRole(db: Kysely<DB>, scope: TenantScope, role: string): Promise<UserRow | undefined> {
  return inTenant(db, scope)
    .selectFrom('users')
    .selectAll()
    .where('status', '!=', 'disabled')
    .where('id', 'in', inTenant(db, scope).selectFrom('user_roles').select('user_id').where('role', '=', role))
    .orderBy('id')
    .executeTakeFirst();
}

/** The active users holding any of `roles` (e.g. who may approve a version). */
export async function listActiveUserIdsWithAnyRole(db: Kysely<DB>, scope: TenantScope, roles: readonly string[]): Promise<number[]> {
  if (roles.length === 0) return [];
  const rows = await inTenant(db, scope)
    .selectFrom('users')
    .select('id')
    .where('status', '=', 'active')
    .where('id', 'in', inTenant(db, scope).selectFrom('user_roles').select('user_id').where('role', 'in', roles))
    .execute();
  return rows.map((r) => r.id);
}

/** Every user holding `role` who is not disabled (e.g. to mail a client's Security Administrators). */
export async function listUsersWithRole(db: Kysely<DB>, scope: TenantScope, role: string): Promise<UserRow[]> {
  return inTenant(db, scope)
    .selectFrom('users')
    .selectAll()
    .where('status', '!=', 'disabled')
    .where('id', 'in', inTenant(db, scope).selectFrom('user_roles').select('user_id').where('role', '=', role))
    .orderBy('id')
    .execute();
}

/** Up to two holders of a role in the client: enough to tell whether one user is its only holder. */
export async function findTwoHoldersOfRole(db: Kysely<DB>, scope: TenantScope, role: string): Promise<number[]> {
  return (await twoHoldersOfRole(db, scope.clientId, role)).map((row) => row.user_id);
}

// user_roles_client_role (migration 0031) reads the holders only, not every role row of the client
const twoHoldersOfRole = compiledRead((db, clientId: number, role: string) =>
  inTenant(db, tenantScope(clientId)).selectFrom('user_roles').select('user_id').where('role', '=', role).limit(2),
);
