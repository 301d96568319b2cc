import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

const MAX_CACHED_STATEMENTS = 1000;

/**
 * Gives kysely's SQLite driver cached prepared statements. The driver prepares
 * every query afresh, and preparing costs more than running a small indexed
 * query; the SQL kysely compiles is stable per query shape (values are bound
 * parameters), so a cache keyed by SQL text serves nearly every request.
 * A statement still being iterated (a streamed query) is not reused.
 */
export function withStatementCache(sqlite: BetterSqlite3.Database): SqliteDatabase {
  const cache = new Map<string, CachedStatement>();
  const collector = new RowCollector(sqlite);
  return {
    close: () => {
      cache.clear();
      sqlite.close();
    },
    prepare(sql: string) {
      const cached = cache.get(sql);
      if (cached && !cached.busy) return cached;
      const statement = new CachedStatement(sqlite, sql, collector);
      if (!cached) {
        if (cache.size >= MAX_CACHED_STATEMENTS) cache.delete(cache.keys().next().value!);
        cache.set(sql, statement);
      }
      return statement;
    },
  } as SqliteDatabase;
}

/** The SQL function a wrapped read hands its rows to (see RowCollector); one per connection. */
const ROW_FUNCTION = 'wip_row';

/**
 * Reads rows as the arguments of a JavaScript function SQLite calls once per row:
 * `SELECT wip_row("a", "b") FROM (<the statement>)`. better-sqlite3 (on Node 20)
 * builds every row array, and the array of rows, with one V8 API call per value
 * (`Object::Set`, the slow generic path: ~18 % of a user-list page's CPU under
 * load in a perf profile); a function's arguments reach JavaScript as a plain
 * list, and the row object is built in JavaScript. Measured on a page of 51
 * users: 63–84 µs against 108–142 µs for the raw arrays. The function answers
 * the index of the row it kept, so the rows come back in the order of the
 * statement's output, whatever order SQLite evaluated them in.
 */
class RowCollector {
  private rows: unknown[] | undefined;
  private rowOf: (values: unknown[]) => unknown = () => undefined;

  constructor(sqlite: BetterSqlite3.Database) {
    // directOnly: not callable from a view or trigger in the database file
    sqlite.function(ROW_FUNCTION, { varargs: true, directOnly: true }, (...values: unknown[]) => {
      const rows = this.rows;
      if (!rows) throw new Error(`${ROW_FUNCTION} is called by the statement cache only`);
      return rows.push(this.rowOf(values)) - 1;
    });
  }

  /** The wrapped form of a SELECT whose columns are `names`, or undefined when it cannot be wrapped faithfully. */
  static wrap(sql: string, names: readonly string[]): string | undefined {
    // `*` (select *, count(*)): the outer column list could miss a column a schema change adds; names
    // equal but for case (SQLite's names are case-insensitive) could not be told apart from outside
    if (!/^\s*select\b/i.test(sql) || sql.includes('*') || names.length === 0 || new Set(names.map((n) => n.toLowerCase())).size !== names.length) return undefined;
    // the line break ends a trailing `--` comment of the statement
    return `SELECT ${ROW_FUNCTION}(${names.map((n) => `"${n.replaceAll('"', '""')}"`).join(', ')}) FROM (${sql}\n)`;
  }

  all(wrapped: BetterSqlite3.Statement, parameters: ReadonlyArray<unknown>, rowOf: (values: unknown[]) => unknown): unknown[] {
    const rows: unknown[] = [];
    this.rows = rows;
    this.rowOf = rowOf;
    let order: number[];
    try {
      order = wrapped.all(parameters) as number[];
    } finally {
      this.rows = undefined;
    }
    let inOrder = order.length === rows.length;
    for (let i = 0; inOrder && i < order.length; i++) inOrder = order[i] === i;
    return inOrder ? rows : order.map((i) => rows[i]);
  }
}

/**
 * A statement whose `all` builds each row object with a function made for the
 * statement's columns, from the values of a wrapped read (RowCollector) or,
 * where the statement cannot be wrapped, from rows read as arrays.
 * better-sqlite3 builds row objects natively, property by property, which
 * costs about twice as much as reading the values (measured on a page of 51
 * users: 240–280 µs against 120–160 µs); the objects built here are the same
 * (same keys, same order, a repeated column name keeps its last value) and all
 * of one shape, which the code reading them also runs faster on. `run` and
 * `iterate` are unchanged.
 */
class CachedStatement implements SqliteStatement {
  private readonly statement: BetterSqlite3.Statement;
  private readonly arrays: BetterSqlite3.Statement | undefined;
  private readonly wrapped: BetterSqlite3.Statement | undefined;
  private rowOf: (values: unknown[]) => unknown = () => ({});
  private width = 0;

  constructor(
    sqlite: BetterSqlite3.Database,
    sql: string,
    private readonly collector: RowCollector,
  ) {
    this.statement = sqlite.prepare(sql);
    if (this.statement.reader) {
      const wrapped = RowCollector.wrap(sql, this.learnColumns(this.statement));
      this.wrapped = wrapped === undefined ? undefined : prepareOrUndefined(sqlite, wrapped)?.pluck(true);
      // rows as arrays only where the statement cannot be wrapped
      if (!this.wrapped) this.arrays = sqlite.prepare(sql).raw(true);
    }
  }

  /** The row builder for the columns of `source` (again if a schema change altered them: SQLite re-prepares). */
  private learnColumns(source: BetterSqlite3.Statement): string[] {
    const names = source.columns().map((c) => c.name);
    this.width = names.length;
    this.rowOf = names.includes('__proto__')
      ? // in an object literal it would set the prototype: defined as an own property, like better-sqlite3 does
        (values) => {
          const row = {};
          names.forEach((name, i) => Object.defineProperty(row, name, { value: values[i], enumerable: true, writable: true, configurable: true }));
          return row;
        }
      : // the keys are string literals made by JSON.stringify: no column name can inject code
        (new Function('v', `return {${names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ')}};`) as (values: unknown[]) => unknown);
    return names;
  }

  get reader(): boolean {
    return this.statement.reader;
  }

  get busy(): boolean {
    return this.statement.busy || (this.arrays?.busy ?? false) || (this.wrapped?.busy ?? false);
  }

  all(parameters: ReadonlyArray<unknown>): unknown[] {
    // explicit columns (no `*`): the wrapped read's column list cannot fall behind a schema change
    if (this.wrapped) return this.collector.all(this.wrapped, parameters, this.rowOf);
    if (!this.arrays) return this.statement.all(parameters);
    const rows = this.arrays.all(parameters) as unknown[][];
    if (rows.length > 0 && rows[0]!.length !== this.width) this.learnColumns(this.arrays);
    const objects = new Array<unknown>(rows.length);
    for (let i = 0; i < rows.length; i++) objects[i] = this.rowOf(rows[i]!);
    return objects;
  }

  run(parameters: ReadonlyArray<unknown>): { changes: number | bigint; lastInsertRowid: number | bigint } {
    return this.statement.run(parameters);
  }

  iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown> {
    return this.statement.iterate(parameters);
  }
}

/** A statement that cannot be wrapped (a trailing `;`, say) is read as arrays instead. */
function prepareOrUndefined(sqlite: BetterSqlite3.Database, sql: string): BetterSqlite3.Statement | undefined {
  try {
    return sqlite.prepare(sql);
  } catch {
    return undefined;
  }
}
