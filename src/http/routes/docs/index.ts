import { z } from 'zod';
import { version } from '../../../../package.json';
import { notFound } from '#errors';
import { DOCS_ASSET_FILES, docsAsset } from '#lib/executable';
import { buildOpenApiDocument } from '../../openapi';
import { defineRoute, type RouteSpec } from '../../route';

/** One document per mounted route list (built on first request). */
const documents = new WeakMap<readonly RouteSpec[], unknown>();

/** The reference page: swagger-ui from this server's own files, started by a script file (the CSP allows no inline script). */
const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>wip API</title><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/api/docs/swagger-ui.css"></head>
<body><div id="api"></div>
<script src="/api/docs/swagger-ui-bundle.js"></script>
<script src="/api/docs/start.js"></script>
</body>
</html>
`;
const START = `window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#api', deepLinking: true, validatorUrl: null, tryItOutEnabled: false });\n`;

/** For the page and its files: scripts, styles and the document from this origin only; swagger-ui sets inline styles. */
const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:; frame-ancestors 'none'";

const DocsFile = z.object({ file: z.enum([...DOCS_ASSET_FILES, 'start.js']) });

/** The API description (OpenAPI 3.1) and a readable reference page, both public: they describe, they grant nothing. */
export const docsRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/openapi.json',
    operationId: 'getOpenApiDocument',
    produces: { type: 'application/json' },
    summary: 'The OpenAPI 3.1 description of every REST route (generated from the route declarations)',
    auth: 'public',
    envelope: false,
    cacheControl: 'no-cache',
    async handler({ ctx }) {
      const routes = ctx.state.routes();
      let document = documents.get(routes);
      if (!document) {
        document = buildOpenApiDocument(routes, { version });
        documents.set(routes, document);
      }
      ctx.body = document;
      return undefined;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/docs',
    operationId: 'getDocsPage',
    produces: { type: 'text/html' },
    summary: 'The API reference page (HTML) over /api/openapi.json, served offline',
    auth: 'public',
    envelope: false,
    cacheControl: 'no-cache',
    async handler({ ctx }) {
      ctx.set('Content-Security-Policy', DOCS_CSP);
      ctx.type = 'html';
      ctx.body = PAGE;
      return undefined;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/docs/:file',
    operationId: 'getDocsAsset',
    produces: { type: ['application/javascript', 'text/css'] },
    summary: "The reference page's script and style files",
    auth: 'public',
    params: DocsFile,
    envelope: false,
    cacheControl: 'public, max-age=3600',
    async handler({ ctx, params }) {
      ctx.set('Content-Security-Policy', DOCS_CSP);
      ctx.type = params.file.endsWith('.css') ? 'text/css' : 'application/javascript';
      if (params.file === 'start.js') ctx.body = START;
      else if ((DOCS_ASSET_FILES as readonly string[]).includes(params.file)) ctx.body = docsAsset(params.file);
      else throw notFound('File');
      return undefined;
    },
  }),
];
