import { DEFAULT_PAGE_SIZE, encodeCursor, MAX_PAGE_SIZE, type Page, type PageInput } from '../db/pagination';
import { validationFailed } from '../errors';

/**
 * Relay connections over the one pagination shape: `first`/`after` are
 * `limit`/`cursor`, and a page's cursors are the same opaque keyset cursors
 * REST hands out.
 */
export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
}

export function pageInput(args: ConnectionArgs): PageInput {
  const first = args.first ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(first) || first < 1 || first > MAX_PAGE_SIZE) {
    throw validationFailed({ fields: [{ path: 'first', message: `must be between 1 and ${MAX_PAGE_SIZE}` }] });
  }
  return { limit: first, cursor: args.after ?? undefined };
}

/** An edge's cursor is encoded when a query asks for it: most pages show their nodes only. */
class Edge<N> {
  constructor(
    readonly node: N,
    private readonly id: number,
  ) {}

  get cursor(): string {
    return encodeCursor(this.id);
  }
}

export function toConnection<T extends { id: number }, N>(page: Page<T>, present: (row: T) => N) {
  const edges = page.items.map((row) => new Edge(present(row), row.id));
  return {
    edges,
    pageInfo: { hasNextPage: page.nextCursor !== null, endCursor: edges.length > 0 ? edges[edges.length - 1]!.cursor : null },
  };
}
