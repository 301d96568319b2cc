import readline from 'node:readline';
import { testPostgres } from './postgres';

/**
 * Run by scripts/run-tests.ts before the test files that need PostgreSQL. It starts the test server once (building
 * the shared cluster cache), so that a PostgreSQL that cannot start is one failure with its reason and fix rather
 * than the same failure in every such file: exit 1 with the reason on stderr.
 *
 * Once started it stays, as the run's shared server: it prints the server's admin URL on stdout, and the files that
 * run on PostgreSQL (WIP_TEST_BACKEND=postgres) create their databases on it (WIP_TEST_POSTGRES_URL) instead of
 * starting a server each (about 2.5 s of a file's time). Each line `drop <pid>` on stdin drops the databases of that
 * finished test process; stdin's end stops the server.
 */
testPostgres().then(
  (server) => {
    process.stdout.write(`${server.adminUrl}\n`);
    const lines = readline.createInterface({ input: process.stdin });
    let pending = Promise.resolve();
    lines.on('line', (line) => {
      const pid = /^drop (\d+)$/.exec(line)?.[1];
      if (pid) pending = pending.then(() => server.dropDatabasesOf(Number(pid))).then(() => void process.stdout.write(`dropped ${pid}\n`));
    });
    lines.on('close', () => void pending.finally(() => process.exit(0)));
  },
  (error: Error) => {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  },
);
