import type { XliffAnswer, XliffJob } from './xliff-worker';
import { WorkerPool } from './worker-pool';
import { XliffError, type XliffDocument } from './xliff';

/**
 * readXliff and writeXliff (xliff.ts) in a worker thread, with the same
 * answers: the document, the file, or an XliffError with the same message.
 * One thread: imports are rare, and a second one waits for the first rather
 * than take the core the event loop runs on. It starts with the first file.
 */
export class XliffPool {
  private readonly pool = new WorkerPool<XliffJob>('xliff-worker.js', { size: 1 });

  /** @throws XliffError */
  async read(text: string): Promise<XliffDocument> {
    const answer = (await this.pool.run({ op: 'read', text })) as XliffAnswer;
    if ('invalid' in answer) throw new XliffError(answer.invalid);
    if (!('document' in answer)) throw new Error('the XLIFF worker answered a read without a document');
    return answer.document;
  }

  async write(document: XliffDocument): Promise<string> {
    const answer = (await this.pool.run({ op: 'write', document })) as XliffAnswer;
    if (!('xml' in answer)) throw new Error('the XLIFF worker answered a write without a file');
    return answer.xml;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
