/**
 * The sync state as one small store: what the shell's indicator shows
 * (online / offline or server unreachable with N waiting / syncing / N waiting
 * for a retry / conflict / refused / sign in again) and
 * what the operator screens read. No framework: subscribe/get, so the shell
 * and any area can bind it (offline/use-sync-state.ts for Preact).
 */
export type SyncStatus = 'checking' | 'online' | 'offline' | 'unreachable' | 'syncing' | 'waiting' | 'conflict' | 'refused' | 'signin';

export interface SyncState {
  /** what the device last learnt about the network */
  online: boolean;
  /** not online although the device has a network: the server did not answer (down, restarting, unreachable) */
  unreachable: boolean;
  /** the server answered "not now" (busy, restarting, rate limited): the items wait for the retry */
  busy: boolean;
  syncing: boolean;
  /** the session ended (or belongs to someone else): the queue waits for its user to sign in again */
  signInNeeded: boolean;
  /** whether the queue was read since the page loaded (before: nothing is known, so nothing is claimed) */
  counted: boolean;
  /** items of the signed-in user still to be sent (conflicts and refusals included) */
  waiting: number;
  /** items waiting for the operator's decision: the server holds another record of the step */
  conflicts: number;
  /** items the server refused for good (the job cancelled meanwhile, not qualified …): retry or discard */
  refused: number;
  /** requests the engine sent since the page loaded (the benchmark reads it) */
  requests: number;
  lastSyncedAt: string | null;
}

export function statusOf(state: SyncState): SyncStatus {
  if (state.signInNeeded) return 'signin';
  if (!state.counted) return 'checking';
  if (state.conflicts > 0) return 'conflict';
  if (state.refused > 0) return 'refused';
  if (!state.online) return state.unreachable ? 'unreachable' : 'offline';
  if (state.syncing) return 'syncing';
  // never "online" with items still on the device: they wait (the server said "not now", or the next round is due)
  if (state.waiting > 0) return 'waiting';
  return 'online';
}

export interface SyncStateStore {
  get: () => SyncState;
  set: (patch: Partial<SyncState>) => void;
  subscribe: (listener: (state: SyncState) => void) => () => void;
}

/** One engine's sync state; `online`: what the device's network says at the start. */
export function createSyncStateStore(online: boolean): SyncStateStore {
  let current: SyncState = {
    online,
    unreachable: false,
    busy: false,
    counted: false,
    syncing: false,
    signInNeeded: false,
    waiting: 0,
    conflicts: 0,
    refused: 0,
    requests: 0,
    lastSyncedAt: null,
  };
  const listeners = new Set<(state: SyncState) => void>();
  return {
    get: () => current,
    set(patch) {
      const next = { ...current, ...patch };
      if (Object.keys(patch).every((key) => next[key as keyof SyncState] === current[key as keyof SyncState])) return;
      current = next;
      for (const listener of [...listeners]) listener(current);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
