import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { DB, UserStatus } from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';
import { paginate, type Page, type PageInput } from '#db/pagination';

/** The vendor users report: users with their client, license type, roles, last sign-in and status. */

export interface UserReportFilter {
  licenseType?: string;
  status?: UserStatus;
  role?: string;
}

export interface UserReportRow {
  id: number;
  client_id: number;
  client_name: string;
  email: string;
  first_name: string;
  last_name: string;
  title: string;
  license_type: string;
  status: UserStatus;
  created_at: string;
  /** the newest session's start (sessions_client_user_created makes it one index seek a user) */
  last_sign_in_at: string | null;
  roles: string[];
}

/** One keyset page of the client's users. */
export async function listUserReportRows(
  db: Kysely<DB>,
  scope: TenantScope,
  filter: UserReportFilter,
  page: PageInput,
): Promise<Page<UserReportRow>> {
  return reportPage(db, inTenant(db, scope).selectFrom('users'), filter, page);
}

/** One keyset page of every client's users (or of one client: `clientId`), for system administrators. */
export async function listUserReportRowsAcrossClients(
  db: Kysely<DB>,
  filter: UserReportFilter & { clientId?: number },
  page: PageInput,
): Promise<Page<UserReportRow>> {
  let users = db.selectFrom('users');
  if (filter.clientId !== undefined) users = users.where('users.client_id', '=', filter.clientId);
  return reportPage(db, users, filter, page);
}

async function reportPage(
  db: Kysely<DB>,
  users: SelectQueryBuilder<DB, 'users', {}>,
  filter: UserReportFilter,
  page: PageInput,
): Promise<Page<UserReportRow>> {
  let query = users.innerJoin('clients', 'clients.id', 'users.client_id').select((eb) => [
    'users.id',
    'users.client_id',
    'clients.name as client_name',
    'users.email',
    'users.first_name',
    'users.last_name',
    'users.title',
    'users.license_type',
    'users.status',
    'users.created_at',
    eb
      .selectFrom('sessions')
      .select((s) => s.fn.max('sessions.created_at').as('at'))
      .whereRef('sessions.client_id', '=', 'users.client_id')
      .whereRef('sessions.user_id', '=', 'users.id')
      .as('last_sign_in_at'),
  ]);
  if (filter.licenseType !== undefined) query = query.where('users.license_type', '=', filter.licenseType);
  if (filter.status !== undefined) query = query.where('users.status', '=', filter.status);
  if (filter.role !== undefined) {
    const role = filter.role;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('user_roles')
          .select('user_roles.user_id')
          .whereRef('user_roles.client_id', '=', 'users.client_id')
          .whereRef('user_roles.user_id', '=', 'users.id')
          .where('user_roles.role', '=', role),
      ),
    );
  }
  const result = await paginate(query, page, 'users.id');
  const ids = result.items.map((u) => u.id);
  const roleRows =
    ids.length === 0
      ? []
      : await db.selectFrom('user_roles').select(['user_id', 'role']).where('user_id', 'in', ids).orderBy('role').execute();
  const roles = new Map<number, string[]>();
  for (const row of roleRows) roles.set(row.user_id, [...(roles.get(row.user_id) ?? []), row.role]);
  return {
    items: result.items.map((u) => ({ ...u, last_sign_in_at: u.last_sign_in_at ?? null, roles: roles.get(u.id) ?? [] })),
    nextCursor: result.nextCursor,
  };
}
