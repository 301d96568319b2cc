import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '#errors';
import { REQUEST_HEADERS, RESPONSE_HEADERS, type HeaderDoc, type RequestHeaderName, type ResponseHeaderName } from './headers';
import type { RouteSpec } from './route-spec';
import { PERMISSIONS } from '#policies/permissions';

/**
 * The OpenAPI 3.1 description of the REST API, generated from the same route
 * declarations the server mounts (so it cannot name a route that is not
 * there, or miss one): paths, who may call them (auth, roles), parameters and
 * bodies from the zod schemas (zod 4's JSON Schema output, draft 2020-12 —
 * OpenAPI 3.1's dialect), the success answer (the envelope with the route's
 * `response` schema, or what `produces` declares), every status the route can
 * answer — the common ones derived here from the declaration, the handler's
 * own from `errors` — and the headers it sends and reads.
 * Schemas with a zod `id` (`.meta({ id })`, the presenters') become named
 * components, so generated clients get named types.
 */

type JsonSchema = Record<string, unknown>;

export interface OpenApiInfo {
  version: string;
}

/** `/api/x/:id` → `/api/x/{id}` */
export function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}

/** Declared tags, by area: the first whose pattern matches a route's path is its tag. */
export const TAGS: readonly { name: string; description: string; paths: RegExp }[] = [
  {
    name: 'Sign-in',
    description: 'Signing in and out (password, two-factor, OpenID Connect, SAML), tokens and the current principal',
    paths:
      /^\/api\/(client\/auth\/(sign-in|sign-in-v2|verify-two-factor|refresh|refresh-token|sign-out|me|oidc|vendor-dynamics|sso|vendor-saml)|admin\/auth)(\/|$)/,
  },
  {
    name: 'Accounts',
    description: "Sign-up, invitations, passwords, two-factor set-up, notification preferences and a client's security settings",
    paths: /^\/api\/(client\/auth|client\/account|admin\/user\/[^/]+\/(invite|unlock))(\/|$)/,
  },
  { name: 'Users', description: 'User management and the users report', paths: /^\/api\/admin\/user(\/|$)/ },
  {
    name: 'Clients',
    description: 'Clients (tenants), their SSO providers and storage quotas (system administrators)',
    paths: /^\/api\/admin\/client(\/|$)/,
  },
  {
    name: 'Licensing',
    description: 'The appliance license key, client licenses and seats',
    paths: /^\/api\/(admin\/license|admin\/license-on-prem|client\/license|client\/on-premise)(\/|$)/,
  },
  {
    name: 'Agreements',
    description: 'The EULA and master services agreements',
    paths: /^\/api\/(admin\/agreement|client\/(eula|agreement|accept-msa|have-client-accepted-msa|download-agreement))(\/|$)/,
  },
  {
    name: 'Work',
    description: 'Templates and jobs: editorial, sensors, working together, exports and imports, PDF and ZIP reports',
    paths:
      /^\/api\/client\/(update-sensors|editorial|supervision|workingTogether|job-history-users|export-zip|import-zip|copy-entities|get-as-pdf|download-zipped-job-report)(\/|$)/,
  },
  {
    name: 'Reports',
    description: 'Usage metering and activity reports',
    paths: /^\/api\/(client\/(meter-report|meter-report-filters|reports)|admin\/activity-report)(\/|$)/,
  },
  {
    name: 'Files',
    description: 'Uploads, downloads, 3D models and alignment data',
    paths: /^\/api\/(client\/(upload|replaceFile|files|download-model|alignment-data)|admin\/upload)(\/|$)/,
  },
  {
    name: 'Events',
    description: 'The live event stream, webhooks and web push',
    paths: /^\/api\/(client\/(events|webhooks|push|turn-push-notification)|admin\/webhooks)(\/|$)/,
  },
  { name: 'GraphQL', description: 'The GraphQL endpoint (GraphQL-over-HTTP answers, not the envelope)', paths: /^\/api\/client\/graphql$/ },
  {
    name: 'Internationalization',
    description: 'Translation bundles and overrides',
    paths: /^\/api\/(client\/(internalization|translate)|admin\/internationalization)(\/|$)/,
  },
  {
    name: 'Diagnostics',
    description: 'Bug reports and diagnostics from the apps',
    paths: /^\/api\/(client\/(add-bug-report|bug-report-web|clear-diagnostics|web-rtc-logs)|admin\/bug-reports)(\/|$)/,
  },
  {
    name: 'Integrations',
    description: 'Maps, ERP, vendor bug tracker and the container platform',
    paths: /^\/api\/(client\/(bug-report-vendor|vendorMapsApi|vendorErp)|admin\/container-notification-center)(\/|$)/,
  },
  { name: 'Operations', description: 'Logs, backups, mail outbox, storage (system administrators)', paths: /^\/api\/admin\// },
  { name: 'Client', description: "The caller's client: branding, tutorials, versions and updates", paths: /^\/api\/client\// },
  {
    name: 'Health',
    description: 'Liveness, readiness and Prometheus metrics, for load balancers and scrapers',
    paths: /^\/(healthz|readyz|metrics)$/,
  },
  { name: 'Documentation', description: 'This document and its reference page', paths: /^\/api\/(openapi\.json|docs)(\/|$)/ },
  {
    name: 'App',
    description: 'The floor app for authors, reviewers, supervisors and operators (its page, files and service worker)',
    paths: /^\/app(\/|$)/,
  },
  { name: 'Console', description: 'The admin console (static pages and assets)', paths: /./ },
];

export function tagOf(path: string): string {
  return TAGS.find((tag) => tag.paths.test(path))!.name;
}

/**
 * Turns one zod schema into JSON Schema for the document. zod puts schemas that have an `id` in `$defs`
 * and refers to them as `#/$defs/ID`; they are hoisted into components.schemas (a different shape under the
 * same id — an input whose transforms change it — gets the suffix `Input`).
 */
class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};

  convert(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const {
      $schema: _dialect,
      $defs,
      ...rest
    } = z.toJSONSchema(schema, { io, unrepresentable: 'any', reused: 'inline' }) as JsonSchema & {
      $defs?: Record<string, JsonSchema>;
    };
    const renamed = new Map<string, string>();
    for (const [id, def] of Object.entries($defs ?? {})) {
      let name = id;
      const existing = this.schemas[name];
      if (existing && JSON.stringify(existing) !== JSON.stringify(def)) name = io === 'input' ? `${id}Input` : `${id}Output`;
      renamed.set(id, name);
      this.schemas[name] = def;
    }
    const rewrite = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (value && typeof value === 'object') {
        return Object.fromEntries(
          Object.entries(value).map(([key, inner]) =>
            key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')
              ? [key, `#/components/schemas/${renamed.get(inner.slice(8)) ?? inner.slice(8)}`]
              : [key, rewrite(inner)],
          ),
        );
      }
      return value;
    };
    for (const id of renamed.values()) this.schemas[id] = rewrite(this.schemas[id]) as JsonSchema;
    return rewrite(rest) as JsonSchema;
  }
}

