import { useEffect, useState } from 'preact/hooks';
import { localJobView, onQueueChanged, openJob, useSyncState, type LocalJobView, type UserKey } from '../../offline';

export type LocalJobState =
  | { status: 'loading' }
  | { status: 'missing' }
  | { status: 'error'; error: unknown }
  | { status: 'done'; view: LocalJobView; source: 'server' | 'device' };

/**
 * A job on the operator's screens: opened once (from the server when online,
 * kept on the device), then re-read from the device whenever the queue changes
 * — a value saved, an item acknowledged, a conflict found — so what the
 * screen shows is always the device's state, online or not.
 */
export function useLocalJob(user: UserKey, jobId: string): LocalJobState {
  const [state, setState] = useState<LocalJobState>({ status: 'loading' });
  // opened from the device: once the server answers again (the sync engine's next contact), opened again from it,
  // so "Offline: showing what this device holds" does not outlive the outage
  const { online, lastSyncedAt } = useSyncState();
  const [reopen, setReopen] = useState(0);
  const fromDevice = state.status === 'done' && state.source === 'device';
  useEffect(() => {
    if (fromDevice && online) setReopen((n) => n + 1);
  }, [online, lastSyncedAt]);
  useEffect(() => {
    let current = true;
    let source: 'server' | 'device' = 'device';
    openJob(user, jobId).then(
      (opened) => {
        if (!current) return;
        if (!opened) return setState({ status: 'missing' });
        source = opened.source;
        setState({ status: 'done', ...opened });
      },
      (error: unknown) => current && setState({ status: 'error', error }),
    );
    const stop = onQueueChanged(() => {
      void localJobView(user, jobId).then((view) => current && view && setState({ status: 'done', view, source }));
    });
    return () => {
      current = false;
      stop();
    };
  }, [user, jobId, reopen]);
  return state;
}

/** An object URL for a Blob, revoked when the component goes. */
export function useObjectUrl(blob: Blob | undefined): string | undefined {
  const [url, setUrl] = useState<string>();
  useEffect(() => {
    if (!blob) return setUrl(undefined);
    const made = URL.createObjectURL(blob);
    setUrl(made);
    return () => URL.revokeObjectURL(made);
  }, [blob]);
  return url;
}
