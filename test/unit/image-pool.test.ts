import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AppError } from '#errors';
import { ImagePool } from '#lib/image-pool';
import type { ImageJob } from '#lib/image-worker';
import { WorkerPool } from '#lib/worker-pool';
import { pngWith } from '../helpers/hostile-images';

// Bounded work: image checks and PDF re-encodes run in one worker thread (src/lib/image-pool.ts) with a
// per-job time limit and a bounded queue. The image worker runs for real; a large black PNG is the slow job.

const test = suite('ImagePool and WorkerPool: a job past its time limit, a full queue');

/** A real 4,000 × 4,000 RGB PNG (48 MB of rows, deflated to ~50 KB): pngjs takes about a second to decode it. */
const SLOW = pngWith({ width: 4000, height: 4000, colorType: 2, pixels: Buffer.alloc(4000 * (4000 * 3 + 1)) });
const SMALL = pngWith({ width: 1, height: 1, colorType: 2, pixels: Buffer.from([0, 1, 2, 3]) });
const job = (bytes: Buffer): ImageJob => ({ op: 'inspect', bytes, contentType: 'image/png' });

test('a job past timeoutMs fails alone with ERR_WORKER_TIMEOUT; its thread is replaced; the job behind it gets its own time', async () => {
  const unlimited = new WorkerPool<ImageJob>('image-worker.js', { size: 1 });
  const started = performance.now();
  try {
    assert.equal(await unlimited.run(job(SLOW)), { ok: true, width: 4000, height: 4000 });
  } finally {
    await unlimited.close();
  }
  const slowMs = performance.now() - started;
  const limitMs = 200;
  assert.ok(slowMs > 3 * limitMs, `the slow job takes ${Math.round(slowMs)} ms without a limit`);

  const pool = new WorkerPool<ImageJob>('image-worker.js', { size: 1, timeoutMs: limitMs });
  try {
    const at = performance.now();
    const slow = pool.run(job(SLOW));
    const behind = pool.run(job(SMALL));
    const failure = await slow.then(
      () => undefined,
      (error: unknown) => error as Error & { code?: string },
    );
    const failedAfter = performance.now() - at;
    assert.is(failure?.code, 'ERR_WORKER_TIMEOUT', String(failure));
    assert.ok(failedAfter < slowMs, `failed after ${Math.round(failedAfter)} ms, not after the whole ${Math.round(slowMs)} ms`);
    assert.equal(await behind, { ok: true, width: 1, height: 1 }, 'the job waiting behind it ran on a new thread');
    assert.is(pool.jobs, 0);
  } finally {
    await pool.close();
  }
});

test('ImagePool: past imageJobTimeout an upload is too costly to check and a PDF image too costly to prepare', async () => {
  const images = new ImagePool({ timeoutMs: 200, queueMax: 4 });
  try {
    const verdict = await images.inspect(async () => SLOW, 'image/png');
    assert.equal(verdict, { ok: false, problem: 'is too costly to check (it took longer than the 0.2 s an image may take)' });
    const printable = await images.printable(async () => SLOW, 'image/png');
    assert.equal(printable, { ok: false, problem: 'is too costly to prepare (it took longer than the 0.2 s an image may take)' });
    assert.equal(await images.inspect(async () => SMALL, 'image/png'), { ok: true, width: 1, height: 1 });
  } finally {
    await images.close();
  }
});

test('ImagePool: past imageQueueMax an upload is refused 503 with Retry-After before its bytes are read; a PDF prints a placeholder', async () => {
  const images = new ImagePool({ timeoutMs: 10_000, queueMax: 1 });
  try {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // one image with the thread, one waiting: every place is held while their bytes load
    const first = images.inspect(async () => (await held, SMALL), 'image/png');
    const second = images.inspect(async () => SMALL, 'image/png');
    let loaded = false;
    const refused = await images
      .inspect(async () => ((loaded = true), SMALL), 'image/png')
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    assert.instance(refused, AppError);
    assert.is((refused as AppError).code, 'SERVICE_UNAVAILABLE');
    assert.equal((refused as AppError).headers, { 'Retry-After': 5 });
    assert.is(loaded, false, 'the refused upload’s bytes were never read');
    const placeholder = await images.printable(async () => SMALL, 'image/png');
    assert.equal(placeholder, { ok: false, problem: 'was not prepared: too many images were waiting (export again shortly)' });
    release();
    assert.equal(await first, { ok: true, width: 1, height: 1 });
    assert.equal(await second, { ok: true, width: 1, height: 1 });
    assert.equal(await images.inspect(async () => SMALL, 'image/png'), { ok: true, width: 1, height: 1 }, 'places are given back');
  } finally {
    await images.close();
  }
});

test.run();
