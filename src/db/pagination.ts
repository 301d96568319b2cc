import { sql, type SelectQueryBuilder } from 'kysely';
import { z } from 'zod';
import { badRequest } from '#errors';

/** The one pagination shape: `?limit=&cursor=` → `{items, nextCursor}`, keyset on an increasing id. */
export const MAX_PAGE_SIZE = 200;
export const DEFAULT_PAGE_SIZE = 50;

export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
  cursor: z.string().max(64).optional(),
});
/**
 * REST pages forward only (`cursor`); GraphQL's connections may page backward too: `before` set, the page is the
 * `limit` rows just before that cursor (still in id order) — `before: ''` the last `limit` rows.
 */
export type PageInput = z.infer<typeof PageQuery> & { before?: string };

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  /** paging backward only (never on a REST page): whether rows come before the page */
  hasPrevious?: boolean;
}

/** Cursors are opaque to clients; today they wrap the last id seen. */
export function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined || cursor === '') return 0;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^id:(\d{1,15})$/.exec(text);
  if (!match) throw badRequest('Invalid cursor', { cursor });
  return Number(match[1]);
}

/** The id a backward page ends before: `''` is past the last row. */
export function decodeBeforeCursor(before: string): number {
  return before === '' ? Number.MAX_SAFE_INTEGER : decodeCursor(before);
}

export function encodeCursor(id: number): string {
  return Buffer.from(`id:${id}`).toString('base64url');
}

/**
 * Turns `limit + 1` rows fetched after the cursor into a page — or, paging backward (`page.before`), `limit + 1`
 * rows fetched before it in descending id order: the page is then put back in id order, and rows follow it (the
 * one the `before` cursor names at least).
 */
export function toPage<T extends { id: number }>(rows: T[], limit: number, page?: PageInput): Page<T> {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  if (page?.before !== undefined) {
    items.reverse();
    const atEnd = page.before === '';
    return {
      items,
      nextCursor: atEnd ? null : items.length > 0 ? encodeCursor(items[items.length - 1].id) : page.before,
      hasPrevious: hasMore,
    };
  }
  return { items, nextCursor: hasMore ? encodeCursor(items[items.length - 1].id) : null };
}

export function mapPage<T, U>(page: Page<T>, fn: (item: T) => U): Page<U> {
  return { items: page.items.map(fn), nextCursor: page.nextCursor };
}

/** Rows with an id before `before`, newest first, at most `limit`: a backward page's part of a query (toPage puts it back in order). */
export function beforeId<QB extends SelectQueryBuilder<any, any, any>>(query: QB, before: number, limit: number, idColumn = 'id'): QB {
  return query
    .where(sql<boolean>`${sql.ref(idColumn)} < ${before}`)
    .orderBy(sql.ref(idColumn), 'desc')
    .limit(sql<number>`${limit} + 0`) as QB;
}

/** The keyset part of a page's query, forward (`cursor`) or backward (`before`). */
export function keysetPage<QB extends SelectQueryBuilder<any, any, any>>(query: QB, page: PageInput, idColumn = 'id'): QB {
  return page.before !== undefined
    ? beforeId(query, decodeBeforeCursor(page.before), page.limit + 1, idColumn)
    : afterId(query, decodeCursor(page.cursor), page.limit + 1, idColumn);
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
  const rows = await keysetPage(query, page, idColumn).execute();
  return toPage(rows, page.limit, page);
}

/**
 * How many rows a page's query matches in all (GraphQL's `totalCount`): the same query, tenant scope and
 * filters included, counted — one more statement, run only when a query asks for the count.
 */
export async function countRows(query: SelectQueryBuilder<any, any, any>): Promise<number> {
  const row = await query
    .clearSelect()
    .clearOrderBy()
    .select(sql<number>`count(*)`.as('total'))
    .executeTakeFirst();
  return Number((row as { total?: number | string } | undefined)?.total ?? 0);
}

/** A page with its list's total, counted when asked (a GraphQL connection's `totalCount`). */
export type CountedPage<T> = Page<T> & { count: () => Promise<number> };

/** `paginate`, and the count of every row the query matches, for a connection. */
export async function paginateCounted<O extends { id: number }>(
  query: SelectQueryBuilder<any, any, O>,
  page: PageInput,
  idColumn = 'id',
): Promise<CountedPage<O>> {
  return { ...(await paginate(query, page, idColumn)), count: () => countRows(query) };
}
