/**
 * The columns one read selects, and a key naming that set (what per-set
 * loaders and compiled SQL are cached by). Reads taking one return rows with
 * only those columns; GraphQL narrows them to what a query selects
 * (src/graphql/columns.ts).
 */
export interface ColumnSet<C extends string> {
  readonly columns: readonly C[];
  readonly key: string;
}

export function columnSet<C extends string>(columns: readonly C[]): ColumnSet<C> {
  return { columns, key: columns.join(',') };
}

/**
 * Every column of a row type, listed: `everyColumn<JobRow>()([...])` does not
 * compile when the list misses one, so a column added by a migration is not
 * silently left out of reads that mean "the whole row".
 */
export function everyColumn<Row>() {
  return <const C extends readonly (keyof Row & string)[]>(
    columns: C & ([Exclude<keyof Row, C[number]>] extends [never] ? unknown : never),
  ): C => columns;
}
