import type { GraphQLFieldResolver } from 'graphql';
import type { GraphQLContext } from './context';

/** A resolver of the schema: thin (parse, call the same service REST calls, present). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- one map holds resolvers of every source and argument type, as graphql-js types them
export type Resolver = GraphQLFieldResolver<any, GraphQLContext, any>;
export type ResolverMap = Record<string, Record<string, Resolver>>;

/** What each domain module (src/graphql/modules/*) brings to the schema (schema.ts joins them). */
export interface SchemaModule {
  typeDefs: string;
  resolvers: ResolverMap;
}
