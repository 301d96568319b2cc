import { engine } from './device';
import { MEDIA_CACHE } from './cache-names';
import type { UserKey } from './types';

/**
 * Signing out of a shared device: what the device kept for the user to read
 * goes (the engine's queue.forgetUser: jobs, versions no other user keeps,
 * photos whose uploads were acknowledged), and the media cache (Cache Storage;
 * shared by the users of the device, filled again when a job is opened online).
 *
 * What stays is the user's unsent work, bound to them: the app lists and
 * sends only the signed-in user's, so it waits, unseen by the next person,
 * until its user signs in again. Runs again at the next start while the
 * sign-out has not reached the server (src/app/api/sign-out-lock.ts): an
 * interrupted run is completed.
 */
export async function forgetUser(user: UserKey): Promise<void> {
  await engine.queue.forgetUser(user);
  if (typeof caches !== 'undefined') await caches.delete(MEDIA_CACHE);
}

/**
 * Someone signed in (online): what the device still keeps of other users to
 * read goes the same way — a user whose session ended without a sign-out
 * (the idle timeout, signed out elsewhere) leaves nothing for the next person
 * either. Their unsent changes stay, as at sign-out.
 */
export async function forgetOtherUsers(current: UserKey): Promise<void> {
  for (const user of await engine.queue.otherUsers(current)) await forgetUser(user);
}
