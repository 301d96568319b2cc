import {
  assertValidSchema,
  buildSchema,
  defaultFieldResolver,
  GraphQLScalarType,
  isInterfaceType,
  isObjectType,
  Kind,
  valueFromASTUntyped,
  type GraphQLSchema,
} from 'graphql';
import { GRAPHQL_OPERATIONS } from '#policies/operations';
import { requirePermission } from '#policies/permissions';
import { modules } from './modules';
import type { GraphQLContext } from './context';
import type { SchemaModule } from './module';
import { globalId, INTEGER_NODE_TYPES } from './ids';

/**
 * The GraphQL schema, SDL first: each domain module (src/graphql/modules/*)
 * brings its type definitions and resolvers; they are joined here and the
 * resolvers attached to the built schema. Resolvers are thin — parse, call
 * the same service REST calls, present — so no rule lives here.
 */
export type { SchemaModule } from './module';

const BASE_TYPE_DEFS = /* GraphQL */ `
  "Any JSON value: a recorded field value, a diff detail."
  scalar JSON
  "An ISO-8601 UTC timestamp."
  scalar DateTime

  "An object with a global id: read any of them back with node(id) or nodes(ids)."
  interface Node {
    "the object's global id (opaque: hand it back, do not build or parse it)"
    id: ID!
  }

  "Where a page of a connection sits in its list (Relay's Cursor Connections)."
  type PageInfo {
    hasNextPage: Boolean!
    hasPreviousPage: Boolean!
    startCursor: String
    endCursor: String
  }

  type Query
`;

const JSONScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
});

const DateTimeScalar = new GraphQLScalarType({
  name: 'DateTime',
  description: 'An ISO-8601 UTC timestamp',
  serialize: (value) => value,
  parseValue: (value) => {
    if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) throw new TypeError('DateTime must be an ISO-8601 string');
    return new Date(value).toISOString();
  },
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING || Number.isNaN(Date.parse(ast.value))) throw new TypeError('DateTime must be an ISO-8601 string');
    return new Date(ast.value).toISOString();
  },
});

export function buildAppSchema(mods: SchemaModule[] = modules): GraphQLSchema {
  // an empty Mutation type is invalid: declared only once a module extends it
  const mutationRoot = mods.some((m) => /extend\s+type\s+Mutation\b/.test(m.typeDefs)) ? 'type Mutation' : '';
  const schema = buildSchema([BASE_TYPE_DEFS, mutationRoot, ...mods.map((m) => m.typeDefs)].join('\n'));
  Object.assign(schema.getType('JSON')!, {
    serialize: JSONScalar.serialize,
    parseValue: JSONScalar.parseValue,
    parseLiteral: JSONScalar.parseLiteral,
  });
  Object.assign(schema.getType('DateTime')!, {
    serialize: DateTimeScalar.serialize,
    parseValue: DateTimeScalar.parseValue,
    parseLiteral: DateTimeScalar.parseLiteral,
  });
  // a node resolved through the Node interface (node, nodes) carries its type's name
  const node = schema.getType('Node');
  if (node && isInterfaceType(node)) node.resolveType = (value: { __typename?: string }) => value.__typename;
  // the integer-keyed types: `id` is the global id of the row's (or presented object's) `id`, `databaseId` the integer
  for (const name of INTEGER_NODE_TYPES) {
    const type = schema.getType(name);
    if (!type || !isObjectType(type)) continue;
    const fields = type.getFields();
    fields.id.resolve = (value: { id: number }) => globalId(name, value.id);
    if (fields.databaseId) fields.databaseId.resolve = (value: { id: number }) => value.id;
  }
  // a connection's count is a promise (counted when asked): read by a resolver, which graphql-jit awaits — it does
  // not await a promise found in a property
  for (const type of Object.values(schema.getTypeMap())) {
    if (isObjectType(type) && type.name.endsWith('Connection') && type.getFields().totalCount) {
      type.getFields().totalCount.resolve = (connection: { totalCount: Promise<number> | number }) => connection.totalCount;
    }
  }
  for (const mod of mods) {
    for (const [typeName, fields] of Object.entries(mod.resolvers)) {
      const type = schema.getType(typeName);
      if (!type || !isObjectType(type)) throw new Error(`resolvers for unknown type ${typeName}`);
      const defined = type.getFields();
      for (const [fieldName, resolve] of Object.entries(fields)) {
        if (!defined[fieldName]) throw new Error(`resolver for unknown field ${typeName}.${fieldName}`);
        defined[fieldName].resolve = resolve;
      }
    }
  }
  guardOperations(schema);
  assertValidSchema(schema);
  return schema;
}

/**
 * Who may call each operation, from the permission table (src/policies/operations.ts): a caller without the
 * permission gets FORBIDDEN before the resolver runs, as a REST route's guard refuses before its handler. An
 * operation missing from the table stops the schema from building: a new one is a deliberate decision.
 */
function guardOperations(schema: GraphQLSchema): void {
  for (const root of [schema.getQueryType(), schema.getMutationType()]) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      if (!Object.hasOwn(GRAPHQL_OPERATIONS, field.name)) {
        throw new Error(`GraphQL operation ${field.name} has no permission in GRAPHQL_OPERATIONS (src/policies/operations.ts)`);
      }
      const permission = GRAPHQL_OPERATIONS[field.name];
      if (permission === 'any') continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args, ctx: GraphQLContext, info) => {
        requirePermission(ctx.actor.roles, permission);
        return resolve(source, args, ctx, info);
      };
    }
  }
}
