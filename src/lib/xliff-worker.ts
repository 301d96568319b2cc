// Runs in a worker thread (XliffPool's WorkerPool): reading and writing XLIFF is CPU-bound and synchronous
// (@xmldom/xmldom), and an 8 MiB file takes seconds, during which the event loop would answer nobody.
import { answerJobs } from './worker-jobs';
import { readXliff, writeXliff, XliffError, type XliffDocument } from './xliff';

export type XliffJob = { op: 'read'; text: string } | { op: 'write'; document: XliffDocument };
/** A file that is not XLIFF 2.0 is an answer, not a failure: the pool's errors are the thread's own. */
export type XliffAnswer = { document: XliffDocument } | { invalid: string } | { xml: string };

answerJobs<XliffJob>((job): XliffAnswer => {
  if (job.op === 'write') return { xml: writeXliff(job.document) };
  try {
    return { document: readXliff(job.text) };
  } catch (error) {
    if (error instanceof XliffError) return { invalid: error.message };
    throw error;
  }
});
