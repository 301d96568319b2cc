import type {
  KyselyPlugin,
  OperationNode,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';

/**
 * A per-process counter bumped by every write through this process's query
 * builder that may change what the request path caches (src/repos/hot-path.ts:
 * sessions, users, roles, settings, licenses, agreements — and their cascade
 * parents). Caches compare it, together with SQLite's `PRAGMA data_version`
 * (which sees commits by other processes such as the CLI, but never this
 * connection's own), to decide in O(1) whether what they hold is still current.
 * Bumped before and after the statement runs, so no cache can be filled with a
 * generation older than the write.
 */
export class WriteGeneration {
  value = 0;
  bump(): void {
    this.value++;
  }
}

/**
 * What the request path caches reads — keep in step with the SQL in
 * src/repos/hot-path.ts and src/services/licensing/index.ts — plus the tables whose
 * deletion cascades into them (clients, system admins). Licenses and
 * agreements are here too, so anything that decides what a caller may do is
 * covered if it is cached later.
 */
export const CALLER_STATE_TABLES: ReadonlySet<string> = new Set([
  'sessions',
  'users',
  'user_roles',
  'user_two_factor',
  'client_settings',
  'clients',
  'admin_sessions',
  'system_admins',
  'deployment_state',
  'installed_licenses',
  'licenses',
  'agreements',
  'agreement_acceptances',
]);

/** Statements that never change data; every other raw statement (and every schema change) counts as a write to everything. */
const READ_ONLY_RAW = /^\s*(select|begin|commit|rollback|savepoint|release)\b/i;
const DATA_WRITES = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode']);

/** A kysely plugin bumping `generation` for writes touching any of `tables` (in any position: target, join, subquery). */
export function writeGenerationPlugin(generation: WriteGeneration, tables: ReadonlySet<string>): KyselyPlugin {
  const pending = new WeakSet<object>();
  const touches = (node: RootOperationNode): boolean => {
    if (node.kind === 'SelectQueryNode') return false;
    if (node.kind === 'RawNode') return !READ_ONLY_RAW.test(node.sqlFragments.join('?'));
    if (!DATA_WRITES.has(node.kind)) return true; // schema changes
    return mentionsTable(node, tables);
  };
  return {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      if (touches(args.node)) {
        generation.bump();
        pending.add(args.queryId);
      }
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      if (pending.has(args.queryId)) {
        pending.delete(args.queryId);
        generation.bump();
      }
      return args.result;
    },
  };
}

function mentionsTable(node: unknown, tables: ReadonlySet<string>): boolean {
  if (node === null || typeof node !== 'object') return false;
  const n = node as OperationNode & { table?: { identifier?: { name?: string } } };
  if (n.kind === 'TableNode' && tables.has(n.table?.identifier?.name ?? '')) return true;
  for (const value of Object.values(node)) {
    if (Array.isArray(value) ? value.some((v) => mentionsTable(v, tables)) : typeof value === 'object' && mentionsTable(value, tables))
      return true;
  }
  return false;
}
