import { jobQuery, mediaUrlsOfJob, type JobData } from './job-data';
import type { LocalJobView } from './queue';
import { localJobView, notifyQueueChanged, storeJob, transport } from './device';
import type { UserKey } from './types';
import { MEDIA_CACHE } from './cache-names';
import { requestLanguage } from '../api/client';
import type { OperatorJobQuery, OperatorJobQueryVariables } from '../api/operation-types';
import { pendingSignOut } from '../api/sign-out-lock';

/**
 * Opens a job: online, the server's answer is kept on the device with its
 * step media cached, so the job can then be run to the end with no network;
 * offline (or the server unreachable), the device's copy. Either way with the
 * queued writes applied on top. `source` says which.
 */
export async function openJob(user: UserKey, jobId: string): Promise<{ view: LocalJobView; source: 'server' | 'device' } | undefined> {
  try {
    if (navigator.onLine) {
      const { job } = await transport.graphqlQuery<OperatorJobQuery, OperatorJobQueryVariables>(await jobQuery(), {
        id: jobId,
        language: requestLanguage(),
      });
      if (job) {
        await storeJob(user, job);
        void cacheMedia(mediaUrlsOfJob(job));
        const view = await localJobView(user, jobId);
        return view && { view, source: 'server' };
      }
    }
  } catch {
    // unreachable: the device's copy below
  }
  const view = await localJobView(user, jobId);
  return view && { view, source: 'device' };
}

/** Puts the files into the media cache (those not there yet); a failure only means that file is not available offline. */
export async function cacheMedia(urls: string[]): Promise<void> {
  if (typeof caches === 'undefined' || urls.length === 0) return;
  const cache = await caches.open(MEDIA_CACHE);
  await Promise.all(
    urls.map(async (url) => {
      if ((await cache.match(url)) || pendingSignOut()) return;
      try {
        const response = await fetch(url, { credentials: 'same-origin' });
        // signed out meanwhile: the media cache was emptied, and stays so
        if (response.ok && !pendingSignOut()) await cache.put(url, response);
      } catch {
        // offline meanwhile
      }
    }),
  );
}

/** A job as the server answered it (a step signed, marked not applicable): kept on the device, and every screen showing it told. */
export async function keepServerJob(user: UserKey, job: JobData): Promise<void> {
  await storeJob(user, job);
  notifyQueueChanged();
}

/** Reads the job from the server again (when online) and tells every screen showing it. */
export async function refreshJob(user: UserKey, jobId: string): Promise<void> {
  if ((await openJob(user, jobId))?.source === 'server') notifyQueueChanged();
}
