import { useEffect } from 'preact/hooks';
import { api } from '../../api/client';
import { can } from '../../api/session';
import { useT, type Translate } from '../../i18n';
import { startSync, statusOf, stopSync, useSyncState, type SyncState, type SyncStatus } from '../../offline';
import { Icon } from '../../ui';
import { useSession } from '../../shell/session-context';
import { useSettledToasts } from './settled-toasts';

/**
 * The header's sync indicator (src/app/shell/sync-indicator.tsx shows this):
 * online / offline or server unreachable with N waiting / syncing / N
 * waiting for a retry / needs a decision / refused / sign in again — in words and an icon, a status region read when it changes. It also runs the sync
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
  const { icon, tone, text } = describe(status, state, runs, t);
  return (
    <span class={`sync sync-${tone}`} role="status" data-sync={status} data-waiting={n}>
      <Icon name={icon} />
      <span class="sync-text">{text}</span>
    </span>
  );
}

type Tone = 'ok' | 'busy' | 'warning' | 'danger';

/**
 * Each state in words, with its own icon and tone, so that no two read alike
 * (offline and "needs your decision" were one red dot): what waits and why,
 * never "Online" while something is still on the device.
 */
function describe(status: SyncStatus, state: SyncState, runs: boolean, t: Translate): { icon: string; tone: Tone; text: string } {
  const n = state.waiting;
  switch (status) {
    case 'signin':
      return { icon: 'signin', tone: 'danger', text: t('operator.sync.signin', { n }) };
    case 'conflict':
      return { icon: 'decision', tone: 'danger', text: t('operator.sync.conflict', { n: state.conflicts }) };
    case 'refused':
      return { icon: 'refused', tone: 'danger', text: t('operator.sync.refused', { n: state.refused }) };
    case 'offline':
      return { icon: 'offline', tone: 'warning', text: n > 0 ? t('operator.sync.offlineWaiting', { n }) : t('shell.sync.offline') };
    case 'unreachable':
      return {
        icon: 'unreachable',
        tone: 'warning',
        text: n > 0 ? t('operator.sync.unreachable', { n }) : t('operator.sync.unreachableNothingWaiting'),
      };
    case 'syncing':
      return { icon: 'sending', tone: 'busy', text: t('operator.sync.syncing', { n }) };
    case 'waiting':
      return { icon: 'waiting', tone: 'busy', text: state.busy ? t('operator.sync.busy', { n }) : t('operator.sync.waiting', { n }) };
    case 'checking':
      return { icon: 'checking', tone: 'busy', text: t('operator.sync.checking') };
    default:
      return { icon: 'synced', tone: 'ok', text: runs ? t('operator.sync.synced') : t('shell.sync.online') };
  }
}
