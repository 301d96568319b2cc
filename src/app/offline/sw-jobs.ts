import { registerRoute } from 'workbox-routing';
import { NetworkFirst } from 'workbox-strategies';
import { MEDIA_CACHE } from './cache-names';

/**
 * The operator's part of the service worker (src/app/sw.ts imports it): the
 * files of jobs — step media, photos — from the network while there is one,
 * else from the media cache the page filled when the job was opened online
 * (offline/jobs.ts cacheMedia). A job's document and its queued writes live in
 * IndexedDB (offline/db.ts), not here: GraphQL reads are POSTs, which Cache
 * Storage cannot key.
 */
export function registerJobCaching(): void {
  registerRoute(
    ({ request, url }) =>
      request.method === 'GET' && url.origin === self.location.origin && /^\/api\/client\/files\/\d+$/.test(url.pathname),
    new NetworkFirst({ cacheName: MEDIA_CACHE, networkTimeoutSeconds: 4 }),
  );
}
