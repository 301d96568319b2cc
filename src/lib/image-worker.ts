// Runs in a worker thread (ImagePool's WorkerPool): decoding an image is CPU-bound and synchronous (pngjs), a
// 40-megapixel PNG takes seconds, and a hostile file must cost a thread, never the event loop or the process.
import { answerJobs } from './worker-jobs';
import { inspectImage, printableImage, type ImageVerdict, type Printable } from './images';

export type ImageJob = { op: 'inspect' | 'printable'; bytes: Uint8Array; contentType: string };
export type ImageAnswer = ImageVerdict | Printable;

answerJobs<ImageJob>((job): ImageAnswer => {
  // a Buffer arrives as a Uint8Array (structured clone); a view of the same memory, not a copy
  const bytes = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
  return job.op === 'inspect' ? inspectImage(bytes, job.contentType) : printableImage(bytes, job.contentType);
});
