// Runs in a worker thread (the password hasher's WorkerPool): bcrypt is CPU-bound, and bcryptjs's "async" API
// still hashes on the calling thread, so the daemon hashes here to keep the event loop free.
import bcrypt from 'bcryptjs';
import { answerJobs } from './worker-jobs';

export type PasswordJob = { op: 'hash'; password: string; cost: number } | { op: 'verify'; password: string; hash: string };

answerJobs<PasswordJob>((job) =>
  job.op === 'hash' ? bcrypt.hashSync(job.password, job.cost) : bcrypt.compareSync(job.password, job.hash),
);
