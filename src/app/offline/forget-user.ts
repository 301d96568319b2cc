import { offlineDb } from './db';
import { MEDIA_CACHE } from './cache-names';
import type { UserKey } from './types';

/**
 * Signing out of a shared device: what the device kept for the
 * user to read goes — the jobs as the server answered them, the documents of
 * versions no other user on the device keeps, the photos whose uploads the
 * server has acknowledged, and the media cache (Cache Storage; shared by the
 * users of the device, filled again when a job is opened online).
 *
 * What stays is the user's unsent work: their queued items, the photos those
 * carry and the file ids of uploads they refer to, and their decisions on
 * conflicts. Every row carries its user (offline/db.ts); the app lists and
 * sends only the signed-in user's, so it waits, unseen by the next person,
 * until its user signs in again. Runs again at the next start while the
 * sign-out has not reached the server (src/app/api/sign-out-lock.ts): an
 * interrupted run is completed.
 */
export async function forgetUser(user: UserKey): Promise<void> {
  const db = await offlineDb();
  const tx = db.transaction(['items', 'jobs', 'versions', 'blobs'], 'readwrite');
  const jobs = tx.objectStore('jobs');
  const kept = new Set<string>();
  for (const row of await jobs.getAll()) {
    if (row.user === user) await jobs.delete([row.user, row.jobId]);
    else kept.add(row.job.version.id);
  }
  const versions = tx.objectStore('versions');
  for (const id of await versions.getAllKeys()) if (!kept.has(id)) await versions.delete(id);
  // a photo stays only while the upload that carries it is queued
  const queued = new Set((await tx.objectStore('items').index('user').getAll(user)).map((item) => item.id));
  const blobs = tx.objectStore('blobs');
  for (const blob of await blobs.getAll()) if (blob.user === user && !queued.has(blob.id)) await blobs.delete(blob.id);
  await tx.done;
  if (typeof caches !== 'undefined') await caches.delete(MEDIA_CACHE);
}

/**
 * Someone signed in (online): what the device still keeps of other users to
 * read goes the same way — a user whose session ended without a sign-out
 * (the idle timeout, signed out elsewhere) leaves nothing for the next person
 * either. Their unsent changes stay, as at sign-out.
 */
export async function forgetOtherUsers(current: UserKey): Promise<void> {
  const db = await offlineDb();
  const others = new Set((await db.getAllKeys('jobs')).map(([user]) => user).filter((user) => user !== current));
  for (const user of others) await forgetUser(user);
}
