// The operator's offline machinery, no UI: the write queue in
// IndexedDB bound to its user, the sync engine, the sync state the shell's
// indicator shows, and the jobs kept on the device. See docs/guides/operator.md
// ("Offline sync") for the guarantees.
export { startSync, stopSync, resolveItem, type Decision } from './sync';
export { statusOf, type SyncState, type SyncStatus } from './sync-state';
export { useSyncState } from './use-sync-state';
export { forgetUser, forgetOtherUsers } from './forget-user';
export { openJob, keepServerJob, refreshJob } from './jobs';
export {
  newId as newIdempotencyKey,
  enqueuePhoto,
  enqueueRecord,
  enqueueTransition,
  enqueueFault,
  localJobView,
  discardSetAside,
  localPhotoBlob,
  queuedItems,
  storedJobs,
  type LocalJobView,
} from './queue';
export { onQueueChanged, onItemSettled, type Settled } from './signals';
export * from './types';
export * from './job-data';
