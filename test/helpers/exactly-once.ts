import { randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import { request } from './server';

// A device as the floor app's queue behaves: each recording has its
// Idempotency-Key and body made once; what got no answer is resent with both
// unchanged, in order. Used by the crash tests (test/cli/exactly-once-crash,
// test/db/postgres-exactly-once).

const RECORD_STEP = 'mutation($i: RecordStepInput!) { recordStep(input: $i) { revision record { stepId } } }';

export interface Recording {
  key: string;
  /** the job's revision the recording expects (the device's count); it makes the job's revision expectedRevision + 1 */
  expectedRevision: number;
  body: { query: string; variables: Record<string, unknown> };
  /** how long after the send (re)started its answer came */
  answeredAfterMs?: number;
}

/** Recording n of a job: step `measure` with a note naming the revision, so a record applied twice is a revision too many. */
export function recording(jobId: number, expectedRevision: number, key: string = randomUUID()): Recording {
  const values = [
    { key: 'torque', value: 15 },
    { key: 'note', value: `#${expectedRevision}` },
  ];
  return {
    key,
    expectedRevision,
    body: { query: RECORD_STEP, variables: { i: { jobId: `Job:${jobId}`, stepId: 'measure', status: 'DONE', values, expectedRevision } } },
  };
}

/**
 * Sends `recordings` in order and checks each answer: the revision after exactly this write — never a
 * CONFLICT for its own write. Without `untilAnswered`: stops at the first send that gets no answer (the
 * server died). With it: retries that send (network errors, 409 IDEMPOTENCY_IN_PROGRESS, 503) until
 * answered, for at most `giveUpMs`.
 * @returns how many got their answer
 */
export async function sendRecordings(
  baseUrl: string,
  token: string,
  recordings: Recording[],
  options: { untilAnswered?: boolean; giveUpMs?: number } = {},
): Promise<number> {
  let answered = 0;
  const started = Date.now();
  for (const item of recordings) {
    for (;;) {
      const res = await request(baseUrl, 'POST', '/api/client/graphql', {
        token,
        body: item.body,
        headers: { 'idempotency-key': item.key },
      }).catch(() => undefined);
      const busy = !res || res.status === 503 || (res.status === 409 && res.body?.error?.code === 'IDEMPOTENCY_IN_PROGRESS');
      if (busy) {
        if (!options.untilAnswered) return answered;
        if (Date.now() - started > (options.giveUpMs ?? 30_000))
          assert.unreachable(`no answer to ${item.key} for ${options.giveUpMs ?? 30_000} ms`);
        await new Promise((resolve) => setTimeout(resolve, res ? 250 : 100));
        continue;
      }
      assert.is(res.status, 200, res.text);
      assert.equal(res.body, { data: { recordStep: { revision: item.expectedRevision + 1, record: { stepId: 'measure' } } } }, res.text);
      item.answeredAfterMs = Date.now() - started;
      answered++;
      break;
    }
  }
  return answered;
}

/** The job holds every recording once: its revision counts the writes applied to it, and the last one is the last sent. */
export async function assertRecordedOnce(baseUrl: string, token: string, jobId: number, recordings: Recording[]): Promise<void> {
  const res = await request(baseUrl, 'POST', '/api/client/graphql', {
    token,
    body: {
      query: 'query($id: ID!) { job(id: $id) { revision records { stepId values { key value } } } }',
      variables: { id: `Job:${jobId}` },
    },
  });
  const job = res.body.data.job;
  const last = recordings[recordings.length - 1];
  assert.is(job.revision, last.expectedRevision + 1, `${recordings.length} recordings applied once each: ${res.text}`);
  const note = job.records.find((r: { stepId: string }) => r.stepId === 'measure').values.find((v: { key: string }) => v.key === 'note');
  assert.is(note.value, `#${last.expectedRevision}`);
}
