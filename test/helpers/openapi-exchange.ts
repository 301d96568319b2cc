import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import type { TestResponse } from './server';

/**
 * Every exchange the test helpers make is checked against the OpenAPI document
 * the server serves (GET /api/openapi.json): the request is matched to its
 * operation (matchOperation below), and Ajv (JSON Schema 2020-12, OpenAPI 3.1's
 * dialect) validates against the document itself — one compiled schema per
 * `$ref`, shared by every operation that uses it:
 * - the answer's status must be documented for the operation (or be 405 with
 *   Allow / 404 for a method or path the document does not have);
 * - its media type must be one the document gives for that status, and a JSON
 *   body must match that status's schema (the envelope and its `data`, or the
 *   error envelope with a code of that status);
 * - the response headers the document declares must match their schemas, and
 *   the ones it marks required must be there;
 * - a request the document refuses (JSON body, query parameters) must not
 *   succeed (2xx): the document may not be stricter than the server.
 * A contradiction throws, so the test that made the request fails with it.
 * WIP_TEST_OPENAPI=off turns the check off (to tell a contradiction from another failure).
 */

type Json = Record<string, any>;

interface Exchange {
  method: string;
  url: URL;
  requestHeaders: Record<string, string>;
  requestBody: string | undefined;
  response: TestResponse;
}

interface Checker {
  /** the documented path (template) of an operation for this method and path, or undefined */
  matchOperation(verb: string, pathname: string): string | undefined;
  /** whether any documented path matches, whatever the method */
  knownPath(pathname: string): boolean;
  document: Json;
  /** validates a value against the document's schema at a JSON pointer (compiled once) */
  validate(pointer: string, value: unknown, coerce?: boolean): string | null;
}

let checker: Promise<Checker> | undefined;

