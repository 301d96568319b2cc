import { useEffect, useState } from 'preact/hooks';
import { getSyncState, subscribeSyncState } from './device';
import type { SyncState } from './sync-state';

/** The sync state in a Preact component (the shell's indicator, the operator's screens). */
export function useSyncState(): SyncState {
  const [state, setState] = useState(getSyncState);
  useEffect(() => subscribeSyncState(setState), []);
  return state;
}
