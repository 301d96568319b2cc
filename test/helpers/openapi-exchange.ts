import OpenAPIBackend from 'openapi-backend';
import Ajv2020 from 'ajv/dist/2020';
import type { TestResponse } from './server';

/**
 * Every exchange the test helpers make is checked against the OpenAPI document
 * the server serves (GET /api/openapi.json), with openapi-backend (its Ajv
 * validators for requests, responses and response headers):
 * - the answer's status must be documented for the operation (or be 405 with
 *   Allow / 404 for a path the document does not have);
 * - its media type must be one the document gives for that status, and a JSON
 *   body must match that status's schema (the envelope and its `data`, or the
 *   error envelope with a code of that status);
 * - the response headers the document declares must match their schemas;
 * - a request the document calls invalid must not succeed (2xx): the document
 *   may not be stricter than the server.
 * A contradiction throws, so the test that made the request fails with it.
 *
 * Operations whose success `data` the document leaves untyped (`{}`) are
 * checked for their status and error bodies only — see README (API description).
 */

type Json = Record<string, any>;

interface Exchange {
  method: string;
  url: URL;
  requestHeaders: Record<string, string>;
  requestBody: string | undefined;
  response: TestResponse;
}

let backend: Promise<{ api: OpenAPIBackend; document: Json }> | undefined;

/** The served document and its validators, loaded once per test process from the first server asked. */
function validatorFor(baseUrl: string): Promise<{ api: OpenAPIBackend; document: Json }> {
  backend ??= (async () => {
    const response = await fetch(`${baseUrl}/api/openapi.json`);
    const document = (await response.json()) as Json;
    const api = new OpenAPIBackend({
      definition: structuredClone(document) as never,
      validate: true,
      // quick: no 3.0 check of the 3.1 document (test/http/openapi.test.ts validates it as 3.1); validators compiled on first use
      quick: true,
      strict: false,
      ajvOpts: { strict: false, validateFormats: false },
      // the document's schemas are JSON Schema 2020-12 (OpenAPI 3.1's dialect), not Ajv's default draft-07
      customizeAjv: (_draft07, options) => new Ajv2020(options) as never,
    });
    await api.init();
    return { api, document };
  })();
  return backend;
}

const SKIP = process.env.WIP_TEST_OPENAPI === 'off';

export async function checkExchange(baseUrl: string, exchange: Exchange): Promise<void> {
  if (SKIP) return;
  const problems = await contradictions(baseUrl, exchange);
  if (problems.length > 0) {
    const { method, url, response } = exchange;
    throw new Error(
      `OpenAPI contradiction on ${method} ${url.pathname}${url.search} → ${response.status}:\n- ${problems.join('\n- ')}\nbody: ${response.text.slice(0, 600)}`,
    );
  }
}

async function contradictions(baseUrl: string, exchange: Exchange): Promise<string[]> {
  const { api, document } = await validatorFor(baseUrl);
  const { method, url, response } = exchange;
  const verb = method.toLowerCase();
  if (verb === 'options' || verb === 'head') return [];
  const query = Object.fromEntries([...url.searchParams.keys()].map((key) => [key, url.searchParams.getAll(key).length > 1 ? url.searchParams.getAll(key) : url.searchParams.get(key)!]));
  const request = { method: verb, path: url.pathname, query, headers: exchange.requestHeaders, body: parseBody(exchange) };
  const operation = api.matchOperation(request as never);
  const status = response.status;
  const contentType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
  if (!operation) {
    // not an operation of the document: a known path with another method is 405 with Allow (or 404 where a
    // parameter cannot name anything); elsewhere a path only a test mounted may answer anything, but an error is the envelope
    const known = Object.keys(document.paths).some((p) => pathMatches(p, url.pathname));
    if (known && status !== 405 && status !== 404 && status !== 400) return [`no operation ${method} on the documented path ${url.pathname}, and the answer is not 405`];
    if (status === 405 && !response.headers.get('allow')) return ['405 without Allow'];
    return status >= 400 && (known || contentType === 'application/json') ? errorBodyProblems(document, status, response, contentType) : [];
  }
  const op = operation as Json;
  const responses = op.responses as Json;
  const declared = responses[String(status)];
  const problems: string[] = [];
  if (!declared) return [`status ${status} is not documented for ${op.operationId} (documented: ${Object.keys(responses).join(', ')})`];
  // a request the document refuses must not have succeeded
  if (status < 300 && !/multipart/.test(exchange.requestHeaders['content-type'] ?? '')) {
    const valid = api.validateRequest(request as never, operation);
    if (!valid.valid) problems.push(`the server accepted a request the document refuses: ${formatErrors(valid.errors)}`);
  }
  const content = declared.content as Json | undefined;
  if (content && response.text !== '') {
    const mediaTypes = Object.keys(content);
    const matched = mediaTypes.find((type) => type === contentType || (type.endsWith('/*') && contentType.startsWith(type.slice(0, -1))));
    if (!matched) problems.push(`media type ${contentType || '(none)'} is not documented for ${status} (documented: ${mediaTypes.join(', ')})`);
    else if (matched.includes('json') && response.body !== undefined) {
      const result = api.validateResponse(response.body, operation, status);
      if (!result.valid) problems.push(`body does not match the ${status} schema: ${formatErrors(result.errors)}`);
    }
  } else if (!content && response.text !== '' && status !== 304) {
    problems.push(`a ${status} body where the document describes none`);
  }
  const headers: Json = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  // openapi-backend checks the schema of the declared headers present ('any'); `required: true` ones must be there
  const headerResult = api.validateResponseHeaders(headers, operation, { statusCode: status, setMatchType: 'any' as never });
  if (!headerResult.valid) problems.push(`headers: ${formatErrors(headerResult.errors)}`);
  for (const [name, header] of Object.entries((declared.headers ?? {}) as Record<string, Json>)) {
    if (header.required && headers[name.toLowerCase()] === undefined) problems.push(`the documented header ${name} is missing`);
  }
  return problems;
}

let errorAjv: Ajv2020 | undefined;

function errorBodyProblems(document: Json, status: number, response: TestResponse, contentType: string): string[] {
  if (contentType !== 'application/json') return [`a ${status} answered as ${contentType || '(none)'}, not the error envelope`];
  const schema = document.components.schemas[`Error${status}`];
  if (!schema) return [`status ${status} has no error schema`];
  errorAjv ??= new Ajv2020({ strict: false, validateFormats: false });
  const validate = errorAjv.compile({ ...schema, components: document.components });
  return validate(response.body) ? [] : [`error body: ${formatErrors(validate.errors as never)}`];
}

function pathMatches(template: string, path: string): boolean {
  const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+').replace(/\{[^}]+\}/g, '[^/]+')}$`);
  return pattern.test(path);
}

function parseBody(exchange: Exchange): unknown {
  if (exchange.requestBody === undefined) return undefined;
  try {
    return JSON.parse(exchange.requestBody);
  } catch {
    return exchange.requestBody;
  }
}

function formatErrors(errors: unknown): string {
  return JSON.stringify(errors ?? []).slice(0, 1500);
}
