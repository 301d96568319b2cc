/// <reference lib="webworker" />
import { clientsClaim } from 'workbox-core';
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute, type PrecacheEntry } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { registerJobCaching } from './offline/sw-jobs';

/**
 * The floor app's service worker (Workbox), served at /app/sw.js, scope /app/.
 *
 * - The app shell is precached: every file of the build (the list and each
 *   file's revision are written in here by scripts/build-app.ts), so a repeat
 *   load and a reload without network come from the cache. Hashed names carry
 *   their revision in the name; the page (/app/) carries its content hash.
 * - Every page of the app (a navigation under /app/: /app/jobs/12/run) is the
 *   precached page: the router in the page does the rest, offline too.
 * - The API is network-only by default: the worker answers no request it
 *   has no route for, and nothing of a user's data is cached unless a route
 *   below says so (app-operator adds the job documents and media an operator
 *   needs offline).
 * - Updates: a new build's worker installs and waits; the page asks it to take
 *   over (SKIP_WAITING, src/app/shell/service-worker.ts) or it does on the next
 *   visit. Outdated precaches are deleted when it activates.
 */
declare const self: ServiceWorkerGlobalScope;
/** Replaced at build time by the precache list (scripts/build-app.ts). */
declare const __APP_PRECACHE__: PrecacheEntry[];

precacheAndRoute(__APP_PRECACHE__);
cleanupOutdatedCaches();
// the first install controls the page that installed it at once (there is nothing older to keep in step with);
// an update still waits (above), so clientsClaim only ever applies to a worker allowed to take over
clientsClaim();

registerRoute(
  new NavigationRoute(createHandlerBoundToURL('/app/'), { allowlist: [/^\/app(\/|$)/], denylist: [/^\/app\/[^/]+\.[a-z0-9]+$/i] }),
);

// The API and anything else: no route, so the worker does not answer and the request goes to the network as
// without a worker (network-only, with no detour through the worker: event streams and upload progress unchanged).
// The operator's part (src/app/offline/sw-jobs.ts): the media of jobs opened online, from the cache when offline.
// A job's document and its queued writes live in IndexedDB (src/app/offline/db.ts). Signing out empties the media
// cache (src/app/offline/forget-user.ts): the next person on a shared tablet gets none of it from here.
registerJobCaching();

self.addEventListener('message', (event) => {
  if ((event.data as { type?: string } | null)?.type === 'SKIP_WAITING') void self.skipWaiting();
});
