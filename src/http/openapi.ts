import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../errors';
import type { RouteSpec } from './route';

/**
 * The OpenAPI 3.1 description of the REST API, generated from the same route
 * declarations the server mounts (so it cannot name a route that is not
 * there, or miss one): paths, who may call them (auth, roles), parameters and
 * bodies from the zod schemas (zod 4's JSON Schema output, draft 2020-12 —
 * OpenAPI 3.1's dialect), the success envelope with the route's `response`
 * schema where it declares one, and the error codes each status can carry.
 */

type JsonSchema = Record<string, unknown>;

export interface OpenApiInfo {
  version: string;
  serverUrl?: string;
}

/** Request shapes: what a client sends (before coercion and transforms). */
function inputSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

function outputSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

/** `/api/x/:id` → `/api/x/{id}` */
export function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
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

const codesWithStatus = (status: number) => (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((code) => ERROR_STATUS[code] === status);

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Not authenticated',
  403: 'Not allowed',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict with the current state',
  413: 'Body too large',
  415: 'Unsupported body media type',
  422: 'Invalid input',
  429: 'Rate limited (see Retry-After)',
  500: 'Internal error',
  502: 'Upstream failed',
  503: 'Unavailable',
};

/**
 * The statuses the request chain can answer a route of this kind with (auth,
 * roles, validation, body limits, rate limits). A handler may answer other
 * codes of ERROR_STATUS; all of them are in components.schemas by status.
 */
function errorStatuses(spec: RouteSpec): number[] {
  const statuses = new Set<number>([400, 409, 429, 500, 503]);
  if (spec.auth !== 'public') [401, 403].forEach((s) => statuses.add(s));
  if (spec.path.includes(':')) statuses.add(404);
  if (spec.body || spec.query) statuses.add(422);
  if (spec.method !== 'get') [413, 415].forEach((s) => statuses.add(s));
  return [...statuses].sort();
}

function operation(spec: RouteSpec): JsonSchema {
  const parameters: JsonSchema[] = [];
  const pathSchema = spec.params ? objectProperties(inputSchema(spec.params)).properties : {};
  for (const [, name] of spec.path.matchAll(/:(\w+)/g)) {
    parameters.push({ name, in: 'path', required: true, schema: pathSchema[name!] ?? { type: 'string' } });
  }
  if (spec.query) {
    const { properties, required } = objectProperties(inputSchema(spec.query));
    for (const [name, schema] of Object.entries(properties)) parameters.push({ name, in: 'query', required: required.has(name), schema });
  }
  const data = spec.response ? outputSchema(spec.response) : {};
  const success =
    spec.envelope === false
      ? { description: 'Answered in the format the summary names (not the envelope)', content: { 'application/json': { schema: {} } } }
      : {
          description: 'Success',
          content: {
            'application/json': {
              schema: { type: 'object', required: ['success', 'data'], properties: { success: { const: true }, data } },
            },
          },
        };
  const responses: Record<string, unknown> = { [String(spec.status ?? 200)]: success };
  for (const status of errorStatuses(spec)) {
    responses[String(status)] = {
      description: `${STATUS_TEXT[status] ?? 'Error'}: ${codesWithStatus(status).join(', ')}`,
      content: { 'application/json': { schema: { $ref: `#/components/schemas/Error${status}` } } },
    };
  }
  const who =
    spec.auth === 'public'
      ? 'Public.'
      : `Auth: ${spec.auth}${spec.roles?.length ? `; roles: ${spec.roles.join(', ')}` : ''}.${spec.feature ? ` Licensed feature: ${spec.feature} (403 FEATURE_NOT_LICENSED without it).` : ''}`;
  return {
    operationId: `${spec.method}${spec.path.replace(/[^A-Za-z0-9]+(\w)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
    summary: spec.summary,
    description: who,
    tags: [tagOf(spec.path)],
    security: spec.auth === 'public' ? [] : [{ bearer: [] }, { session: [] }],
    'x-auth': spec.auth,
    ...(spec.roles && { 'x-roles': [...spec.roles] }),
    ...(spec.feature && { 'x-license-feature': spec.feature }),
    ...(parameters.length > 0 && { parameters }),
    ...(spec.body && {
      requestBody: {
        required: true,
        content: { [spec.accepts === 'multipart' ? 'multipart/form-data' : 'application/json']: { schema: inputSchema(spec.body) } },
      },
    }),
    ...(spec.accepts === 'multipart' && !spec.body && { requestBody: { required: true, content: { 'multipart/form-data': { schema: { type: 'object' } } } } }),
    responses,
  };
}

/** `/api/client/auth/sign-in` → `client/auth` */
function tagOf(path: string): string {
  const parts = path.split('/').filter(Boolean);
  if (parts[0] !== 'api') return 'operations';
  return parts.slice(1, 3).filter((p) => !p.startsWith(':')).join('/');
}

export function buildOpenApiDocument(routes: readonly RouteSpec[], info: OpenApiInfo): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const spec of routes) {
    const path = openApiPath(spec.path);
    paths[path] ??= {};
    paths[path]![spec.method] = operation(spec);
  }
  const statuses = [...new Set(Object.values(ERROR_STATUS))].sort();
  const errorSchemas = Object.fromEntries(
    statuses.map((status) => [
      `Error${status}`,
      {
        type: 'object',
        required: ['success', 'error'],
        properties: {
          success: { const: false },
          error: {
            type: 'object',
            required: ['code', 'message'],
            properties: { code: { enum: codesWithStatus(status) }, message: { type: 'string' }, details: { type: 'object' } },
          },
        },
      },
    ]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'wip API',
      version: info.version,
      description:
        'Every JSON answer is an envelope: `{success: true, data}` or `{success: false, error: {code, message, details?}}`. ' +
        'Lists are `{items, nextCursor}`. Rate limits: `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset`; 429 `RATE_LIMITED` with `Retry-After`.',
    },
    ...(info.serverUrl && { servers: [{ url: info.serverUrl }] }),
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        session: { type: 'apiKey', in: 'cookie', name: 'wip_session', description: '`__Host-wip_session` over TLS; cookie writes also need the X-CSRF-Token header' },
      },
      schemas: errorSchemas,
    },
  };
}
