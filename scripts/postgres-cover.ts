import fs from 'node:fs';
import path from 'node:path';

/**
 * What the PostgreSQL re-run proves, statement by statement: reads the statement logs of a run made with
 * WIP_TEST_SQL_LOG=<dir> (scripts/test-process-report.ts) and answers how many of the suites that run on both
 * backends (test/http, test/graphql, test/services) it takes to send every distinct statement they send, and what
 * that costs in file time against the whole re-run.
 *
 *   WIP_TEST_SQL_LOG=/tmp/sql node dist/scripts/run-tests.js http graphql services
 *   node dist/scripts/postgres-cover.js /tmp/sql
 *
 * The selection is greedy: the service suites first (the rules live there), then, while a statement is left, the
 * file that sends the most statements not yet sent per second of its time. Read on SQLite: the same code sends the
 * same statements on PostgreSQL, in the other dialect.
 */
interface Log {
  file: string;
  backend: 'sqlite' | 'postgres';
  seconds: number;
  statements: string[];
}

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: node dist/scripts/postgres-cover.js <dir of a WIP_TEST_SQL_LOG run>\n');
  process.exit(2);
}
const logs = fs
  .readdirSync(dir)
  .filter((name) => name.endsWith('.json'))
  .map((name) => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as Log)
  .filter((log) => log.backend === 'sqlite' && /^(http|graphql|services)\//.test(log.file));
const universe = new Set(logs.flatMap((log) => log.statements));
const covered = new Set<string>();
const chosen: Log[] = [];
const take = (log: Log) => {
  chosen.push(log);
  for (const statement of log.statements) covered.add(statement);
};
for (const log of logs.filter((l) => l.file.startsWith('services/'))) take(log);
let rest = logs.filter((log) => !chosen.includes(log));
for (;;) {
  const gain = (log: Log) => log.statements.filter((s) => !covered.has(s)).length;
  const best = rest.filter((log) => gain(log) > 0).sort((a, b) => gain(b) / b.seconds - gain(a) / a.seconds)[0];
  if (!best) break;
  take(best);
  rest = rest.filter((log) => log !== best);
}
const seconds = (list: Log[]) => list.reduce((sum, log) => sum + log.seconds, 0);
process.stdout.write(
  [
    `${universe.size} distinct statements from ${logs.length} files (${seconds(logs).toFixed(0)} s of file time on SQLite)`,
    `${chosen.length} files send them all (${seconds(chosen).toFixed(0)} s): ${chosen.filter((l) => l.file.startsWith('services/')).length} service suites, then`,
    ...chosen.filter((l) => !l.file.startsWith('services/')).map((l) => `  ${l.file} (${l.seconds.toFixed(1)} s)`),
    `${rest.length} files send no statement the others do not (${seconds(rest).toFixed(0)} s)`,
    '',
  ].join('\n'),
);
