// The operator's offline machinery, no UI: the write queue bound to its user,
// the sync engine (offline/sync.ts, wired to the browser in offline/device.ts),
// the sync state the shell's indicator shows, and the jobs kept on the device.
// See docs/guides/operator.md ("Offline sync") for the guarantees and
// docs/architecture/offline-sync.md for the design.
export { startSync, stopSync, resolveItem } from './device';
export type { Decision } from './sync';
export { statusOf, type SyncState, type SyncStatus } from './sync-state';
export { useSyncState } from './use-sync-state';
export { forgetUser, forgetOtherUsers } from './forget-user';
export { openJob, keepServerJob, refreshJob } from './jobs';
export {
  enqueuePhoto,
  enqueueRecord,
  enqueueTransition,
  enqueueFault,
  localJobView,
  discardSetAside,
  localPhotoBlob,
  queuedItems,
  storedJobs,
} from './device';
export { newId as newIdempotencyKey, type LocalJobView } from './queue';
export { onQueueChanged, onItemSettled } from './device';
export type { Settled } from './signals';
export * from './types';
export * from './job-data';
