import { performance } from 'node:perf_hooks';

/**
 * Runs calls to `handle` straight away while the event loop's current slice of
 * work is shorter than `budgetMs`; past it, later calls wait first come, first
 * served, and are run in the following turns (setImmediate), again at most
 * `budgetMs` of work a turn, so the loop comes back to its I/O at least every
 * `budgetMs` or so (plus the one call that crosses the budget).
 *
 * Why: libuv accepts one new connection per loop iteration (since 1.45) and
 * every request read in an iteration used to be handled in it. Under load one
 * iteration held all the requests that had arrived during the previous one
 * (32 connections × ~0.5 ms = ~15 ms), so a connection opened then was
 * accepted only after as many such iterations as were ahead of it (measured:
 * the first answer of the 32nd connection after 460 ms against 13 ms p50), and
 * a request that arrived just after the loop polled waited a whole iteration
 * before even being read, while others went first again and again (the same
 * few connections held most of the slow answers). With slices, new
 * connections are accepted and requests read every few milliseconds, and
 * requests run in about the order they arrived. An idle server runs a request
 * at once, as before; nothing is dropped or reordered within a connection.
 */
export function inTurnSlices<A extends unknown[]>(handle: (...args: A) => void, budgetMs: number): (...args: A) => void {
  const waiting: A[] = [];
  /** when the current slice of work began; undefined once the loop has come round */
  let sliceStart: number | undefined;

  const startSlice = (): void => {
    sliceStart = performance.now();
    // the slice ends when the loop reaches its next check phase
    setImmediate(endSlice);
  };
  const endSlice = (): void => {
    sliceStart = undefined;
  };
  const overBudget = (): boolean => sliceStart !== undefined && performance.now() - sliceStart >= budgetMs;

  // One immediate per waiting call, each running the oldest waiting call when
  // the slice has room: Node runs microtasks between immediates, so a
  // handler's synchronous work (and the promise chain it starts) is counted
  // before the next one is considered. An immediate queued while immediates
  // run waits for the next turn: the loop polls in between.
  const runNext = (): void => {
    if (sliceStart === undefined) startSlice();
    else if (overBudget()) {
      setImmediate(runNext);
      return;
    }
    handle(...waiting.shift()!);
  };

  return (...args: A): void => {
    if (waiting.length > 0 || overBudget()) {
      waiting.push(args);
      setImmediate(runNext);
      return;
    }
    if (sliceStart === undefined) startSlice();
    handle(...args);
  };
}
