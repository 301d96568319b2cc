/**
 * The benchmark's load generator: autocannon (or the `record` scenario's
 * operators) in a process of its own, one per load run (started by `load` and
 * `recordLoad` in harness.ts on the pinned Node.js), so the figures measure
 * the server and not the benchmarking process. In the
 * benchmarking process itself autocannon paused for that process's old-space
 * collections once a few runs had grown its heap, and slowed down over long runs
 * (the `binary` scenario's 1M requests: 1,479 → 393 req/s across two minutes,
 * where a process of its own held 4,600–5,080 req/s against the same server).
 *
 * Over its stdin and stdout, one JSON line each way:
 *  1. it warms its own code up (see WARM_UP_SECONDS) and prints `ready`;
 *  2. it reads its job as one JSON line (LoadJob: autocannon's options, or the `record` scenario's operators; the
 *     caller reads the server's CPU time in between, so the measured window holds the run and nothing of this
 *     process's start);
 *  3. it runs it and prints the result (autocannon's, or RecordFigures) as one JSON line.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import readline from 'node:readline';
import autocannon from 'autocannon';
import { recordSteps, type RecordingOperator } from './record-load';

/** What to run: autocannon with these options, or the `record` scenario's operators (bench/record-load.ts). */
export type LoadJob = { autocannon: autocannon.Options } | { record: { operators: RecordingOperator[]; seconds: number } };

/**
 * A fresh autocannon runs unoptimized code for its first seconds, which read as the server's p99 (18–27 ms in those
 * seconds against 10–12 ms after: scripts/bench/HISTORY.md, wave 11). So before each run it loads a server of its
 * own on loopback for this long, when nothing is measured yet.
 */
const WARM_UP_SECONDS = 1;

async function warmUp(): Promise<void> {
  const body = JSON.stringify({ success: true, data: { warmingUp: true } });
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    await autocannon({ url: `http://127.0.0.1:${port}/`, connections: 8, duration: WARM_UP_SECONDS });
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

async function main(): Promise<void> {
  const lines = readline.createInterface({ input: process.stdin });
  const options = once(lines, 'line');
  await warmUp();
  process.stdout.write('ready\n');
  const [line] = (await options) as [string];
  lines.close();
  const job = JSON.parse(line) as LoadJob;
  const result = 'autocannon' in job ? await autocannon(job.autocannon) : await recordSteps(job.record.operators, job.record.seconds);
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
