import type { QueueItem } from './types';

/** What the server's answer made of a queued item: confirmed (applied), refused, or a conflict for the operator. */
export type Settled = 'confirmed' | 'refused' | 'conflict';

/** An engine's listener lists, same tab: no framework, so the shell, any area and Node tests can bind them. */
export interface Signals {
  /** "The queue changed": the sync engine drains, open screens re-read their job. */
  onQueueChanged: (listener: () => void) => () => void;
  notifyQueueChanged: () => void;
  /** The server answered an item: the screens say "Saved" only now (and the refusal, if it was one). */
  onItemSettled: (listener: (item: QueueItem, settled: Settled) => void) => () => void;
  notifyItemSettled: (item: QueueItem, settled: Settled) => void;
}

export function createSignals(): Signals {
  const listeners = new Set<() => void>();
  const settledListeners = new Set<(item: QueueItem, settled: Settled) => void>();
  return {
    onQueueChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    notifyQueueChanged() {
      for (const listener of [...listeners]) listener();
    },
    onItemSettled(listener) {
      settledListeners.add(listener);
      return () => settledListeners.delete(listener);
    },
    notifyItemSettled(item, settled) {
      for (const listener of [...settledListeners]) listener(item, settled);
    },
  };
}