/** The properties of an object schema, or of every branch of a union of objects (each then optional). */
function objectProperties(schema: JsonSchema): { properties: Record<string, JsonSchema>; required: Set<string> } {
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (branches) {
    const properties: Record<string, JsonSchema> = {};
    for (const branch of branches) Object.assign(properties, objectProperties(branch).properties);
    return { properties, required: new Set() };
  }
  return { properties: (schema.properties ?? {}) as Record<string, JsonSchema>, required: new Set((schema.required ?? []) as string[]) };
}

const ALL_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];
const codesWithStatus = (status: number) => ALL_CODES.filter((code) => ERROR_STATUS[code] === status);

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Not authenticated',
  403: 'Not allowed',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict with the current state',
  410: 'Gone',
  413: 'Body too large',
  415: 'Unsupported body media type',
  416: 'Range not satisfiable',
  422: 'Invalid input',
  429: 'Rate limited (see Retry-After)',
  500: 'Internal error',
  502: 'Upstream failed',
  503: 'Unavailable',
};

const WRITE_SCOPED = /^\/api\/(client|admin)(\/|$)/;

/**
 * The error codes the request chain can answer a route with, from its declaration (auth and gates, path
 * parameters, body, query, rate limit, Idempotency-Key), and the handler's own (`errors`). By status.
 */
