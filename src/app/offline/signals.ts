/** "The queue changed": the sync engine drains, open screens re-read their job. One listener list, same tab. */
const listeners = new Set<() => void>();

export function onQueueChanged(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function notifyQueueChanged(): void {
  for (const listener of [...listeners]) listener();
}
