import { Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import { columnSet, type ColumnSet } from '#db/columns';

export interface ColumnMap<C extends string> {
  /** every column the type's full read selects, in their order */
  all: readonly C[];
  /** read whatever the query asks (the id a loader keys rows by) */
  always: readonly C[];
  /**
   * What each field of the GraphQL type reads from the row: [] for a field that
   * needs nothing more (a relation loaded by the row's id). A field not listed
   * — one added to the type later — reads every column: forgetting it here
   * costs speed, never a wrong answer.
   */
  byField: Readonly<Record<string, readonly C[]>>;
}

/**
 * The columns of a table that one place of a query needs, from the fields it
 * selects there (through fragments; `@skip`/`@include` are ignored, so the set
 * is never too small): a page of 50 jobs reads about a third of the values
 * its rows hold, and reading values out of SQLite was the largest cost of
 * such a page. Worked out once per place of a document — keyed by the field
 * nodes array, which graphql-jit's compiled operations pass unchanged on every
 * run, and the path below it — and then a lookup. Tenant scoping and authorization are untouched:
 * only the select list narrows.
 */
export class SelectedColumns<C extends string> {
  private readonly sets = new WeakMap<readonly FieldNode[], Map<string, ColumnSet<C>>>();
  private readonly everything: ColumnSet<C>;

  constructor(private readonly map: ColumnMap<C>) {
    this.everything = columnSet(map.all);
  }

  /**
   * The columns the selection of `info`'s field needs — below `paths` when given, all of them together (a
   * connection's nodes are selected under `['edges', 'node']` and under `['nodes']`).
   */
  of(info: GraphQLResolveInfo, ...paths: (readonly string[])[]): ColumnSet<C> {
    return memo(this.sets, info, paths, () => this.fromFields(selectedFields(info, ...paths)));
  }

  private fromFields(fields: ReadonlySet<string>): ColumnSet<C> {
    const needed = new Set<C>(this.map.always);
    for (const field of fields) {
      if (field === '__typename') continue;
      const columns = this.map.byField[field];
      if (!columns) return this.everything;
      for (const column of columns) needed.add(column);
    }
    const columns = this.map.all.filter((column) => needed.has(column));
    return columns.length === this.map.all.length ? this.everything : columnSet(columns);
  }
}

const fieldSets = new WeakMap<readonly FieldNode[], Map<string, ReadonlySet<string>>>();

/**
 * Names of the fields selected under `paths` below the resolved field (all of them together; none: the field's
 * own selection), fragments expanded, aliases resolved to names — once per place of a document.
 */
export function selectedFields(info: GraphQLResolveInfo, ...paths: (readonly string[])[]): ReadonlySet<string> {
  return memo(fieldSets, info, paths, () => new Set((paths.length > 0 ? paths : [[]]).flatMap((path) => [...collectFields(info, path)])));
}

/** What `make` gives for a place of a document: its resolved field's nodes (the same array on every run of a compiled operation) and paths below it. */
function memo<T>(
  cache: WeakMap<readonly FieldNode[], Map<string, T>>,
  info: GraphQLResolveInfo,
  paths: readonly (readonly string[])[],
  make: () => T,
): T {
  let byPath = cache.get(info.fieldNodes);
  if (!byPath) cache.set(info.fieldNodes, (byPath = new Map()));
  const key = paths.map((path) => path.join('.')).join('|');
  let value = byPath.get(key);
  if (value === undefined) byPath.set(key, (value = make()));
  return value;
}

function collectFields(info: GraphQLResolveInfo, path: readonly string[]): Set<string> {
  let sets: SelectionSetNode[] = info.fieldNodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));
  for (const name of path)
    sets = fieldsOf(info, sets).flatMap((node) => (node.name.value === name && node.selectionSet ? [node.selectionSet] : []));
  return new Set(fieldsOf(info, sets).map((node) => node.name.value));
}

function fieldsOf(info: GraphQLResolveInfo, sets: readonly SelectionSetNode[]): FieldNode[] {
  const fields: FieldNode[] = [];
  const visit = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) fields.push(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet);
      else {
        const fragment = info.fragments[selection.name.value];
        if (fragment) visit(fragment.selectionSet);
      }
    }
  };
  sets.forEach(visit);
  return fields;
}
