import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { WorkerPool } from '#lib/worker-pool';
import type { XliffAnswer, XliffJob } from '#lib/xliff-worker';

// The pool both the password hasher and the XLIFF reader run in (src/lib/worker-pool.ts), through its XLIFF script.
const test = suite('WorkerPool (worker threads: a crash or a bad job fails only its own job)');

const xliff = (units: string) =>
  `<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="de"><file id="f">${units}</file></xliff>`;
const ONE = xliff('<unit id="a"><segment><source>a</source><target>b</target></segment></unit>');
const read = (text: string): XliffJob => ({ op: 'read', text });
const unitIds = (answer: unknown) =>
  'document' in (answer as XliffAnswer) ? (answer as { document: { units: { id: string }[] } }).document.units.map((u) => u.id) : answer;

test('a thread that runs out of memory fails its own job; the other thread and the next jobs answer', async () => {
  const pool = new WorkerPool<XliffJob>('xliff-worker.js', { size: 2, resourceLimits: { maxOldGenerationSizeMb: 32 } });
  try {
    // some 800,000 DOM nodes: far more than a 32 MB heap holds
    const crashing = pool.run(read(xliff('<unit id="u"><segment><source>a</source></segment></unit>'.repeat(200_000))));
    const beside = pool.run(read(ONE));
    const failure = await crashing.then(
      () => undefined,
      (error: unknown) => error as Error & { code?: string },
    );
    assert.ok(failure, 'the job of the crashed thread failed');
    assert.is(failure.code, 'ERR_WORKER_OUT_OF_MEMORY', String(failure));
    assert.equal(unitIds(await beside), ['a']);
    assert.equal(unitIds(await pool.run(read(ONE))), ['a'], 'a new thread took the crashed one’s place');
  } finally {
    await pool.close();
  }
});

test('a job that cannot be sent fails alone; a file that is not XLIFF is an answer, not a failure', async () => {
  const pool = new WorkerPool<XliffJob>('xliff-worker.js', { size: 1 });
  try {
    const unsendable = pool.run({ op: 'write', document: { units: [() => 1] } } as unknown as XliffJob);
    const refused = await unsendable.then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    assert.is(refused?.name, 'DataCloneError', String(refused));
    const answer = (await pool.run(read('<!DOCTYPE x><xliff/>'))) as XliffAnswer;
    assert.equal(answer, { invalid: 'a DOCTYPE is not allowed' });
    assert.equal(unitIds(await pool.run(read(ONE))), ['a']);
  } finally {
    await pool.close();
  }
});

test.run();
