/**
 * The sign-out lock of a shared device. Signing out sets it at
 * once, before anything else, and it stays set until the server has ended the
 * session: while it is set the app shows only the sign-in page, and the one
 * request allowed out is the sign-out itself (src/app/api/client.ts sends it
 * first, before any other request, as soon as there is a network again).
 *
 * Why a lock and not just a sign-out request: offline, the request cannot go,
 * and the session cookie (HttpOnly) cannot be removed by the page — until the
 * server has ended the session, the browser still holds the previous user's
 * session. The lock is kept in localStorage: read synchronously at start, seen
 * by every tab of the app (the `storage` event), and it survives a reload or a
 * restart of the tablet.
 */

const LOCK_KEY = 'wip.app.signOutPending';

export interface SignOutLock {
  /** the user who signed out (`clientId:userId`): what is left of theirs on the device is removed again at start */
  user: string | null;
  at: string;
}

export function pendingSignOut(): SignOutLock | null {
  try {
    const value = JSON.parse(localStorage.getItem(LOCK_KEY) ?? 'null') as SignOutLock | null;
    return value && typeof value.at === 'string' ? value : null;
  } catch {
    // unreadable: locked all the same (a lock is never lifted by a parse error)
    return { user: null, at: new Date(0).toISOString() };
  }
}

export function lockForSignOut(user: string | null): void {
  localStorage.setItem(LOCK_KEY, JSON.stringify({ user, at: new Date().toISOString() } satisfies SignOutLock));
}

/** The server ended the session (or it had already ended): the device is open for the next person. */
export function unlockAfterSignOut(): void {
  localStorage.removeItem(LOCK_KEY);
}

/** Another tab of the app signed out: `listener` runs (the tab leaves the previous user's page at once). */
export function onSignOutElsewhere(listener: () => void): () => void {
  const handler = (event: StorageEvent) => {
    if (event.key === LOCK_KEY && event.newValue !== null) listener();
  };
  window.addEventListener('storage', handler);
  return () => window.removeEventListener('storage', handler);
}
