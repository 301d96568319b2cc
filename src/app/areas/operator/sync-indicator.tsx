import { useEffect } from 'preact/hooks';
import { api } from '../../api/client';
import { can } from '../../api/session';
import { useT } from '../../i18n';
import { startSync, statusOf, stopSync, useSyncState } from '../../offline';
import { useSession } from '../../shell/session-context';
import { useSettledToasts } from './settled-toasts';

/**
 * The header's sync indicator (src/app/shell/SyncIndicator.tsx shows this):
 * online / offline or server unreachable with N waiting / syncing / N
 * waiting for a retry / needs a decision / sign in again — a status region, read when it changes. It also runs the sync
 * engine for a signed-in user who runs jobs: mounted with the signed-in
 * shell, stopped when they sign out (the queue stays on the device).
 */
export function OperatorSyncIndicator() {
  const t = useT();
  const { user } = useSession().session;
  const state = useSyncState();
  const runs = can.runJobs(user);
  useSettledToasts();
  useEffect(() => {
    if (!runs) return undefined;
    startSync(user);
    return stopSync;
  }, [user.id, user.clientId, runs]);
  // someone who runs no jobs has no queue: only the network's state
  const status = runs ? statusOf(state) : state.online ? 'online' : 'offline';
  // the session ended while the device was offline: one request through the app's API client, whose 401 takes
  // the shell to its sign-in page (and back here after); the queue waits on the device for this user meanwhile
  useEffect(() => {
    if (status === 'signin') void api('GET', '/api/client/auth/me').catch(() => undefined);
  }, [status]);
  const n = state.waiting;
  // in words: what waits and why (never "Online" while something is still on the device)
  const text =
    status === 'signin'
      ? t('operator.sync.signin', { n })
      : status === 'conflict'
        ? t('operator.sync.conflict', { n: state.conflicts })
        : status === 'offline'
          ? n > 0
            ? t('operator.sync.offlineWaiting', { n })
            : t('shell.sync.offline')
          : status === 'unreachable'
            ? n > 0
              ? t('operator.sync.unreachable', { n })
              : t('operator.sync.unreachableNothingWaiting')
            : status === 'syncing'
              ? t('operator.sync.syncing', { n })
              : status === 'waiting'
                ? state.busy
                  ? t('operator.sync.busy', { n })
                  : t('operator.sync.waiting', { n })
                : status === 'checking'
                  ? t('operator.sync.checking')
                  : t('shell.sync.online');
  return (
    <span
      class={`sync sync-${status === 'online' || status === 'syncing' ? 'online' : 'offline'} sync-${status}`}
      role="status"
      data-sync={status}
      data-waiting={n}
    >
      <span class="sync-dot" aria-hidden="true" />
      {text}
    </span>
  );
}
