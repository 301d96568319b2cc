import {
  DEFAULT_PAGE_SIZE,
  decodeBeforeCursor,
  decodeCursor,
  encodeCursor,
  MAX_PAGE_SIZE,
  type CountedPage,
  type PageInput,
} from '#db/pagination';
import { validationFailed } from '#errors';

/**
 * Relay connections (the Cursor Connections spec) over the one pagination shape: `first`/`after` page forward,
 * `last`/`before` backward; a page's cursors are the same opaque keyset cursors REST hands out, in id order.
 * Lists read from the database page there (`pageInput` → a repo's keyset page); lists a parent already holds
 * whole (a template's versions, a job's faults — batched by the loaders) page in memory (`connectionFromArray`).
 */
export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/** The SDL of a connection of `node` (its edge type, and `nodes` for clients that want the nodes only). */
export function connectionTypeDefs(node: string, description = ''): string {
  return /* GraphQL */ `
    type ${node}Edge {
      node: ${node}!
      cursor: String!
    }
    ${description ? `"${description}"` : ''}
    type ${node}Connection {
      edges: [${node}Edge!]!
      "the edges' nodes, for a client that wants no cursors"
      nodes: [${node}!]!
      pageInfo: PageInfo!
      "every item of the list, all pages together"
      totalCount: Int!
    }
  `;
}

/** The arguments of a connection field. */
export const CONNECTION_ARGS = 'first: Int, after: String, last: Int, before: String';

/** A connection's arguments as a keyset page: forward (`first`, `after`) or backward (`last`, `before`), never both. */
export function pageInput(args: ConnectionArgs): PageInput {
  const forward = args.first != null || args.after != null;
  const backward = args.last != null || args.before != null;
  if (forward && backward) {
    throw validationFailed({ fields: [{ path: 'last', message: 'page forward (first, after) or backward (last, before), not both' }] });
  }
  const [name, size] = backward ? (['last', args.last] as const) : (['first', args.first] as const);
  const limit = size ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw validationFailed({ fields: [{ path: name, message: `must be between 1 and ${MAX_PAGE_SIZE}` }] });
  }
  // a bad cursor is BAD_REQUEST "Invalid cursor", as on REST: checked here, before any statement
  if (args.after != null) decodeCursor(args.after);
  if (args.before != null) decodeCursor(args.before);
  return backward ? { limit, before: args.before ?? '' } : { limit, cursor: args.after ?? undefined };
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

class Connection<N> {
  constructor(
    readonly edges: Edge<N>[],
    readonly pageInfo: {
      hasNextPage: boolean;
      hasPreviousPage: boolean;
      readonly startCursor: string | null;
      readonly endCursor: string | null;
    },
    private readonly total: () => Promise<number> | number,
  ) {}

  get nodes(): N[] {
    return this.edges.map((edge) => edge.node);
  }

  /** counted when asked (a getter, read by graphql-js and graphql-jit alike): one more statement for a list read from the database */
  get totalCount(): Promise<number> | number {
    return this.total();
  }
}

function pageInfo<N>(edges: Edge<N>[], hasNextPage: boolean, hasPreviousPage: boolean) {
  return {
    hasNextPage,
    hasPreviousPage,
    get startCursor() {
      return edges.length > 0 ? edges[0].cursor : null;
    },
    get endCursor() {
      return edges.length > 0 ? edges[edges.length - 1].cursor : null;
    },
  };
}

/**
 * A keyset page as a connection. Paging forward, `hasPreviousPage` is whether an `after` cursor was given (rows
 * came before it); paging backward it is exact, and `hasNextPage` is whether a `before` cursor was given.
 */
export function toConnection<T extends { id: number }, N>(page: CountedPage<T>, input: PageInput, present: (row: T) => N) {
  const edges = page.items.map((row) => new Edge(present(row), row.id));
  const backward = input.before !== undefined;
  const hasNext = backward ? input.before !== '' : page.nextCursor !== null;
  const hasPrevious = backward ? page.hasPrevious === true : input.cursor !== undefined;
  return new Connection(edges, pageInfo(edges, hasNext, hasPrevious), page.count);
}

/** A list held whole (in id order) as a connection: the page cut in memory, both directions exact, the count free. */
export function connectionFromArray<T extends { id: number }, N>(rows: readonly T[], args: ConnectionArgs, present: (row: T) => N) {
  const input = pageInput(args);
  let start = 0;
  let end = rows.length;
  if (input.cursor !== undefined) {
    const after = decodeCursor(input.cursor);
    start = rows.findIndex((row) => row.id > after);
    if (start < 0) start = rows.length;
  }
  if (input.before !== undefined) {
    const before = decodeBeforeCursor(input.before);
    end = rows.findIndex((row) => row.id >= before);
    if (end < 0) end = rows.length;
  }
  const backward = input.before !== undefined;
  const from = backward ? Math.max(start, end - input.limit) : start;
  const to = backward ? end : Math.min(end, start + input.limit);
  const edges = rows.slice(from, to).map((row) => new Edge(present(row), row.id));
  return new Connection(edges, pageInfo(edges, to < rows.length, from > 0), () => rows.length);
}
