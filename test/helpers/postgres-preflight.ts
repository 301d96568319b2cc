import { testPostgres } from './postgres';

/**
 * Run by scripts/run-tests.ts before the test files that need PostgreSQL:
 * starts the test server once (building the shared cluster cache), so that a
 * PostgreSQL that cannot start is one failure with its reason and fix rather
 * than the same failure in every such file. Exit 0, or 1 with the reason on stderr.
 */
testPostgres().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  },
);
