import { parentPort } from 'node:worker_threads';

/** What a WorkerPool sends a thread, and what the thread answers (worker-pool.ts). */
export type JobMessage<Job> = { id: number; job: Job };
export type AnswerMessage = { id: number; result: unknown } | { id: number; error: string };
/** What a thread sends once, when its script has loaded: a job's time limit counts from there. */
export type ReadyMessage = { ready: true };

/**
 * Inside a worker script: answers each job with what `handle` returns, or with
 * the message of what it throws. `handle` runs synchronously: a thread does one
 * job at a time, and its jobs queue in its port.
 */
export function answerJobs<Job>(handle: (job: Job) => unknown): void {
  parentPort?.on('message', ({ id, job }: JobMessage<Job>) => {
    let answer: AnswerMessage;
    try {
      answer = { id, result: handle(job) };
    } catch (error) {
      answer = { id, error: error instanceof Error ? error.message : String(error) };
    }
    parentPort!.postMessage(answer);
  });
  parentPort?.postMessage({ ready: true } satisfies ReadyMessage);
}
