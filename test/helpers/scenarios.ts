import { sql } from 'kysely';
import { suite, type Test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Signals } from '#deps';
import type { DB } from '#db/schema';
import { AppError } from '#errors';
import { serviceDeps, type ServiceDeps } from './service-deps';

/**
 * Table-driven scenarios for services: given rows, when an operation, then
 * rows, an error (AppError code and status), signals, security-log entries
 * and outbox events. One file is one suite on one database (SQLite in memory,
 * or a fresh PostgreSQL database with WIP_TEST_BACKEND=postgres: see
 * serviceDeps), built once with `setup` into a `world` (a client, its users,
 * a published template…) that every scenario of the file shares. Each
 * scenario makes its own rows in `given` (its own job, its own schedule), so
 * scenarios never depend on each other's order. The clock is `deps.clock`, a
 * ManualClock: move it in `given` (`deps.clock.advance(ms)`), never back
 * behind what earlier scenarios of the file wrote.
 *
 *   const s = scenarios('step recording', async (deps) => {
 *     const { user } = await seedClient(deps);
 *     const operator = await user(['operator']);
 *     …
 *     return { operator, templateId };
 *   });
 *
 *   s.scenario('a value outside the limits is kept, marked', {
 *     given: ({ deps, world }) => newJob(deps, world),          // → given, passed on below
 *     when: ({ deps, world, given }) => recordStep(deps, world.operator, { jobId: given.id, … }),
 *     then: ({ given }) => ({
 *       rows: [{ table: 'step_records', where: { job_id: given.id }, equal: [{ step_id: 'p', values: [{ … }] }] }],
 *       signals: { clientEvent: 1 },
 *       outbox: [{ type: 'job.updated' }],
 *     }),
 *   });
 *
 *   for (const [value, code] of CASES)                           // a table of cases: one scenario per row
 *     s.scenario(`${value} is refused`, { given, when: …, then: { error: { code, status: 400 } } });
 *
 *   s.test('free-form, with the same deps and world', async ({ deps, world }) => { … });
 *   s.run();
 *
 * `then` (an object, or a function of { deps, world, given } run before `when`).
 * A partial match: an object needs only the keys it names, an array the same
 * length with each element matching, a RegExp matches a string.
 * - `error`: `when` must be refused with an AppError of this `code`, and
 *   `status` and `details` (a partial match) when given. After a refusal no
 *   table may have changed (every table is compared before and after) except
 *   the security log (`logs`), the tables named in `rows` and in `mayChange`,
 *   and no signal may have been sent unless `signals` says so.
 *   Without `error`, a refusal fails the scenario with that error.
 * - `rows`: for each, the rows of `table` matching `where` (equality on each
 *   column), ordered by `orderBy` (default `id`), must equal `equal`, in
 *   order, each row read only in the columns its expected row names. A column holding JSON
 *   text is parsed when the expected value is an object or an array.
 * - `signals`: how often each signal was sent during `when`; every signal not
 *   named must not have been sent.
 * - `securityLog`: the entries `when` added to the security log (`logs`), in
 *   order, each a partial match (`data` compared as a partial object).
 * - `outbox`: the events `when` added to the outbox (`events`: what webhooks
 *   and event streams deliver), in order, each a partial match (`data`: the
 *   payload's data, as a partial object).
 * - `result`: a function that checks the value `when` resolved with.
 * Parts left out are not checked.
 */

export interface Scene<W> {
  deps: ServiceDeps;
  world: W;
}

export type Row = Record<string, unknown>;

export interface RowsExpectation {
  table: keyof DB;
  where?: Row;
  /** default `id` */
  orderBy?: string;
  equal: Row[];
}

export interface Expectation {
  error?: { code: string; status?: number; details?: Row };
  rows?: RowsExpectation[];
  /** tables a refusal may change besides the security log and `rows` (e.g. a counter of failed attempts) */
  mayChange?: string[];
  signals?: Partial<Record<keyof Signals, number>>;
  securityLog?: { event: string; level?: string; client_id?: number | null; user_id?: number | null; data?: Row }[];
  outbox?: { type: string; client_id?: number | null; data?: Row }[];
  result?: (value: unknown) => void | Promise<void>;
}

