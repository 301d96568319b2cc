import type { QueueItem } from './types';

/** "The queue changed": the sync engine drains, open screens re-read their job. One listener list, same tab. */
const listeners = new Set<() => void>();

export function onQueueChanged(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function notifyQueueChanged(): void {
  for (const listener of [...listeners]) listener();
}

/** What the server's answer made of a queued item: confirmed (applied), refused, or a conflict for the operator. */
export type Settled = 'confirmed' | 'refused' | 'conflict';
const settledListeners = new Set<(item: QueueItem, settled: Settled) => void>();

/** The server answered an item: the screens say "Saved" only now (and the refusal, if it was one). */
export function onItemSettled(listener: (item: QueueItem, settled: Settled) => void): () => void {
  settledListeners.add(listener);
  return () => settledListeners.delete(listener);
}

export function notifyItemSettled(item: QueueItem, settled: Settled): void {
  for (const listener of [...settledListeners]) listener(item, settled);
}
