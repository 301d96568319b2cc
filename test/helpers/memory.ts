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
