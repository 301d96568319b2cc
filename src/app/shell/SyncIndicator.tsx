import { useEffect, useState } from 'preact/hooks';
import { useT } from '../i18n';

/**
 * The sync indicator's slot in the header. app-operator replaces this body
 * with the offline queue's state (online / offline with N waiting / syncing /
 * conflict); until then it shows whether the browser is online.
 */
export function SyncIndicator() {
  const t = useT();
  const [online, setOnline] = useState(navigator.onLine);
  useEffect(() => {
    const update = () => setOnline(navigator.onLine);
    window.addEventListener('online', update);
    window.addEventListener('offline', update);
    return () => {
      window.removeEventListener('online', update);
      window.removeEventListener('offline', update);
    };
  }, []);
  return (
    <span class={`sync ${online ? 'sync-online' : 'sync-offline'}`} role="status">
      <span class="sync-dot" aria-hidden="true" />
      {online ? t('shell.sync.online') : t('shell.sync.offline')}
    </span>
  );
}
