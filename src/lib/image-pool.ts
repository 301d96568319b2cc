import type { ImageJob } from './image-worker';
import type { ImageVerdict, Printable } from './images';
import { WorkerPool } from './worker-pool';

/**
 * inspectImage and printableImage (images.ts) in a worker thread. One thread:
 * uploads and PDFs with images queue behind each other rather than take the
 * core the event loop runs on, and one decode at a time bounds the memory.
 * A thread that dies (out of memory on a file past every check) fails only
 * its job, which answers as an image that cannot be shown.
 */
export class ImagePool {
  private readonly pool = new WorkerPool<ImageJob>('image-worker.js', { size: 1, resourceLimits: { maxOldGenerationSizeMb: 256 } });

  /**
   * The verdict on uploaded bytes of a judged image type. A file that makes
   * the thread run out of memory is refused like any other that fails; any
   * other failure of the thread is the appliance's, not the file's (thrown).
   */
  async inspect(bytes: Buffer, contentType: string): Promise<ImageVerdict> {
    try {
      return (await this.pool.run({ op: 'inspect', bytes, contentType } satisfies ImageJob)) as ImageVerdict;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY')
        return { ok: false, bomb: true, problem: 'needs more memory to decode than an image may take' };
      throw error;
    }
  }

  /** Bytes pdfkit may embed, or why the image cannot be shown: whatever fails, the report goes on without it. */
  async printable(bytes: Buffer, contentType: string): Promise<Printable> {
    let answer: Printable;
    try {
      answer = (await this.pool.run({ op: 'printable', bytes, contentType } satisfies ImageJob)) as Printable;
    } catch (error) {
      return { ok: false, problem: `could not be decoded (${error instanceof Error ? error.message : String(error)})` };
    }
    if (!answer.ok) return answer;
    // back from the thread as a Uint8Array: pdfkit wants a Buffer
    return { ...answer, bytes: Buffer.from(answer.bytes.buffer, answer.bytes.byteOffset, answer.bytes.byteLength) };
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
