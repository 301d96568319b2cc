/**
 * Preloaded into every test file's process by scripts/run-tests.ts (`--require`): at exit, the CPU time the process
 * used, on a line of its own on stderr, which the runner takes out of the output and prints beside the wall time.
 * A file whose wall time is far above its CPU time waits for something (a timer, a connection, a child): the
 * runner's "slowest files" list shows both.
 */
process.once('exit', () => {
  const { user, system } = process.cpuUsage();
  process.stderr.write(`\n${CPU_MARK}${Math.round((user + system) / 1000)}\n`);
});

const CPU_MARK = '#wip-test-cpu-ms ';
