import { z } from 'zod';
import { notFound } from '#errors';
import { APP_INDEX, APP_MANIFEST, APP_SERVICE_WORKER, appAssets } from '#lib/executable';
import { defineRoute, type RouteSpec } from '../../route';
import type { AppContext } from '../../state';

/**
 * The floor app: a progressive web app built into dist/app
 * (scripts/build-app.ts) and carried inside the executable like the console.
 * Same origin, no CDN, no inline script or style. Its pages are client-side
 * routes under /app/, so every path under /app/ that does not name a file
 * answers the app's one HTML page (a deep link such as /app/jobs/12/run works
 * after a reload); a path that names a file (has an extension) is that built
 * file or 404, never the page in its place.
 *
 * Caching, as the console's: the page is revalidated on every load, the
 * hashed files are kept for a year, and the service worker (at the stable
 * path /app/sw.js, its scope /app/) is revalidated too, so a new build's
 * worker is found on the next load.
 */
export const APP_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; font-src 'self'; connect-src 'self'; worker-src 'self'; manifest-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Hashed names change with their content: a browser may keep them for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

const TYPES: Record<string, string> = {
  '.js': 'application/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.webmanifest': 'application/manifest+json',
};

/** A name under /app/: a built file when it has an extension, a page of the app otherwise. */
const Segment = z.string().max(200);
const AppFile = z.object({ file: Segment });

function servePage(ctx: AppContext): undefined {
  const index = appAssets().get(APP_INDEX);
  if (!index) throw notFound('The floor app (not built: run npm run build)');
  ctx.set('Content-Security-Policy', APP_CSP);
  ctx.set('Cache-Control', 'no-cache');
  ctx.type = 'html';
  ctx.body = index;
  return undefined;
}

/** A deeper page of the app (/app/jobs/12, /app/jobs/12/run): the page, the router in the browser does the rest. */
const deepPage = (path: string, operationId: string, params: z.ZodType) =>
  defineRoute({
    method: 'get',
    path,
    operationId,
    produces: { type: 'text/html' },
    summary: "A page of the floor app (its HTML page; the app's router shows the page the path names)",
    auth: 'public',
    params,
    envelope: false,
    cacheControl: 'no-cache',
    async handler({ ctx }) {
      return servePage(ctx);
    },
  });

export const appRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/app/',
    operationId: 'getApp',
    produces: { type: 'text/html' },
    summary:
      'The floor app for authors, reviewers, supervisors and operators (HTML page of a progressive web app, revalidated on every load)',
    auth: 'public',
    envelope: false,
    cacheControl: 'no-cache',
    async handler({ ctx }) {
      return servePage(ctx);
    },
  }),
  // after /app/: a pattern without the slash would also match /app/ (and redirect it to itself)
  defineRoute({
    method: 'get',
    path: '/app',
    operationId: 'getAppRedirect',
    produces: { redirect: true },
    summary: "Redirects to the floor app (/app/): the service worker's scope, and the base of its pages",
    auth: 'public',
    envelope: false,
    async handler({ ctx }) {
      ctx.redirect('/app/');
      return undefined;
    },
  }),
  defineRoute({
    method: 'get',
    path: `/app/${APP_SERVICE_WORKER}`,
    operationId: 'getAppServiceWorker',
    produces: { type: 'application/javascript' },
    summary: "The floor app's service worker (a stable name, revalidated on every load so a new build's worker is found; scope /app/)",
    auth: 'public',
    envelope: false,
    cacheControl: 'no-cache',
    async handler({ ctx }) {
      const worker = appAssets().get(APP_SERVICE_WORKER);
      if (!worker) throw notFound('File');
      ctx.set('Content-Security-Policy', APP_CSP);
      ctx.type = 'application/javascript';
      ctx.body = worker;
      return undefined;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/app/:file',
    operationId: 'getAppFile',
    produces: {
      type: ['text/html', 'application/javascript', 'text/css', 'image/svg+xml', 'image/png', 'font/woff2', 'application/manifest+json'],
    },
    summary:
      "The floor app's script, style and icon files (content-hashed names, cached for a year), or for a name without an extension the app's page",
    auth: 'public',
    params: AppFile,
    envelope: false,
    cacheControl: IMMUTABLE,
    async handler({ ctx, params }) {
      const dot = params.file.lastIndexOf('.');
      if (dot < 0) return servePage(ctx);
      const file = params.file;
      const content = file === APP_MANIFEST || file === APP_INDEX || file === APP_SERVICE_WORKER ? undefined : appAssets().get(file);
      if (!content) throw notFound('File');
      ctx.set('Content-Security-Policy', APP_CSP);
      ctx.type = TYPES[file.slice(dot)] ?? 'application/octet-stream';
      ctx.body = content;
      return undefined;
    },
  }),
  deepPage('/app/:section/:id', 'getAppPage', z.object({ section: Segment, id: Segment })),
  deepPage('/app/:section/:id/:action', 'getAppSubPage', z.object({ section: Segment, id: Segment, action: Segment })),
];