export interface Scenario<W, G> {
  given?: (scene: Scene<W>) => G | Promise<G>;
  when: (scene: Scene<W> & { given: G }) => unknown;
  then: Expectation | ((scene: Scene<W> & { given: G }) => Expectation | Promise<Expectation>);
}

export interface Scenarios<W> {
  scenario<G = undefined>(name: string, spec: Scenario<W, G>): void;
  /** a free-form test with the suite's deps and world */
  test: Test<Scene<W>>;
  run(): void;
}

export function scenarios<W>(
  name: string,
  setup: (deps: ServiceDeps) => W | Promise<W>,
  options: { env?: Record<string, string> } = {},
): Scenarios<W> {
  const test = suite<Scene<W>>(`${name} (services)`);
  test.before(async (ctx) => {
    ctx.deps = await serviceDeps(options);
    ctx.world = await setup(ctx.deps);
  });
  test.after(async (ctx) => {
    await ctx.deps?.close();
  });
  return {
    test,
    run: () => test.run(),
    scenario(title, spec) {
      test(title, async ({ deps, world }) => {
        await play(deps, world, spec);
      });
    },
  };
}

/** Runs one scenario on `deps` (what scenarios() does per scenario; usable on its own with a serviceDeps). */
export async function play<W, G>(deps: ServiceDeps, world: W, spec: Scenario<W, G>): Promise<void> {
  const given = (spec.given ? await spec.given({ deps, world }) : undefined) as G;
  const scene = { deps, world, given };
  const then = typeof spec.then === 'function' ? await spec.then(scene) : spec.then;
  const signalsBefore = { ...deps.signalled };
  const lastLog = await lastId(deps, 'logs');
  const lastEvent = await lastId(deps, 'events');
  const tablesBefore = then.error ? await snapshot(deps) : undefined;

  let result: unknown;
  let refusal: AppError | undefined;
  try {
    result = await spec.when(scene);
  } catch (error) {
    if (!(error instanceof AppError) || !then.error) throw error;
    refusal = error;
  }

  if (then.error) {
    assert.ok(refusal, `expected a refusal with ${then.error.code}, but the operation succeeded`);
    assert.is(refusal.code, then.error.code, `the refusal's code (${refusal.message})`);
    if (then.error.status !== undefined) assert.is(refusal.status, then.error.status, 'the refusal status');
    if (then.error.details) assertPartial(refusal.details, then.error.details, 'details');
    const allowed = new Set(['logs', ...(then.rows ?? []).map((r) => r.table), ...(then.mayChange ?? [])]);
    const after = await snapshot(deps);
    for (const [table, rows] of tablesBefore!) {
      if (!allowed.has(table)) assert.equal(after.get(table), rows, `a refusal changed the table ${table}`);
    }
  } else if (then.result) {
    await then.result(result);
  }

  for (const expected of then.rows ?? []) {
    const actual = await readRows(deps, expected);
    assert.equal(actual, expected.equal, `rows of ${expected.table} where ${JSON.stringify(expected.where ?? {})}`);
  }

  if (then.signals || then.error) {
    const sent = Object.fromEntries(
      (Object.keys(deps.signalled) as (keyof Signals)[])
        .map((key) => [key, deps.signalled[key] - signalsBefore[key]] as const)
        .filter(([, n]) => n !== 0),
    );
    const wanted = Object.fromEntries(Object.entries(then.signals ?? {}).filter(([, n]) => n !== 0));
    assert.equal(sent, wanted, 'signals sent');
  }

  if (then.securityLog) {
    const entries = await deps.db.kysely.selectFrom('logs').selectAll().where('id', '>', lastLog).orderBy('id').execute();
    assert.equal(
      entries.map((e) => e.event),
      then.securityLog.map((e) => e.event),
      'security-log entries',
    );
    then.securityLog.forEach((wanted, i) =>
      assertPartial({ ...entries[i], data: JSON.parse(entries[i].data) as unknown }, wanted, `security log ${wanted.event}`),
    );
  }

  if (then.outbox) {
    const events = await deps.db.kysely.selectFrom('events').selectAll().where('id', '>', lastEvent).orderBy('id').execute();
    assert.equal(
      events.map((e) => e.type),
      then.outbox.map((e) => e.type),
      'outbox events',
    );
    then.outbox.forEach((wanted, i) =>
      assertPartial({ ...events[i], data: (JSON.parse(events[i].payload) as { data: unknown }).data }, wanted, `outbox ${wanted.type}`),
    );
  }
}

