// Runs in a worker thread: bcrypt is CPU-bound, and bcryptjs's "async" API still
// hashes on the calling thread, so the daemon hashes here to keep the event loop free.
import { parentPort } from 'node:worker_threads';
import bcrypt from 'bcryptjs';

export type PasswordJob =
  { id: number; op: 'hash'; password: string; cost: number } | { id: number; op: 'verify'; password: string; hash: string };

parentPort?.on('message', (job: PasswordJob) => {
  try {
    const result = job.op === 'hash' ? bcrypt.hashSync(job.password, job.cost) : bcrypt.compareSync(job.password, job.hash);
    parentPort!.postMessage({ id: job.id, result });
  } catch (error) {
    parentPort!.postMessage({ id: job.id, error: (error as Error).message });
  }
});
