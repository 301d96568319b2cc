import { AppError } from '../errors';
import type { ImageJob } from './image-worker';
import type { ImageVerdict, Printable } from './images';
import { WorkerPool } from './worker-pool';

export interface ImagePoolLimits {
  /** longest one check or re-encode may run (`imageJobTimeout`); past it the thread is ended and replaced */
  timeoutMs: number;
  /** images that may wait behind the one being worked on (`imageQueueMax`); past it uploads get 503 */
  queueMax: number;
}

/**
 * inspectImage and printableImage (images.ts) in a worker thread. One thread:
 * uploads and PDFs with images queue behind each other rather than take the
 * core the event loop runs on, and one decode at a time bounds the memory.
 * A thread that dies (out of memory on a file past every check) fails only
 * its job, which answers as an image that cannot be shown.
 *
 * The work is bounded: a job that runs past `timeoutMs` (a
 * 24-megapixel PNG took 10 s to check on a loaded 2-core machine) ends its
 * thread and answers as an image too costly to check; and an image takes its
 * place in the queue *before* its bytes are read, so at most 1 + `queueMax`
 * images (each up to 64 MiB) are held in memory waiting for the thread.
 */
export class ImagePool {
  private readonly pool: WorkerPool<ImageJob>;
  /** images holding a place: being loaded, waiting, or being worked on */
  private held = 0;

  constructor(private readonly limits: ImagePoolLimits) {
    this.pool = new WorkerPool<ImageJob>('image-worker.js', {
      size: 1,
      timeoutMs: limits.timeoutMs,
      resourceLimits: { maxOldGenerationSizeMb: 256 },
    });
  }

  /**
   * The verdict on uploaded bytes (read by `load` once the image has its
   * place) of a judged image type. A file that makes the thread run out of
   * memory or run past the time limit is refused like any other that fails;
   * any other failure of the thread is the appliance's, not the file's (thrown).
   * @throws AppError SERVICE_UNAVAILABLE (with Retry-After) when the queue is full
   */
  async inspect(load: () => Promise<Buffer>, contentType: string): Promise<ImageVerdict> {
    if (!this.takePlace()) throw queueFull();
    try {
      return (await this.pool.run({ op: 'inspect', bytes: await load(), contentType } satisfies ImageJob)) as ImageVerdict;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ERR_WORKER_OUT_OF_MEMORY')
        return { ok: false, bomb: true, problem: 'needs more memory to decode than an image may take' };
      if (code === 'ERR_WORKER_TIMEOUT') return { ok: false, problem: this.tooCostly('check') };
      throw error;
    } finally {
      this.held--;
    }
  }

  /**
   * Bytes pdfkit may embed, or why the image cannot be shown: whatever fails
   * (a full queue, the time limit, a crash), the report goes on without it —
   * a PDF may already be streaming, and its placeholder says why.
   */
  async printable(load: () => Promise<Buffer>, contentType: string): Promise<Printable> {
    if (!this.takePlace()) return { ok: false, problem: 'was not prepared: too many images were waiting (export again shortly)' };
    let answer: Printable;
    try {
      answer = (await this.pool.run({ op: 'printable', bytes: await load(), contentType } satisfies ImageJob)) as Printable;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_WORKER_TIMEOUT') return { ok: false, problem: this.tooCostly('prepare') };
      return { ok: false, problem: `could not be decoded (${error instanceof Error ? error.message : String(error)})` };
    } finally {
      this.held--;
    }
    if (!answer.ok) return answer;
    // back from the thread as a Uint8Array: pdfkit wants a Buffer
    return { ...answer, bytes: Buffer.from(answer.bytes.buffer, answer.bytes.byteOffset, answer.bytes.byteLength) };
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  /** One place more, unless the thread's one and the queue's `queueMax` are all held. */
  private takePlace(): boolean {
    if (this.held >= 1 + this.limits.queueMax) return false;
    this.held++;
    return true;
  }

  private tooCostly(what: string): string {
    return `is too costly to ${what} (it took longer than the ${this.limits.timeoutMs / 1000} s an image may take)`;
  }
}

/** Every place in the image queue is held: refused before the upload's bytes are read, as the 503 envelope. */
const queueFull = () =>
  new AppError('SERVICE_UNAVAILABLE', 'Too many images are waiting to be checked; retry shortly', undefined, {
    headers: { 'Retry-After': 5 },
  });
