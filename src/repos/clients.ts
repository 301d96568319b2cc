import type { Kysely } from 'kysely';
import { columnContains } from '#db/search';
import type { ClientRow, DB } from '#db/schema';
import { notFound } from '#errors';
import { paginate, type Page, type PageInput } from '#db/pagination';

// Clients are the tenants themselves: only system-admin services reach this repo.

export async function findClientById(db: Kysely<DB>, id: number): Promise<ClientRow | undefined> {
  return db.selectFrom('clients').selectAll().where('id', '=', id).executeTakeFirst();
}

/** @throws AppError NOT_FOUND */
export async function getClientById(db: Kysely<DB>, id: number): Promise<ClientRow> {
  const row = await findClientById(db, id);
  if (!row) throw notFound('Client');
  return row;
}

/** Oldest first; `search` keeps clients whose name contains it (any case). */
export async function listClients(db: Kysely<DB>, page: PageInput & { search?: string }): Promise<Page<ClientRow>> {
  let query = db.selectFrom('clients').selectAll();
  if (page.search) query = query.where(columnContains('name', page.search));
  return paginate(query, page);
}

export async function findClientsByIds(db: Kysely<DB>, ids: number[]): Promise<ClientRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('clients').selectAll().where('id', 'in', ids).orderBy('id').execute();
}

export async function insertClient(db: Kysely<DB>, name: string, now: string): Promise<ClientRow> {
  return db.insertInto('clients').values({ name, created_at: now, updated_at: now }).returningAll().executeTakeFirstOrThrow();
}

export async function updateClient(
  db: Kysely<DB>,
  id: number,
  changes: { name?: string; logo_file_id?: number | null; time_zone?: string },
  now: string,
): Promise<ClientRow> {
  const row = await db
    .updateTable('clients')
    .set({ ...changes, updated_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw notFound('Client');
  return row;
}

/** Deletes the client; its users, roles, sessions, tokens and licenses go with it (ON DELETE CASCADE). */
export async function deleteClient(db: Kysely<DB>, id: number): Promise<boolean> {
  const result = await db.deleteFrom('clients').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function countClients(db: Kysely<DB>): Promise<number> {
  const row = await db
    .selectFrom('clients')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