/** The rows of a table as `then.rows` compares them (for free-form tests and givens). */
export async function readRows(deps: ServiceDeps, query: RowsExpectation): Promise<Row[]> {
  const columns = [...new Set(query.equal.flatMap((row) => Object.keys(row)))];
  let q = deps.db.kysely
    .selectFrom(sql.table(query.table).as('t'))
    .select(columns.length > 0 ? columns.map((c) => sql.ref(c).as(c)) : [sql.lit(1).as('one')]);
  for (const [column, value] of Object.entries(query.where ?? {}))
    q = value === null ? q.where(sql.ref(column), 'is', null) : q.where(sql.ref(column), '=', value);
  const rows = (await q.orderBy(sql.ref(query.orderBy ?? 'id')).execute()) as Row[];
  // each row in the columns its expected row names (rows beyond them in all the named columns); JSON text read as
  // what it holds where the expected row holds an object or an array
  return rows.map((row, i) => {
    const expected = query.equal[i] ?? {};
    const named = i < query.equal.length ? Object.keys(expected) : columns;
    return Object.fromEntries(
      named.map((c) => [c, typeof row[c] === 'string' && isStructured(expected[c]) ? (JSON.parse(row[c]) as unknown) : row[c]]),
    );
  });
}

const isStructured = (value: unknown) => typeof value === 'object' && value !== null;

/**
 * `actual` matches `expected` partially: an object holds every key of the expected one with a matching value, an
 * array has as many elements, each matching; a RegExp matches a string; anything else is equal.
 */
function assertPartial(actual: unknown, expected: unknown, where: string): void {
  if (expected instanceof RegExp) {
    assert.type(actual, 'string', `${where}: not a string`);
    assert.match(actual as string, expected, where);
  } else if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${where}: not an array (${JSON.stringify(actual)})`);
    assert.is((actual as unknown[]).length, expected.length, `${where}: the number of elements (${JSON.stringify(actual)})`);
    expected.forEach((value, i) => assertPartial((actual as unknown[])[i], value, `${where}[${i}]`));
  } else if (isStructured(expected)) {
    assert.ok(isStructured(actual), `${where}: not an object (${JSON.stringify(actual)})`);
    for (const [key, value] of Object.entries(expected as Row)) assertPartial((actual as Row)[key], value, `${where}.${key}`);
  } else {
    assert.equal(actual, expected, where);
  }
}

async function lastId(deps: ServiceDeps, table: 'logs' | 'events'): Promise<number> {
  const row = await deps.db.kysely.selectFrom(table).select('id').orderBy('id', 'desc').limit(1).executeTakeFirst();
  return row?.id ?? 0;
}

/** Every table's rows (in a stable order), to prove a refusal changed nothing. */
async function snapshot(deps: ServiceDeps): Promise<Map<string, string[]>> {
  const tables =
    deps.db.dialect === 'sqlite'
      ? deps.db.sqlite.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'").pluck().all()
      : (
          await deps.db.pool.query<{ name: string }>(
            "select table_name as name from information_schema.tables where table_schema = 'public'",
          )
        ).rows.map((r) => r.name);
  const result = new Map<string, string[]>();
  await Promise.all(
    (tables as string[]).map(async (table) => {
      const rows = await deps.db.kysely.selectFrom(sql.table(table).as('t')).selectAll().execute();
      result.set(table, rows.map((row) => JSON.stringify(row)).sort());
    }),
  );
  return result;
}
