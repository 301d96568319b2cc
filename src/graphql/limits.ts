import {
  GraphQLError,
  Kind,
  validate,
  type ASTVisitor,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';
import { createComplexityRule, type ComplexityEstimator } from 'graphql-query-complexity';

/**
 * Oversize queries are refused before execution with QUERY_TOO_COMPLEX: a
 * depth limit (nesting, fragments expanded) and a cost limit where a list
 * field costs its `first` (default page size) times what it selects.
 */
export const MAX_DEPTH = 12;
export const MAX_COST = 50_000;
const DEFAULT_LIST_SIZE = 50;
export const MAX_NODES = 10_000;

const tooComplex = (message: string, details: Record<string, number>) =>
  new GraphQLError(message, { extensions: { code: 'QUERY_TOO_COMPLEX', details } });

/**
 * Lists multiply the cost of their selection: a connection its page size (`first` or `last`, else the default
 * page), `nodes(ids)` the number of ids.
 */
const listAwareEstimator: ComplexityEstimator = ({ field, args, childComplexity }) => {
  const paged = field.args.some((arg) => arg.name === 'first');
  const size =
    typeof args.first === 'number'
      ? args.first
      : typeof args.last === 'number'
        ? args.last
        : Array.isArray(args.ids)
          ? args.ids.length
          : paged
            ? DEFAULT_LIST_SIZE
            : 1;
  return 1 + Math.max(1, size) * childComplexity;
};

export function complexityRules(variables: Record<string, unknown> | undefined) {
  return [depthLimit(MAX_DEPTH), costLimit(variables)];
}

/** The cost rule alone: what a cached document is checked against again when its variables can change its cost. */
export function costLimit(variables: Record<string, unknown> | undefined) {
  return createComplexityRule({
    maximumComplexity: MAX_COST,
    // past this many nodes the library throws instead of reporting: see validateWithinLimits
    maxQueryNodes: MAX_NODES,
    variables: variables ?? {},
    estimators: [listAwareEstimator],
    createError: (max, actual) => tooComplex(`The query costs ${actual}, more than the allowed ${max}`, { max, actual }),
  });
}

export function depthLimit(max: number) {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of context.getDocument().definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    const depthOf = (set: SelectionSetNode | undefined, visiting: Set<string>): number => {
      if (!set) return 0;
      let deepest = 0;
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) {
          deepest = Math.max(deepest, selection.name.value.startsWith('__') ? 0 : 1 + depthOf(selection.selectionSet, visiting));
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          deepest = Math.max(deepest, depthOf(selection.selectionSet, visiting));
        } else {
          const name = selection.name.value;
          const fragment = fragments.get(name);
          // a fragment cycle is reported by graphql's own NoFragmentCycles rule
          if (!fragment || visiting.has(name)) continue;
          deepest = Math.max(deepest, depthOf(fragment.selectionSet, new Set([...visiting, name])));
        }
        if (deepest > max) return deepest;
      }
      return deepest;
    };
    return {
      OperationDefinition(node) {
        const depth = depthOf(node.selectionSet, new Set());
        if (depth > max)
          context.reportError(tooComplex(`The query is nested ${depth} levels deep, more than the allowed ${max}`, { max, actual: depth }));
      },
    };
  };
}

/**
 * graphql's validate, except that a rule throwing (graphql-query-complexity
 * does past maxQueryNodes) becomes a QUERY_TOO_COMPLEX error instead of a 500.
 */
export const validateWithinLimits: typeof validate = (schema, document, rules, options, typeInfo) => {
  try {
    return validate(schema, document, rules, options, typeInfo);
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
    return [tooComplex(`The query has more than ${MAX_NODES} fields`, { max: MAX_NODES })];
  }
};
