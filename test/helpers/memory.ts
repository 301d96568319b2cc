import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * The heap still in use after a full collection: what is retained, not the
 * garbage a busy loop has yet to collect (which swings by 100 MB and more
 * with the machine's load). Test servers run in the test's process, so this
 * is the server's heap too.
 */
export function retainedHeap(): number {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
  return process.memoryUsage().heapUsed;
}

/**
 * The retained heap once in-flight work has drained: the smallest of three
 * measurements 100 ms apart. On a loaded machine the last requests' sockets,
 * log buffers and pending callbacks still hold a few MB for a moment; a leak
 * stays in every measurement.
 */
export async function settledRetainedHeap(): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setTimeout(r, 100));
    samples.push(retainedHeap());
  }
  return Math.min(...samples);
}
