/**
 * The `record` load (scripts/bench/product.ts, postgres.ts): run by the load
 * generator process (bench/load-generator.ts), not by the benchmarking one.
 */

const RECORD = `mutation ($i: RecordStepInput!) { recordStep(input: $i) { revision job { id } } }`;

export interface RecordingOperator {
  url: string;
  token: string;
  jobId: number;
}

export interface RecordFigures {
  operators: number;
  writesPerSec: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  errors: number;
}

/**
 * Each operator records the steps (s1…s10, a NUMBER field v) of their own
 * open job on their node (`url`), re-recording in a loop as fast as answers
 * come, for `seconds`.
 */
export async function recordSteps(operators: RecordingOperator[], seconds: number): Promise<RecordFigures> {
  const latencies: number[] = [];
  let errors = 0;
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    operators.map(async (op, o) => {
      for (let n = 0; Date.now() < until; n++) {
        const started = performance.now();
        const res = await fetch(`${op.url}/api/client/graphql`, {
          method: 'POST',
          headers: { authorization: `Bearer ${op.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            query: RECORD,
            variables: {
              i: { jobId: `Job:${op.jobId}`, stepId: `s${(n % 10) + 1}`, status: 'DONE', values: [{ key: 'v', value: (n + o) % 100 }] },
            },
          }),
        });
        const answer = (await res.json()) as { errors?: unknown };
        latencies.push(performance.now() - started);
        if (!res.ok || answer.errors) errors++;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Number(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(1));
  return {
    operators: operators.length,
    writesPerSec: Math.round(latencies.length / seconds),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    requests: latencies.length,
    errors,
  };
}
