import fs from 'node:fs';
import path from 'node:path';

/**
 * Preloaded into every test file's process by scripts/run-tests.ts (`--require`). At exit it reports:
 * - the CPU time the process used, on a line of its own on stderr, which the runner takes out of the output and
 *   prints beside the wall time (a file whose wall time is far above its CPU time waits for something);
 * - with WIP_TEST_SQL_LOG=<dir>, the distinct SQL statements the process sent to SQLite (better-sqlite3's prepare)
 *   or PostgreSQL (pg's query), normalised (sqlStatementShape), in <dir>/<pid>.json with the test file's path:
 *   `node dist/scripts/postgres-cover.js <dir>` reads them (docs/testing.md, "What PostgreSQL proves").
 */
process.once('exit', () => {
  const { user, system } = process.cpuUsage();
  process.stderr.write(`\n${CPU_MARK}${Math.round((user + system) / 1000)}\n`);
});

const CPU_MARK = '#wip-test-cpu-ms ';

/** A statement's shape: parameters and literal lists folded, so the same query with other values is one statement. */
function sqlStatementShape(sql: string): string {
  return sql
    .replace(/\s+/g, ' ')
    .replace(/\$\d+/g, '?')
    .replace(/'(?:[^']|'')*'/g, "'…'")
    .replace(/\b\d+\b/g, 'N')
    .replace(/\((?:\s*\?\s*,)+\s*\?\s*\)/g, '(?…)')
    .replace(/(?:\(\?…\)|\(\?\))(?:\s*,\s*(?:\(\?…\)|\(\?\)))+/g, '(?…)…')
    .trim();
}

const logDir = process.env.WIP_TEST_SQL_LOG;
if (logDir) {
  const statements = new Set<string>();
  const record = (sql: unknown) => {
    if (typeof sql === 'string') statements.add(sqlStatementShape(sql));
    else if (sql && typeof (sql as { text?: unknown }).text === 'string') statements.add(sqlStatementShape((sql as { text: string }).text));
  };
  type Method = (this: unknown, ...args: unknown[]) => unknown;
  // loaded only when asked: the drivers' prototypes, patched in this test process alone
  const sqlite = require('better-sqlite3') as { prototype: { prepare: Method } };
  const pg = require('pg') as { Client: { prototype: { query: Method } } };
  const prepare = sqlite.prototype.prepare;
  sqlite.prototype.prepare = function (this: unknown, ...args: unknown[]) {
    record(args[0]);
    return prepare.apply(this, args);
  };
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    record(args[0]);
    return query.apply(this, args);
  };
  process.once('exit', () => {
    fs.mkdirSync(logDir, { recursive: true });
    const file = path.relative(path.resolve(__dirname, '..', 'test'), process.argv[1] ?? '');
    const backend = process.env.WIP_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';
    const seconds = process.uptime();
    fs.writeFileSync(
      path.join(logDir, `${process.pid}.json`),
      JSON.stringify({ file, backend, seconds, statements: [...statements].sort() }),
    );
  });
}
