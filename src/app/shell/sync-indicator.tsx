import { OperatorSyncIndicator } from '../areas/operator/sync-indicator';

/**
 * The sync indicator's slot in the header: the operator's offline queue
 * (online / offline with N waiting / syncing / needs a decision / sign in
 * again), src/app/areas/operator/sync-indicator.tsx.
 */
export function SyncIndicator() {
  return <OperatorSyncIndicator />;
}
