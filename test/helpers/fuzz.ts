import Ajv2020 from 'ajv/dist/2020';
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  parse,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';

// Bad-input generators driven by the API descriptions: the OpenAPI document
// for REST, the GraphQL schema for GraphQL. Every generated case violates the
// description (checked against the schema where one exists), so a 2xx answer
// is a finding too. Random choices come from a seeded generator.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = Record<string, any>;
export type Random = () => number;

/** One request. `raw` is sent as latin1 bytes (so it can carry invalid UTF-8); `json` is serialized. */
export interface FuzzCase {
  api: 'rest' | 'graphql';
  operation: string;
  method: string;
  path: string;
  /** who sends it: the route's own kind of principal */
  principal: 'admin' | 'user' | 'none';
  contentType?: string;
  json?: Json;
  raw?: string;
  what: string;
}

export const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)];

/** Hostile fragments: SQL, script, traversal, format strings, control and odd Unicode characters. */
export const FRAGMENTS = [
  "' OR '1'='1",
  '1; DROP TABLE users;--',
  '" UNION SELECT sqlite_version()--',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '{{7*7}}${7*7}',
  '%s%s%s%n',
  '\u0000\u0001\u001f',
  '\u202e\ufeff\ud800',
  '𝕏'.repeat(50),
  'javascript:alert(1)',
];

const HUGE_STRING = 'A'.repeat(70_000);

/** Whether the bytes parse as JSON (as the server decodes them: UTF-8). */
function isJson(raw: string): boolean {
  try {
    JSON.parse(Buffer.from(raw, 'latin1').toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

function deepArray(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

function deepObject(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

/** A value the schema accepts, as simple as possible (the base that one mutation then breaks). */
export function sample(schema: Schema | undefined, depth = 0): Json {
  if (!schema || depth > 6) return null;
  if ('const' in schema) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return sample(branches[0], depth + 1);
  if (schema.allOf) return sample(schema.allOf[0], depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    case 'integer':
    case 'number':
      return Math.max(1, Math.ceil(schema.minimum ?? (schema.exclusiveMinimum ?? 0) + 1));
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => sample(schema.items, depth + 1));
    case 'null':
      return null;
    default: {
      if (!schema.properties) return {};
      const out: Record<string, Json> = {};
      for (const key of schema.required ?? []) out[key] = sample(schema.properties[key], depth + 1);
      return out;
    }
  }
}

/** Values of the wrong shape, for a field declared with `schema`. */
function wrongValues(schema: Schema | undefined): Json[] {
  const common: Json[] = [null, { $gt: '' }, ['a', 1, null], 1e308, -1, 0, true, HUGE_STRING, ...FRAGMENTS];
  const type = schema?.type;
  if (type === 'integer') return [...common, '1', 1.5, 9007199254740993, -9007199254740993];
  if (type === 'string') return [...common, 12345, {}, []];
  return common;
}

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
const validators = new WeakMap<object, ReturnType<typeof ajv.compile>>();
/** Whether the schema accepts the value (no schema: anything goes). */
export function accepts(schema: Schema | undefined, value: unknown): boolean {
  if (!schema) return true;
  let validate = validators.get(schema);
  if (!validate) validators.set(schema, (validate = ajv.compile(schema)));
  return validate(value) as boolean;
}

interface RestOperation {
  method: string;
  path: string;
  auth: string;
  pathParams: string[];
  query: { name: string; schema: Schema }[];
  body?: Schema;
  multipart: boolean;
}

/** Every operation of the OpenAPI document. */
export function restOperations(doc: any): RestOperation[] {
  const out: RestOperation[] = [];
  for (const [path, ops] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      const params: any[] = op.parameters ?? [];
      const content = op.requestBody?.content ?? {};
      out.push({
        method: method.toUpperCase(),
        path,
        auth: op['x-auth'] ?? 'public',
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        query: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema })),
        body: content['application/json']?.schema,
        multipart: Boolean(content['multipart/form-data']),
      });
    }
  }
  return out;
}

/** Percent-encoded; a lone surrogate (which encodeURIComponent refuses) as its invalid UTF-8 bytes. */
const encodeQuery = (value: string) => {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
};

