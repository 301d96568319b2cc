import { sql, type SelectQueryBuilder } from 'kysely';
import { z } from 'zod';
import { badRequest } from '../errors';

/** The one pagination shape: `?limit=&cursor=` → `{items, nextCursor}`, keyset on an increasing id. */
export const MAX_PAGE_SIZE = 200;
export const DEFAULT_PAGE_SIZE = 50;

export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
  cursor: z.string().max(64).optional(),
});
export type PageInput = z.infer<typeof PageQuery>;

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Cursors are opaque to clients; today they wrap the last id seen. */
export function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined || cursor === '') return 0;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^id:(\d{1,15})$/.exec(text);
  if (!match) throw badRequest('Invalid cursor', { cursor });
  return Number(match[1]);
}

export function encodeCursor(id: number): string {
  return Buffer.from(`id:${id}`).toString('base64url');
}

/** Turns `limit + 1` rows fetched after the cursor into a page. */
export function toPage<T extends { id: number }>(rows: T[], limit: number): Page<T> {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  return { items, nextCursor: hasMore ? encodeCursor(items[items.length - 1]!.id) : null };
}

export function mapPage<T, U>(page: Page<T>, fn: (item: T) => U): Page<U> {
  return { items: page.items.map(fn), nextCursor: page.nextCursor };
}

/**
 * The keyset page's part of a query: rows with an id after `after`, in id order, at most `limit`.
 *
 * The limit is bound as `? + 0`, an expression, not as a bare `?`: SQLite's planner reads a bare bound LIMIT
 * while it prepares a statement and then marks the statement to be prepared again whenever that parameter is
 * bound anew — on every run, as the driver binds every value each time (sqlite3ExprIsInteger, 3.4x). That
 * re-preparation was ~5 % of a user-list page's CPU under load (`sqlite3Reprepare` in a perf profile). An
 * expression is evaluated when the statement runs; the plans of the pages are the same (an index in id order).
 */
export function afterId<QB extends SelectQueryBuilder<any, any, any>>(query: QB, after: number, limit: number, idColumn = 'id'): QB {
  return query
    .where(sql<boolean>`${sql.ref(idColumn)} > ${after}`)
    .orderBy(sql.ref(idColumn))
    .limit(sql<number>`${limit} + 0`) as QB;
}

/**
 * Runs a query as one keyset page: rows with an id after the cursor, in id
 * order, `limit + 1` fetched to know whether another page follows. The query
 * brings its own table and filters (tenant scope included).
 */
export async function paginate<O extends { id: number }>(
  query: SelectQueryBuilder<any, any, O>,
  page: PageInput,
  idColumn = 'id',
): Promise<Page<O>> {
  const rows = await afterId(query, decodeCursor(page.cursor), page.limit + 1, idColumn).execute();
  return toPage(rows, page.limit);
}
