import { pendingSignOut } from '../api/sign-out-lock';
import { requestLanguage } from '../api/client';
import { indexedDbStorage } from './db';
import { jobQuery } from './job-data';
import { createServerClock } from './server-clock';
import { createSyncEngine } from './sync';
import { createHttpTransport } from './transport';

/**
 * The app's one sync engine, wired to the browser: IndexedDB for storage, the
 * page's fetch with the session cookie for transport, navigator.onLine for the
 * network, navigator.locks so one tab drains at a time, and the server clock's
 * offset kept in localStorage across pages. Everything the rest of the app
 * uses of the offline machinery is this engine's (offline/index.ts).
 */
const CLOCK_KEY = 'wip-server-clock-offset';
const LOCK = 'wip-offline-sync';

function csrfToken(): string {
  const match = /(?:^|;\s*)wip_csrf=([^;]+)/.exec(document.cookie);
  return match ? decodeURIComponent(match[1]) : '';
}

const serverClock = createServerClock({
  now: () => Date.now(),
  load() {
    try {
      const value = Number(localStorage.getItem(CLOCK_KEY));
      return Number.isFinite(value) ? value : 0;
    } catch {
      return 0;
    }
  },
  save(offsetMs) {
    try {
      localStorage.setItem(CLOCK_KEY, String(offsetMs));
    } catch {
      // storage full or denied: the offset still holds for this page
    }
  },
});

export const transport = createHttpTransport({
  baseUrl: '',
  fetch: (input, init) => fetch(input, { ...init, credentials: 'same-origin' }),
  csrfToken,
  signedOut: () => Boolean(pendingSignOut()),
  serverClock,
  now: () => Date.now(),
  language: requestLanguage,
  jobQuery,
});

export const engine = createSyncEngine({
  storage: indexedDbStorage(),
  transport,
  serverClock,
  now: () => Date.now(),
  network: {
    online: () => navigator.onLine,
    subscribe(listeners) {
      const online = () => listeners.online();
      const offline = () => listeners.offline();
      window.addEventListener('online', online);
      window.addEventListener('offline', offline);
      return () => {
        window.removeEventListener('online', online);
        window.removeEventListener('offline', offline);
      };
    },
  },
  exclusive: (work, elsewhere) =>
    navigator.locks ? navigator.locks.request(LOCK, { ifAvailable: true }, async (lock) => (lock ? work() : elsewhere())) : work(),
});

export const { start: startSync, stop: stopSync, syncNow, syncUser, resolveItem, renumber } = engine;
export const { get: getSyncState, subscribe: subscribeSyncState } = engine.state;
export const { onQueueChanged, onItemSettled, notifyQueueChanged } = engine.signals;
export const {
  enqueuePhoto,
  enqueueRecord,
  enqueueTransition,
  enqueueFault,
  localJobView,
  discardSetAside,
  localPhotoBlob,
  queuedItems,
  storedJobs,
  storeJob,
} = engine.queue;