export function routeErrorCodes(spec: RouteSpec): Map<number, Set<ErrorCode>> {
  const codes = new Set<ErrorCode>(['INTERNAL_ERROR', 'SERVICE_UNAVAILABLE']);
  const add = (...more: ErrorCode[]) => more.forEach((code) => codes.add(code));
  const api = spec.path.startsWith('/api/');
  if (spec.auth !== 'public') add('UNAUTHORIZED', 'TOKEN_EXPIRED', 'FORBIDDEN', 'ACCOUNT_DISABLED');
  if (api && spec.auth !== 'admin') add('TWO_FACTOR_SETUP_REQUIRED');
  // the license gate refuses writes when the license has expired; the agreement gate client routes before acceptance
  if (api && spec.method !== 'get') add('LICENSE_EXPIRED');
  if (spec.path.startsWith('/api/client/') && spec.auth !== 'public') add('MSA_NOT_ACCEPTED', 'EULA_NOT_ACCEPTED');
  if (spec.feature) add('FEATURE_NOT_LICENSED');
  if (spec.createsSession || (spec.method !== 'get' && spec.auth !== 'public')) add('CSRF_FAILED');
  // a path parameter, or an id in the body or query, that names nothing of the caller's (tenant scoping answers 404)
  if (spec.path.includes(':') || ((spec.body || spec.query || spec.accepts === 'multipart') && spec.auth !== 'public')) add('NOT_FOUND');
  if (spec.method !== 'get') add('BAD_REQUEST', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE');
  if (spec.body || spec.query || spec.accepts === 'multipart') add('VALIDATION_ERROR');
  // a page's cursor the server did not make is 400 (db/pagination.ts)
  if (spec.query instanceof z.ZodObject && 'cursor' in spec.query.shape) add('BAD_REQUEST');
  if (spec.method !== 'get' && WRITE_SCOPED.test(spec.path) && spec.auth !== 'public')
    add('IDEMPOTENCY_KEY_INVALID', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_IN_PROGRESS');
  // the global budgets (per principal and route group, per IP) cover every route; `rateLimit` adds the route's own
  add('RATE_LIMITED');
  for (const code of spec.errors ?? []) add(code);
  const byStatus = new Map<number, Set<ErrorCode>>();
  for (const code of codes) {
    const status = ERROR_STATUS[code];
    if (!byStatus.has(status)) byStatus.set(status, new Set());
    byStatus.get(status)!.add(code);
  }
  return byStatus;
}

const headerRef = (name: ResponseHeaderName) => ({ $ref: `#/components/headers/${name}` });
const parameterRef = (name: RequestHeaderName) => ({ $ref: `#/components/parameters/${name}` });

/** The headers every answer of the route carries (success and error). */
function commonResponseHeaders(_spec: RouteSpec): ResponseHeaderName[] {
  // every request counts against a global budget (per principal, per IP without credentials: middleware/rate-limit.ts)
  return ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
}

const headersOf = (names: readonly ResponseHeaderName[]) => Object.fromEntries([...new Set(names)].map((name) => [name, headerRef(name)]));

const BINARY = { type: 'string', contentMediaType: 'application/octet-stream' };

/** The success envelope around a `data` schema. */
function envelopeOf(data: unknown): Record<string, unknown> {
  return {
    type: 'object',
    required: ['success', 'data'],
    properties: { success: { type: 'boolean', const: true }, data },
    additionalProperties: false,
  };
}

function successResponse(spec: RouteSpec, components: SchemaComponents): Record<string, unknown> {
  // a removed route (410 GONE to everyone) has no success to describe
  if (spec.errors?.includes('GONE') && !spec.response && !spec.produces) return {};
  const common = commonResponseHeaders(spec);
  const produces = spec.produces;
  const sends: ResponseHeaderName[] = [...common, ...(spec.sends ?? [])];
  if (spec.method !== 'get' && WRITE_SCOPED.test(spec.path) && spec.auth !== 'public') sends.push('Idempotency-Replayed');
  if (produces?.etag) sends.push('ETag');
  if (produces?.attachment) sends.push('Content-Disposition');
  if (produces?.ranges) sends.push('Accept-Ranges');
  if (spec.cacheControl) sends.push('Cache-Control');
  const status = String(spec.status ?? (produces?.redirect ? 302 : 200));
  const responses: Record<string, unknown> = {};
  if (produces?.redirect) {
    // Koa writes a short text beside Location (`Redirecting to …`)
    responses[status] = {
      description: 'Redirect',
      headers: headersOf([...sends, 'Location']),
      content: { 'text/plain': { schema: { type: 'string' } }, 'text/html': { schema: { type: 'string' } } },
    };
  } else if (produces || spec.envelope === false) {
    const types = [produces?.type ?? 'application/json'].flat();
    const schema = produces?.schema ? components.convert(produces.schema, 'output') : undefined;
    // a route that answers the envelope as its JSON alternative (a report also served as CSV, metadata beside
    // the file) declares that `data` as its `response`, like any envelope route
    const envelope = spec.response && spec.envelope !== false ? envelopeOf(components.convert(spec.response, 'output')) : undefined;
    responses[status] = {
      description: spec.envelope === false && !produces ? 'Answered in the format the summary names (not the envelope)' : 'Success',
      headers: headersOf(sends),
      content: Object.fromEntries(
        types.map((type) => [
          type,
          {
            schema:
              (envelope && type === 'application/json' ? envelope : schema) ??
              (/json|^text\/(plain|csv|html|css|javascript)/.test(type) ? (type.includes('json') ? {} : { type: 'string' }) : BINARY),
          },
        ]),
      ),
    };
  } else {
    const data = spec.response ? components.convert(spec.response, 'output') : {};
    responses[status] = {
      description: 'Success: the envelope with `data`',
      headers: headersOf(sends),
      content: { 'application/json': { schema: envelopeOf(data) } },
    };
  }
  for (const other of spec.otherStatuses ?? []) responses[String(other)] = responses[status];
  if (produces?.etag)
    responses['304'] = { description: 'Not modified: the copy named by If-None-Match is current', headers: headersOf([...common, 'ETag']) };
  if (produces?.ranges) {
    responses['206'] = {
      description: 'The byte range asked for',
      headers: headersOf([...sends, 'Content-Range']),
      content: Object.fromEntries([produces.type ?? 'application/octet-stream'].flat().map((type) => [type, { schema: BINARY }])),
    };
  }
  return responses;
}

function errorResponses(spec: RouteSpec, components: SchemaComponents): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  const common = commonResponseHeaders(spec);
  const byStatus = routeErrorCodes(spec);
  if (spec.produces?.ranges) byStatus.set(416, new Set(['RANGE_NOT_SATISFIABLE']));
  for (const status of [...byStatus.keys()].sort()) {
    const codes = [...byStatus.get(status)!].sort();
    const headers: ResponseHeaderName[] = [...common];
    if (status === 429 || status === 503 || (status === 409 && codes.includes('IDEMPOTENCY_IN_PROGRESS'))) headers.push('Retry-After');
    if (status === 416) headers.push('Content-Range');
    const envelope = { $ref: `#/components/schemas/Error${status}` };
    // a route answering another format (GraphQL) may answer its errors in it too, before or beside the envelope
    const own =
      spec.envelope === false && spec.produces?.schema && status < 500 ? components.convert(spec.produces.schema, 'output') : undefined;
    const content = own
      ? Object.fromEntries(
          [spec.produces!.type ?? 'application/json']
            .flat()
            .map((type) => [type, { schema: type === 'application/json' ? { anyOf: [envelope, own] } : own }]),
        )
      : { 'application/json': { schema: envelope } };
    responses[String(status)] = {
      description: `${STATUS_TEXT[status] ?? 'Error'}: ${codes.join(', ')}`,
      headers: headersOf(headers),
      content,
    };
  }
  return responses;
}

/** Security requirements: any one of them admits the caller (OpenAPI: alternatives). */
function security(spec: RouteSpec): JsonSchema[] {
  if (spec.path === '/metrics') return [{ metricsToken: [] }, {}];
  if (spec.path === '/api/admin/container-notification-center' && spec.method === 'post')
    return [{ containerSignature: [] }, { adminBearer: [] }];
  if (spec.auth === 'public') return [];
  const session = spec.method === 'get' ? { sessionCookie: [] } : { sessionCookie: [], csrfToken: [] };
  const bearer =
    spec.auth === 'user'
      ? [{ clientBearer: [] }]
      : spec.auth === 'admin'
        ? [{ adminBearer: [] }]
        : [{ clientBearer: [] }, { adminBearer: [] }];
  return [...bearer, session];
}

function requestHeaders(spec: RouteSpec): RequestHeaderName[] {
  const names: RequestHeaderName[] = ['X-Request-Id'];
  if (spec.path.startsWith('/api/')) names.push('Accept-Language');
  if (spec.method !== 'get' && WRITE_SCOPED.test(spec.path) && spec.auth !== 'public') names.push('Idempotency-Key');
  if (spec.produces?.etag) names.push('If-None-Match');
  if (spec.produces?.ranges) names.push('Range', 'If-Range');
  names.push(...(spec.honours ?? []));
  return [...new Set(names)];
}

function operation(spec: RouteSpec, components: SchemaComponents): JsonSchema {
  const parameters: JsonSchema[] = [];
  const pathSchema = spec.params ? objectProperties(components.convert(spec.params, 'input')).properties : {};
  for (const [, name] of spec.path.matchAll(/:(\w+)/g)) {
    parameters.push({ name, in: 'path', required: true, schema: pathSchema[name] ?? { type: 'string' } });
  }
  const query = spec.query ?? spec.documentedQuery;
  if (query) {
    const { properties, required } = objectProperties(components.convert(query, 'input'));
    for (const [name, schema] of Object.entries(properties)) parameters.push({ name, in: 'query', required: required.has(name), schema });
  }
  parameters.push(...requestHeaders(spec).map(parameterRef));
  const roles = spec.permission && PERMISSIONS[spec.permission];
  const who =
    spec.auth === 'public'
      ? 'Public.'
      : `Auth: ${spec.auth}${roles?.length ? `; roles: ${roles.join(', ')}` : ''}.${spec.feature ? ` Licensed feature: ${spec.feature} (403 FEATURE_NOT_LICENSED without it).` : ''}`;
  const bodyType = spec.accepts === 'multipart' ? 'multipart/form-data' : 'application/json';
  const requestBody = spec.requestBody
    ? {
        required: true,
        content: Object.fromEntries(
          Object.entries(spec.requestBody).map(([type, schema]) => [type, { schema: components.convert(schema, 'input') }]),
        ),
      }
    : spec.body
      ? { required: true, content: { [bodyType]: { schema: components.convert(spec.body, 'input') } } }
      : undefined;
  return {
    operationId: spec.operationId ?? fallbackOperationId(spec),
    summary: firstSentence(spec.summary),
    description: `${spec.summary}\n\n${who}`,
    tags: [tagOf(spec.path)],
    security: security(spec),
    'x-auth': spec.auth,
    ...(roles && { 'x-roles': [...roles] }),
    ...(spec.feature && { 'x-license-feature': spec.feature }),
    ...(parameters.length > 0 && { parameters }),
    ...(requestBody && { requestBody }),
    responses: { ...successResponse(spec, components), ...errorResponses(spec, components) },
  };
}

/** A summary's first clause, short enough for a list of operations. */
function firstSentence(summary: string): string {
  const first = summary.split(/(?<=[.;:])\s|\s\(|\s—\s/, 1)[0].replace(/[.;:]$/, '');
  return first.length <= 120 ? first : `${first.slice(0, 117)}…`;
}

/** For a route that names none (the operationIds test requires one): method and path in camelCase. */
function fallbackOperationId(spec: RouteSpec): string {
  return `${spec.method}${spec.path.replace(/[^A-Za-z0-9]+(\w)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`;
}

const FieldPath = {
  type: 'string',
  pattern: '^(body|query|path|header)(\\.[^.]+)*$',
  description: 'Where the value was read (`body`, `query`, `path`, `header`), then the field, e.g. `body.changes.0.licenseType`',
};

function errorSchema(codes: readonly ErrorCode[]): JsonSchema {
  return {
    type: 'object',
    required: ['success', 'error'],
    additionalProperties: false,
    properties: {
      success: { type: 'boolean', const: false },
      error: {
        type: 'object',
        required: ['code', 'message'],
        additionalProperties: false,
        properties: {
          code: { type: 'string', enum: [...codes] },
          message: { type: 'string', description: 'For people, in the Accept-Language when translated; the code is what programs read' },
          details: { $ref: '#/components/schemas/ErrorDetails' },
        },
      },
    },
  };
}

/** Every integer of the document gets its wire format (int64: ids and counts are JavaScript safe integers), in place. */
function withIntegerFormats(value: unknown): void {
  if (Array.isArray(value)) value.forEach(withIntegerFormats);
  else if (value && typeof value === 'object') {
    const record = value as JsonSchema;
    if (record.type === 'integer' && record.format === undefined) record.format = 'int64';
    Object.values(record).forEach(withIntegerFormats);
  }
}

export function buildOpenApiDocument(routes: readonly RouteSpec[], info: OpenApiInfo): JsonSchema {
  const document = describe(routes, info);
  withIntegerFormats(document);
  return document;
}

function describe(routes: readonly RouteSpec[], info: OpenApiInfo): JsonSchema {
  const components = new SchemaComponents();
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const spec of routes) {
    const path = openApiPath(spec.path);
    paths[path] ??= {};
    paths[path][spec.method] = operation(spec, components);
  }
  const statuses = [...new Set(Object.values(ERROR_STATUS))].sort();
  const used = new Set(routes.map((spec) => tagOf(spec.path)));
  return {
    openapi: '3.1.0',
    info: {
      title: 'wip API',
      version: info.version,
      description:
        'Every JSON answer is an envelope: `{success: true, data}` or `{success: false, error: {code, message, details?}}`; ' +
        '`error.details.fields[].path` says where a refused value was read (`body.x`, `query.x`, `path.x`, `header.x`). ' +
        'Lists are `{items, nextCursor}`. Rate-limited routes send `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset`; 429 `RATE_LIMITED` with `Retry-After`. ' +
        'A method a path does not answer is 405 `METHOD_NOT_ALLOWED` with `Allow`; an unknown path 404 `NOT_FOUND`.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-wip' },
    },
    servers: [{ url: '/', description: 'Production: this appliance (the origin serving this document)', 'x-internal': false }],
    tags: TAGS.filter((tag) => used.has(tag.name)).map(({ name, description }) => ({ name, description })),
    paths,
    components: {
      securitySchemes: {
        clientBearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            "A client user's access token (POST /api/client/auth/sign-in): a JWT (HS256, audience and issuer checked, short-lived, revocable) following RFC8725",
        },
        adminBearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            "A system administrator's token (POST /api/admin/auth/sign-in): a JWT (HS256, its own audience, short-lived, revocable) following RFC8725",
        },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: 'wip_session',
          description: "The console's session cookie (`__Host-wip_session` over TLS)",
        },
        csrfToken: {
          type: 'apiKey',
          in: 'header',
          name: 'X-CSRF-Token',
          description: 'With the session cookie on writes: the `wip_csrf` cookie value (also sent in the X-CSRF-Token response header)',
        },
        containerSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Signature-256',
          description: 'sha256=<hex HMAC-SHA256 of the raw body with WIP_CONTAINER_NOTIFICATION_SECRET>',
        },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'The configured metricsToken (without one: loopback callers only)' },
      },
      headers: Object.fromEntries(
        Object.entries(RESPONSE_HEADERS).map(([name, doc]: [string, HeaderDoc]) => [
          name,
          { description: doc.description, required: doc.always === true, schema: doc.schema },
        ]),
      ),
      parameters: Object.fromEntries(
        Object.entries(REQUEST_HEADERS).map(([name, doc]) => [
          name,
          { name, in: 'header', required: false, description: doc.description, schema: doc.schema },
        ]),
      ),
      schemas: {
        ErrorCode: { type: 'string', enum: ALL_CODES },
        ErrorDetails: {
          type: 'object',
          description: 'Code-specific details; `fields` with VALIDATION_ERROR',
          properties: {
            fields: {
              type: 'array',
              items: { type: 'object', required: ['path', 'message'], properties: { path: FieldPath, message: { type: 'string' } } },
            },
          },
        },
        Error: errorSchema(ALL_CODES),
        ...Object.fromEntries(statuses.map((status) => [`Error${status}`, errorSchema(codesWithStatus(status))])),
        ...components.schemas,
      },
    },
  };
}