const BODY_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];
const PATH_ATTACKS = [
  '..%2f..%2f..%2fetc%2fpasswd',
  '%2e%2e',
  '..',
  '-1',
  '0',
  '1e3',
  '99999999999999999999',
  '%00',
  '%ff%fe',
  'x'.repeat(2000),
  "1'%20OR%20'1'='1",
  '%3Cscript%3E',
];
const ODD_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'text/html; charset=utf-7',
  'image/png',
  'application/json-seq',
  'multipart/mixed; boundary=x',
];

/** One bad request for `op`, or undefined when the operation takes no input at all (nothing to get wrong). */
export function badRestCase(random: Random, op: RestOperation, bodyLimit: number): FuzzCase | undefined {
  const principal: FuzzCase['principal'] = op.auth === 'admin' ? 'admin' : op.auth === 'public' ? 'none' : 'user';
  const fill = (value: (name: string) => string) => op.path.replace(/\{(\w+)\}/g, (_, name: string) => value(name));
  const base = { api: 'rest' as const, operation: `${op.method} ${op.path}`, method: op.method, principal };
  const strategies: (() => FuzzCase | undefined)[] = [];
  if (op.pathParams.length > 0) {
    strategies.push(() => {
      const path = fill(() => pick(random, PATH_ATTACKS));
      // fetch resolves dot segments ('..', '%2e%2e') before sending: that request would be another route's, not an attack on this one
      if (new URL(path, 'http://127.0.0.1').pathname !== path) return undefined;
      return { ...base, path, what: 'path parameter attack' };
    });
  }
  const typedQuery = op.query.filter((q) => q.schema?.type === 'integer' || q.schema?.enum || q.schema?.maxLength);
  if (typedQuery.length > 0) {
    strategies.push(() => {
      const q = pick(random, typedQuery);
      const candidates = [...FRAGMENTS, 'abc', '-1', '1e400', 'x'.repeat(5000), '%ff%fe', '[]', '{}'].filter(
        (v) => !accepts(q.schema, v) && !accepts(q.schema, Number(v)),
      );
      if (candidates.length === 0) return undefined;
      const value = pick(random, candidates);
      return { ...base, path: `${fill(() => '1')}?${q.name}=${encodeQuery(value)}`, what: `query ${q.name} of the wrong shape` };
    });
  }
  if (BODY_METHODS.includes(op.method)) {
    const path = fill(() => '1');
    const valid = op.body ? sample(op.body) : {};
    if (!op.multipart) {
      strategies.push(() => ({
        ...base,
        path,
        contentType: pick(random, ODD_TYPES),
        raw: JSON.stringify(valid),
        what: 'unusual content type',
      }));
      strategies.push(() => {
        const text = JSON.stringify(valid);
        const cut = 1 + Math.floor(random() * (text.length - 1));
        const broken = pick(random, [
          text.slice(0, cut),
          `${text}}`,
          text.replace(/[{"]/, '\xff\xfe'),
          '\xef\xbb\xbf' + text.slice(1),
          '{"a":\xc3\x28}',
          `${text},${text}`,
        ]);
        return isJson(broken) ? undefined : { ...base, path, raw: broken, what: 'malformed JSON' };
      });
      if (op.body?.type === 'object') {
        // valid JSON nested far deeper than any body (the body itself, or a field that takes no arrays): refused, not recursed into
        const noArrays = Object.entries<Schema>(op.body.properties ?? {}).filter(([, schema]) => !accepts(schema, []));
        strategies.push(() => ({ ...base, path, raw: deepArray(100_000), what: 'deeply nested body' }));
        if (noArrays.length > 0)
          strategies.push(() => ({
            ...base,
            path,
            raw: `{"${pick(random, noArrays)[0]}":${deepArray(50_000)}}`,
            what: 'deeply nested field',
          }));
      }
      strategies.push(() => ({ ...base, path, raw: JSON.stringify({ pad: 'x'.repeat(bodyLimit) }), what: 'oversize body' }));
    }
    if (op.multipart) {
      strategies.push(() => ({
        ...base,
        path,
        contentType: pick(random, ['multipart/form-data', 'multipart/form-data; boundary=', 'multipart/form-data; boundary=b']),
        raw: pick(random, [
          '',
          '--b\r\n',
          '--b\r\nContent-Disposition: form-data\r\n\r\nx\r\n--b--',
          '--x\r\n\r\n--x--',
          '--b\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc',
          '--b\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n{bad json\r\n--b--\r\n',
        ]),
        what: 'malformed multipart',
      }));
    }
    if (op.body && op.body.properties) {
      const props = Object.keys(op.body.properties);
      strategies.push(() => {
        // one field of the wrong shape, hostile values in every other string field, an extra field
        const body = { ...(valid as Record<string, Json>), __proto__x: FRAGMENTS[0] } as Record<string, Json>;
        for (const key of props) if (typeof body[key] === 'string' && random() < 0.5) body[key] = pick(random, FRAGMENTS);
        const key = pick(random, props);
        const wrong = wrongValues(op.body!.properties[key]).filter((v) => !accepts(op.body!.properties[key], v));
        if (wrong.length === 0) return undefined;
        body[key] = pick(random, wrong);
        return accepts(op.body, body) ? undefined : { ...base, path, json: body, what: `field ${key} of the wrong shape` };
      });
      const required: string[] = op.body.required ?? [];
      if (required.length > 0) {
        strategies.push(() => {
          const body = { ...(valid as Record<string, Json>) };
          delete body[pick(random, required)];
          return { ...base, path, json: body, what: 'a required field missing' };
        });
        strategies.push(() => {
          // duplicate keys: the last one (what JSON.parse keeps) is of the wrong shape
          const key = pick(random, required);
          const text = JSON.stringify(valid).replace(
            /}$/,
            `,"${key}":${pick(random, [deepObject(2000), '[]', '{"$ne":1}', '1e400', 'null'])}}`,
          );
          return accepts(op.body, JSON.parse(text)) ? undefined : { ...base, path, raw: text, what: `duplicate key ${key}` };
        });
      }
    }
  }
  for (let attempt = 0; attempt < 5 && strategies.length > 0; attempt++) {
    const made = pick(random, strategies)();
    if (made) return made;
  }
  return undefined;
}

// ---------- GraphQL ----------

interface GraphQLOperation {
  kind: 'query' | 'mutation';
  field: GraphQLField<unknown, unknown>;
}

export function graphqlOperations(schema: GraphQLSchema): GraphQLOperation[] {
  const fields = (kind: 'query' | 'mutation') =>
    Object.values((kind === 'query' ? schema.getQueryType() : schema.getMutationType())?.getFields() ?? {}).map((field) => ({
      kind,
      field,
    }));
  return [...fields('query'), ...fields('mutation')];
}

/** A selection for a field's type: `__typename` for objects, nothing for scalars. */
const selection = (type: GraphQLInputType | any) =>
  isObjectType(getNamedType(type)) || (!isScalarType(getNamedType(type)) && !isEnumType(getNamedType(type))) ? ' { __typename }' : '';

/** A literal the argument's type accepts. */
export function validLiteral(type: GraphQLInputType, depth = 0): string {
  if (isNonNullType(type)) return validLiteral(type.ofType, depth);
  if (isListType(type)) return '[]';
  if (isEnumType(type)) return type.getValues()[0].name;
  if (isInputObjectType(type)) {
    if (depth > 4) return '{}';
    const required = Object.values(type.getFields()).filter((f) => isNonNullType(f.type) && f.defaultValue === undefined);
    return `{ ${required.map((f) => `${f.name}: ${validLiteral(f.type, depth + 1)}`).join(', ')} }`;
  }
  switch (type.name) {
    case 'Int':
    case 'Float':
      return '1';
    case 'Boolean':
      return 'true';
    case 'DateTime':
      return '"2026-01-01T00:00:00Z"';
    case 'JSON':
      return '{}';
    default:
      return '"x"';
  }
}

/** A literal or variable value the argument's type refuses. */
function wrongFor(random: Random, type: GraphQLInputType): string | undefined {
  const named = getNullableType(type);
  if (isListType(named)) return pick(random, ['"x"', '{a: 1}', '[[[[1]]]]']);
  if (isEnumType(named)) return pick(random, ['"ACTIVE"', 'NOT_A_VALUE', '1']);
  if (isInputObjectType(named)) return pick(random, ['"x"', '1', '{ noSuchField: 1 }', '[1]']);
  switch ((named as { name: string }).name) {
    case 'Int':
      return pick(random, ['99999999999', '-99999999999', '1.5', '"1"', JSON.stringify(pick(random, FRAGMENTS)), 'true', '[1]']);
    case 'Float':
      return pick(random, ['"1"', 'true', '{a: 1}']);
    case 'Boolean':
      return pick(random, ['"true"', '1', 'null_']);
    case 'DateTime':
      return pick(random, ['"yesterday"', '"2026-13-45T99:00:00Z"', '1', JSON.stringify(pick(random, FRAGMENTS))]);
    case 'JSON':
      return undefined; // any JSON value is valid
    case 'ID':
      // an ID literal may be a string or an integer: neither is wrong for the type (a malformed id is the resolver's VALIDATION_ERROR)
      return pick(random, ['1.5', 'true', '{a: 1}', '[1]']);
    default:
      return pick(random, ['1', 'true', '{a: 1}', '[1]']);
  }
}

/** A variable value the argument's type refuses (JSON arguments take anything: none). */
function wrongVariable(random: Random, type: GraphQLInputType): Json | undefined {
  const named = getNullableType(type);
  if (isListType(named)) return pick<Json>(random, [{ a: 1 }, { deep: JSON.parse(deepObject(500)) }]);
  if (isEnumType(named)) return pick(random, ['NOT_A_VALUE', 1, pick(random, FRAGMENTS)]);
  if (isInputObjectType(named)) return pick(random, ['x', 1, [1], { noSuchField: JSON.parse(deepObject(500)) }]);
  switch ((named as { name: string }).name) {
    case 'Int':
      return pick(random, ['x', 99999999999, 1.5, true, {}, pick(random, FRAGMENTS)]);
    case 'Float':
      return pick(random, ['x', true, {}]);
    case 'Boolean':
      return pick(random, ['x', 1]);
    case 'DateTime':
      return pick(random, ['yesterday', 1, pick(random, FRAGMENTS)]);
    case 'JSON':
      return undefined;
    case 'ID':
      return pick<Json>(random, [1.5, true, { a: HUGE_STRING }, [1, 2]]);
    default:
      return pick(random, [1, true, { a: HUGE_STRING }, [1, 2]]);
  }
}

/** Whether the text is a syntactically valid GraphQL document (a cut inside a string literal can leave it valid). */
function parses(text: string): boolean {
  try {
    parse(text);
    return true;
  } catch {
    return false;
  }
}

function call(op: GraphQLOperation, args: string[], alias = ''): string {
  return `${alias}${op.field.name}${args.length ? `(${args.join(', ')})` : ''}${selection(op.field.type)}`;
}

function deepSelection(type: any, depth: number): string {
  // real nesting where the types allow it, unknown fields below: either way past the depth limit
  const named = getNamedType(type);
  if (depth === 0) return '';
  const next = isObjectType(named)
    ? Object.values(named.getFields()).find((f) => isObjectType(getNamedType(f.type)) && f.args.every((a) => !isNonNullType(a.type)))
    : undefined;
  return next ? ` { ${next.name}${deepSelection(next.type, depth - 1)} }` : ` { nested${deepSelection(undefined, depth - 1)} }`;
}

/** One bad GraphQL request for `op`. */
export function badGraphQLCase(random: Random, op: GraphQLOperation): FuzzCase {
  const args = op.field.args;
  const validArgs = args.filter((a) => isNonNullType(a.type)).map((a) => `${a.name}: ${validLiteral(a.type)}`);
  const keyword = op.kind === 'mutation' ? 'mutation' : 'query';
  const base = {
    api: 'graphql' as const,
    operation: `${keyword} ${op.field.name}`,
    method: 'POST',
    path: '/api/client/graphql',
    principal: 'user' as const,
  };
  const strategies: (() => FuzzCase | undefined)[] = [
    () => {
      const wrongs = args.map((a) => ({ a, wrong: wrongFor(random, a.type) })).filter((x) => x.wrong !== undefined);
      if (wrongs.length === 0) return undefined;
      const { a, wrong } = pick(random, wrongs);
      const rest = validArgs.filter((v) => !v.startsWith(`${a.name}:`));
      return {
        ...base,
        json: { query: `${keyword} { ${call(op, [...rest, `${a.name}: ${wrong}`])} }` },
        what: `argument ${a.name} of the wrong type`,
      };
    },
    () => {
      const wrongs = args.map((a) => ({ a, wrong: wrongVariable(random, a.type) })).filter((x) => x.wrong !== undefined);
      if (wrongs.length === 0) return undefined;
      const { a, wrong } = pick(random, wrongs);
      const query = `${keyword}($v: ${a.type.toString()}) { ${call(op, [...validArgs.filter((v) => !v.startsWith(`${a.name}:`)), `${a.name}: $v`])} }`;
      return { ...base, json: { query, variables: { v: wrong! } }, what: `variable ${a.name} of the wrong type` };
    },
    () => {
      const required = args.filter((a) => isNonNullType(a.type));
      if (required.length === 0) return undefined;
      const missing = pick(random, required);
      return {
        ...base,
        json: {
          query: `${keyword} { ${call(
            op,
            validArgs.filter((v) => !v.startsWith(`${missing.name}:`)),
          )} }`,
        },
        what: `required argument ${missing.name} missing`,
      };
    },
    () => ({
      ...base,
      json: {
        query: `${keyword} { ${op.field.name}${args.length ? `(${validArgs.join(', ')})` : ''}${deepSelection(op.field.type, 40)} }`,
      },
      what: 'nested past the depth limit',
    }),
    // (drawn less often: each costs the server a parse of 10 000 fields)
    () =>
      random() < 0.9
        ? undefined
        : {
            ...base,
            json: { query: `${keyword} { ${Array.from({ length: 10_050 }, (_, i) => call(op, validArgs, `a${i}: `)).join(' ')} }` },
            what: 'aliased more than the node limit',
          },
    () => ({
      ...base,
      json: { query: `query { ${Array.from({ length: 1000 }, (_, i) => `f${i}`).join(' ')} }` },
      what: 'wide selection of unknown fields',
    }),
    () => {
      const text = `${keyword} { ${call(op, validArgs)} }`;
      const cut = Math.floor(random() * (text.length - 1));
      const broken = pick(random, [
        text.slice(0, cut),
        text.slice(0, cut) + '{{{' + text.slice(cut),
        text.replace('{', '(').replace(/}$/, ''),
        text + '}}}',
      ]);
      return parses(broken) ? undefined : { ...base, json: { query: broken }, what: 'syntactically broken' };
    },
    () => ({
      ...base,
      json: pick(random, [
        { query: 1 },
        { query: null },
        { query: '{ __typename }', variables: 'x' },
        { query: ['x'] },
        { variables: {} },
        [],
        'query',
      ]) as Json,
      what: 'malformed GraphQL-over-HTTP request',
    }),
    () => ({
      ...base,
      json: { query: `${keyword} { ${op.field.name}${validArgs.length ? `(${validArgs.join(', ')})` : ''} { noSuchField } }` },
      what: 'unknown field in the selection',
    }),
  ];
  for (;;) {
    const made = pick(random, strategies)();
    if (made) return made;
  }
}

/** Smaller variants of a case (for shrinking): parts of the JSON removed, strings shortened, raw bodies cut. */
export function* shrinkCandidates(c: FuzzCase): Generator<FuzzCase> {
  if (c.raw !== undefined && c.raw.length > 1) {
    yield { ...c, raw: c.raw.slice(0, Math.floor(c.raw.length / 2)) };
    yield { ...c, raw: c.raw.slice(Math.floor(c.raw.length / 2)) };
  }
  if (c.json !== undefined) for (const json of smallerJson(c.json)) yield { ...c, json };
}

function* smallerJson(value: Json): Generator<Json> {
  if (typeof value === 'string' && value.length > 1) yield value.slice(0, Math.floor(value.length / 2));
  if (Array.isArray(value)) {
    if (value.length > 0) yield value.slice(0, Math.floor(value.length / 2));
    for (let i = 0; i < value.length && i < 20; i++)
      for (const smaller of smallerJson(value[i])) yield value.map((v, j) => (j === i ? smaller : v));
  } else if (value && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      const { [key]: removed, ...rest } = value;
      yield rest;
      for (const smaller of smallerJson(removed)) yield { ...value, [key]: smaller };
    }
  }
}
