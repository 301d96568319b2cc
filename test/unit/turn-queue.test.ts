import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TurnQueue } from '#lib/turn-queue';

const test = suite('TurnQueue: first come first served, one start per event-loop turn, bounded');

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('jobs run in arrival order, each in a later event-loop turn than the one before', async () => {
  const queue = new TurnQueue(4, 100);
  const order: number[] = [];
  const turns: number[] = [];
  let turnCount = 0;
  const counter = setInterval(() => {}, 1); // keeps the loop alive while counting
  const tick = () => {
    turnCount++;
    if (turnCount < 50) setImmediate(tick);
  };
  setImmediate(tick);
  const done = Array.from({ length: 5 }, (_, i) =>
    queue.run(async () => {
      order.push(i);
      turns.push(turnCount);
      return i * 10;
    }),
  );
  assert.is(queue.queued, 5, 'nothing runs in the turn the jobs arrive in');
  assert.equal(await Promise.all(done), [0, 10, 20, 30, 40]);
  clearInterval(counter);
  assert.equal(order, [0, 1, 2, 3, 4]);
  for (let i = 1; i < turns.length; i++)
    assert.ok(turns[i] > turns[i - 1], `job ${i} started in turn ${turns[i]}, job ${i - 1} in ${turns[i - 1]}`);
});

test('at most `concurrency` jobs run at once; a finished job lets the next start', async () => {
  const queue = new TurnQueue(2, 100);
  let running = 0;
  let most = 0;
  const release: (() => void)[] = [];
  const jobs = Array.from({ length: 5 }, () =>
    queue.run(async () => {
      running++;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => release.push(resolve));
      running--;
    }),
  );
  for (let i = 0; i < 5; i++) await turn();
  assert.is(running, 2);
  assert.is(queue.queued, 3);
  while (release.length > 0 || queue.queued > 0) {
    release.shift()?.();
    await turn();
    await turn();
  }
  await Promise.all(jobs);
  assert.is(most, 2);
});

test('a full queue refuses the job without running it; a failing job rejects and frees its place', async () => {
  const queue = new TurnQueue(1, 2);
  let ran = 0;
  const a = queue.run(async () => ran++);
  const b = queue.run(async () => {
    throw new Error('boom');
  });
  const refused = queue.run(async () => ran++);
  assert.is(refused, undefined);
  await a;
  try {
    await b;
    assert.unreachable('should have rejected');
  } catch (error) {
    assert.is((error as Error).message, 'boom');
  }
  assert.is(await queue.run(async () => 'after'), 'after');
  assert.is(ran, 1);
});

test.run();