/** The served document and its validators, loaded once per test process from the first server asked. */
function checkerFor(baseUrl: string): Promise<Checker> {
  checker ??= (async () => {
    const response = await fetch(`${baseUrl}/api/openapi.json`);
    const document = (await response.json()) as Json;
    const paths = compilePaths(document);
    const options = { strict: false, validateFormats: false, allErrors: false } as const;
    const plain = new Ajv2020(options);
    // query and header values are text: integers and booleans are read from it, as the server does
    const coercing = new Ajv2020({ ...options, coerceTypes: true });
    // only the components are added as a schema (the whole document takes seconds to traverse, a pause long enough
    // for pooled keep-alive sockets to be reset); an operation's schema is compiled on its own, its refs into them
    for (const ajv of [plain, coercing]) ajv.addSchema({ $id: 'openapi', components: document.components }, undefined, undefined, false);
    const compiled = new Map<string, ValidateFunction>();
    return {
      matchOperation: (verb, pathname) => paths.find((p) => p.methods.has(verb) && p.pattern.test(pathname))?.template,
      knownPath: (pathname) => paths.some((p) => p.pattern.test(pathname)),
      document,
      validate(pointer, value, coerce = false) {
        const key = `${coerce}:${pointer}`;
        let fn = compiled.get(key);
        if (!fn) {
          const ajv = coerce ? coercing : plain;
          const schema = JSON.parse(
            JSON.stringify(resolve(document, { $ref: `#${pointer}` })).replaceAll('"$ref":"#/components/', '"$ref":"openapi#/components/'),
          );
          fn = ajv.compile(coerce ? { type: 'object', properties: { value: schema } } : schema);
          compiled.set(key, fn);
        }
        const ok = coerce ? fn({ value }) : fn(value);
        return ok ? null : formatErrors(fn.errors);
      },
    };
  })();
  return checker;
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

/** The documented path of the operation an exchange of `method` on `pathname` is checked against (undefined: none). */
export async function documentedOperation(baseUrl: string, method: string, pathname: string): Promise<string | undefined> {
  return (await checkerFor(baseUrl)).matchOperation(method.toLowerCase(), pathname);
}

/** `/a/{b}` → `~1a~1{b}` (JSON pointer escaping) */
const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** A `$ref` of the document, followed (parameters and headers are referenced from components). */
function resolve(document: Json, value: Json): Json {
  let current = value;
  while (current && typeof current.$ref === 'string') {
    current = current.$ref
      .slice(2)
      .split('/')
      .map((s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((node: Json, key: string) => node[key], document);
  }
  return current;
}

async function contradictions(baseUrl: string, exchange: Exchange): Promise<string[]> {
  const { matchOperation, knownPath, document, validate } = await checkerFor(baseUrl);
  const { method, url, response } = exchange;
  const verb = method.toLowerCase();
  if (verb === 'options' || verb === 'head') return [];
  const status = response.status;
  const contentType = (response.headers.get('content-type') ?? '').split(';')[0].trim();
  const matched = matchOperation(verb, url.pathname);
  if (!matched) {
    // not an operation of the document: a known path with another method is 405 with Allow (or 404 where a
    // parameter cannot name anything); elsewhere a path only a test mounted may answer anything, but an error is the envelope
    const known = knownPath(url.pathname);
    if (known && status !== 405 && status !== 404 && status !== 400)
      return [`no operation ${method} on the documented path ${url.pathname}, and the answer is not 405`];
    if (status === 405 && !response.headers.get('allow')) return ['405 without Allow'];
    if (status < 400 || (!known && contentType !== 'application/json')) return [];
    if (contentType !== 'application/json') return [`a ${status} answered as ${contentType || '(none)'}, not the error envelope`];
    if (!document.components.schemas[`Error${status}`]) return [`status ${status} has no error schema`];
    const problem = validate(`/components/schemas/Error${status}`, response.body);
    return problem ? [`error body: ${problem}`] : [];
  }
  const opPointer = `/paths/${escape(matched)}/${verb}`;
  const op = document.paths[matched][verb] as Json;
  const declared = op.responses[String(status)] as Json | undefined;
  if (!declared) return [`status ${status} is not documented for ${op.operationId} (documented: ${Object.keys(op.responses).join(', ')})`];
  const problems: string[] = [];
  // a request the document refuses must not have succeeded
  if (status < 300) problems.push(...requestProblems(document, op, opPointer, exchange, validate));
  const content = declared.content as Json | undefined;
  if (content && response.text !== '') {
    const mediaTypes = Object.keys(content);
    // exact, else a range the document gives (`*/*` for a stored file of any type, `image/*`)
    const mediaType =
      mediaTypes.find((type) => type === contentType) ??
      mediaTypes.find((type) => type === '*/*' || (type.endsWith('/*') && contentType.startsWith(type.slice(0, -1))));
    if (!mediaType)
      problems.push(`media type ${contentType || '(none)'} is not documented for ${status} (documented: ${mediaTypes.join(', ')})`);
    else if (mediaType.includes('json') && response.body !== undefined) {
      const problem = validate(`${opPointer}/responses/${status}/content/${escape(mediaType)}/schema`, response.body);
      if (problem) problems.push(`body does not match the ${status} schema: ${problem}`);
    }
  } else if (!content && response.text !== '' && status !== 304) {
    problems.push(`a ${status} body where the document describes none`);
  }
  for (const [name, ref] of Object.entries((declared.headers ?? {}) as Record<string, Json>)) {
    const header = resolve(document, ref);
    const value = response.headers.get(name);
    if (value === null) {
      if (header.required) problems.push(`the documented header ${name} is missing`);
      continue;
    }
    const problem = validate(`/components/headers/${escape(name)}/schema`, value, true);
    if (problem) problems.push(`header ${name}: ${value}: ${problem}`);
  }
  return problems;
}

function requestProblems(document: Json, op: Json, opPointer: string, exchange: Exchange, validate: Checker['validate']): string[] {
  const problems: string[] = [];
  const query = exchange.url.searchParams;
  (op.parameters ?? []).forEach((ref: Json, index: number) => {
    const parameter = resolve(document, ref);
    if (parameter.in !== 'query') return;
    const values = query.getAll(parameter.name);
    if (values.length === 0) {
      if (parameter.required) problems.push(`the server accepted a request without the required query parameter ${parameter.name}`);
      return;
    }
    const problem = validate(`${opPointer}/parameters/${index}/schema`, values.length > 1 ? values : values[0], true);
    if (problem) problems.push(`the server accepted query ${parameter.name}=${values.join(',')}, which the document refuses: ${problem}`);
  });
  const contentType = (exchange.requestHeaders['content-type'] ?? '').split(';')[0].trim();
  const jsonBody = op.requestBody?.content?.['application/json'];
  if (jsonBody && contentType === 'application/json' && exchange.requestBody !== undefined) {
    const problem = validate(`${opPointer}/requestBody/content/application~1json/schema`, parseBody(exchange));
    if (problem) problems.push(`the server accepted a body the document refuses: ${problem}`);
  }
  return problems;
}

interface CompiledPath {
  template: string;
  pattern: RegExp;
  methods: Set<string>;
}

/**
 * The document's paths as patterns, most specific first: where `/users/me` and `/users/{id}` both match, the
 * literal segment wins (OpenAPI's rule), compared segment by segment from the left. Compiled once per process:
 * matching an exchange is then a scan of a few hundred regular expressions.
 */
function compilePaths(document: Json): CompiledPath[] {
  const isParameter = (segment: string) => segment.includes('{');
  const specificity = (a: string, b: string) => {
    const [x, y] = [a.split('/'), b.split('/')];
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      if (isParameter(x[i]) !== isParameter(y[i])) return isParameter(x[i]) ? 1 : -1;
    }
    return 0;
  };
  return Object.keys(document.paths)
    .sort(specificity)
    .map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
      methods: new Set(Object.keys(document.paths[template] as Json)),
    }));
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
