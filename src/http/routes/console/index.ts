import { z } from 'zod';
import { notFound } from '#errors';
import { SECURITY_ADMIN } from '#policies/roles';
import { CONSOLE_INDEX, CONSOLE_MANIFEST, consoleAssets } from '#lib/executable';
import { VERIFIER_DOWNLOAD, VERIFIER_PAGE } from '#lib/verifier-assets';
import { defineRoute, type RouteSpec } from '../../route';
import type { AppContext } from '../../state';

/**
 * The admin console: a single-page app built into dist/console
 * (scripts/build-console.ts) and, in the executable, carried inside it. Its
 * scripts and styles come from this origin only — no inline script, no CDN,
 * no outside font — so the policy below forbids everything else, and the
 * console works on an air-gapped site. The app calls the REST API with the
 * session cookie and the CSRF double submit; it holds no rule of its own.
 */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Hashed names change with their content: a browser may keep them for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

const TYPES: Record<string, string> = {
  '.js': 'application/javascript',
  '.css': 'text/css',
  '.html': 'html',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

const ConsoleFile = z.object({ file: z.string().max(200) });
const LinkToken = z.object({ token: z.string().max(200) });

function serveIndex(ctx: AppContext): undefined {
  const index = consoleAssets().get(CONSOLE_INDEX);
  if (!index) throw notFound('The console (not built: run npm run build)');
  ctx.set('Content-Security-Policy', CONSOLE_CSP);
  ctx.type = 'html';
  ctx.body = index;
  return undefined;
}

/** The page of an account mail's link: the console's own page (no-store, like every answer carrying a token). */
const accountLinkRoute = (path: string, operationId: string, summary: string) =>
  defineRoute({
    method: 'get',
    path,
    operationId,
    produces: { type: 'text/html' },
    summary,
    auth: 'public',
    params: LinkToken,
    envelope: false,
    async handler({ ctx }) {
      return serveIndex(ctx);
    },
  });

export const consoleRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/',
    operationId: 'getRoot',
    produces: { redirect: true },
    summary:
      'Redirects a signed-in client user who holds no administrator role to the floor app (/app/), anyone else (administrators, nobody signed in) to the admin console (/console/)',
    auth: 'public',
    envelope: false,
    async handler({ ctx, actor }) {
      // the answer depends on the cookie: never cached (the default no-store)
      ctx.redirect(actor?.kind === 'user' && !actor.roles.includes(SECURITY_ADMIN) ? '/app/' : '/console/');
      return undefined;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/console/',
    operationId: 'getConsole',
    produces: { type: 'text/html' },
    summary: 'The admin console (HTML page of a single-page app, revalidated on every load)',
    auth: 'public',
    envelope: false,
    cacheControl: 'no-cache',
    async handler({ ctx }) {
      return serveIndex(ctx);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/console/:file',
    operationId: 'getConsoleAsset',
    produces: { type: ['application/javascript', 'text/css', 'image/svg+xml', 'image/png', 'font/woff2', 'application/json'] },
    summary: "The admin console's script and style files (content-hashed names, cached for a year)",
    auth: 'public',
    params: ConsoleFile,
    envelope: false,
    cacheControl: IMMUTABLE,
    async handler({ ctx, params }) {
      const assets = consoleAssets();
      // pages are served at their own paths (/console/, /verify/), never as assets
      const pages = [CONSOLE_MANIFEST, CONSOLE_INDEX, VERIFIER_PAGE, VERIFIER_DOWNLOAD];
      const content = pages.includes(params.file) ? undefined : assets.get(params.file);
      if (!content) throw notFound('File');
      ctx.set('Content-Security-Policy', CONSOLE_CSP);
      ctx.type = TYPES[params.file.slice(params.file.lastIndexOf('.'))] ?? 'application/octet-stream';
      ctx.body = content;
      return undefined;
    },
  }),
  accountLinkRoute(
    '/auth/set-password/:token',
    'getSetPasswordPage',
    "The invitation mail's link: the console's page where the invited user sets a password",
  ),
  accountLinkRoute(
    '/auth/reset-password/:token',
    'getResetPasswordPage',
    "The password-reset mail's link: the console's page where the user sets a new password",
  ),
];
