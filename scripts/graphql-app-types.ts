import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import {
  buildSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  Kind,
  parse,
  typeFromAST,
  validate,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { format, resolveConfig } from 'prettier';

/**
 * The floor app's GraphQL operations typed from schema.graphql: each operation
 * the app registers in src/app/api/operations.ts (the document exactly as the
 * app sends it) is validated against schema.graphql, and its answer and
 * variables become TypeScript types in src/app/api/operation-types.ts
 * (`<Name>Query` / `<Name>Mutation` and `…Variables`, graphql-codegen's names),
 * which the app's calls use instead of types written by hand: a schema change
 * that breaks the app fails its type check. The registry is read by bundling it
 * with esbuild and running it, so documents built from shared field lists are
 * checked as sent. test/unit/app-graphql-types.test.ts fails when an operation
 * does not validate, when a named operation of the app is not registered
 * (unless listed as not typed yet), or when the file is stale.
 *   npm run graphql:types        (node dist/scripts/graphql-app-types.js)
 */

const ROOT = path.resolve(__dirname, '..', '..');
export const SCHEMA_FILE = path.join(ROOT, 'schema.graphql');
export const REGISTRY = path.join(ROOT, 'src', 'app', 'api', 'operations.ts');
export const TYPES_FILE = path.join(ROOT, 'src', 'app', 'api', 'operation-types.ts');
const APP_DIR = path.join(ROOT, 'src', 'app');

export interface Registry {
  /** operation name → its document as the app sends it */
  APP_OPERATIONS: Record<string, string>;
  /** named operations of the app whose answers are still typed by hand */
  NOT_TYPED_YET: readonly string[];
}

/** The registry, as the app's own modules build its documents (bundled, then run). */
export async function loadRegistry(entry = REGISTRY): Promise<Registry> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    loader: { '.css': 'empty', '.svg': 'empty', '.png': 'empty' },
    logLevel: 'error',
  });
  const code = result.outputFiles[0].text;
  return (await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)) as Registry;
}

const SCALARS: Record<string, string> = {
  ID: 'string',
  String: 'string',
  Int: 'number',
  Float: 'number',
  Boolean: 'boolean',
  DateTime: 'string',
  JSON: 'unknown',
};

const orNull = (type: string) => (type === 'unknown' ? type : `${type} | null`);

class Emitter {
  /** named enum and input types the operations use, emitted once each */
  readonly named = new Map<string, string>();
  constructor(private readonly schema: GraphQLSchema) {}

  private scalar(type: GraphQLNamedType): string {
    if (isScalarType(type)) return SCALARS[type.name] ?? 'unknown';
    if (isEnumType(type)) {
      if (!this.named.has(type.name))
        this.named.set(
          type.name,
          `export type ${type.name} = ${type
            .getValues()
            .map((v) => `'${v.name}'`)
            .join(' | ')};`,
        );
      return type.name;
    }
    throw new Error(`${type.name} is no leaf type`);
  }

  output(type: GraphQLOutputType, selection: SelectionSetNode | undefined, fragments: Map<string, FragmentDefinitionNode>): string {
    if (isNonNullType(type)) return this.nonNull(type.ofType, selection, fragments);
    return orNull(this.nonNull(type, selection, fragments));
  }

  private nonNull(
    type: GraphQLOutputType,
    selection: SelectionSetNode | undefined,
    fragments: Map<string, FragmentDefinitionNode>,
  ): string {
    if (isListType(type)) return `Array<${this.output(type.ofType, selection, fragments)}>`;
    const named = getNamedType(type);
    if (!selection) return this.scalar(named);
    return this.object(named as GraphQLCompositeType, selection, fragments, false);
  }

  /** A selection set on a composite type: its fields, fragments merged in (optional where on another type). */
  object(
    parent: GraphQLCompositeType,
    selection: SelectionSetNode,
    fragments: Map<string, FragmentDefinitionNode>,
    optional = false,
  ): string {
    const fields = this.fields(parent, selection, fragments, optional);
    return `{ ${[...fields].map(([key, { type, optional: opt }]) => `${key}${opt ? '?' : ''}: ${type};`).join(' ')} }`;
  }

  private fields(
    parent: GraphQLCompositeType,
    selection: SelectionSetNode,
    fragments: Map<string, FragmentDefinitionNode>,
    optional: boolean,
    into = new Map<string, { type: string; optional: boolean }>(),
  ): Map<string, { type: string; optional: boolean }> {
    for (const node of selection.selections) {
      if (node.kind === Kind.FIELD) {
        const key = node.alias?.value ?? node.name.value;
        if (node.name.value === '__typename') {
          into.set(key, { type: 'string', optional });
          continue;
        }
        if (!('getFields' in parent)) throw new Error(`${parent.name} has no fields`);
        const def = parent.getFields()[node.name.value];
        into.set(key, { type: this.output(def.type, node.selectionSet, fragments), optional });
      } else {
        const fragment = node.kind === Kind.FRAGMENT_SPREAD ? fragments.get(node.name.value)! : node;
        const on = fragment.typeCondition ? (this.schema.getType(fragment.typeCondition.name.value) as GraphQLCompositeType) : parent;
        this.fields(on, fragment.selectionSet, fragments, optional || on !== parent, into);
      }
    }
    return into;
  }

  input(type: GraphQLInputType): string {
    if (isNonNullType(type)) return this.inputNonNull(type.ofType);
    return orNull(this.inputNonNull(type));
  }

  private inputNonNull(type: GraphQLInputType): string {
    if (isListType(type)) return `Array<${this.input(type.ofType)}>`;
    if (isInputObjectType(type)) {
      if (!this.named.has(type.name)) {
        this.named.set(type.name, ''); // a recursive input type refers to itself by name
        const fields = Object.values(type.getFields()).map(
          (f) => `${f.name}${isNonNullType(f.type) && f.defaultValue === undefined ? '' : '?'}: ${this.input(f.type)};`,
        );
        this.named.set(type.name, `export type ${type.name} = { ${fields.join(' ')} };`);
      }
      return type.name;
    }
    return this.scalar(type);
  }
}

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Problems with the registry: documents that do not validate, named operations of the app not registered. */
export function registryProblems(schema: GraphQLSchema, registry: Registry, appSources: ReadonlyMap<string, string>): string[] {
  const problems: string[] = [];
  for (const [name, document] of Object.entries(registry.APP_OPERATIONS)) {
    let parsed;
    try {
      parsed = parse(document);
    } catch (error) {
      problems.push(`${name}: ${(error as Error).message}`);
      continue;
    }
    for (const error of validate(schema, parsed)) problems.push(`${name}: ${error.message}`);
    const operations = parsed.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
    if (operations.length !== 1 || operations[0].name?.value !== name)
      problems.push(`${name}: the document must hold exactly one operation, named ${name}`);
  }
  const registered = new Set([...Object.keys(registry.APP_OPERATIONS), ...registry.NOT_TYPED_YET]);
  for (const [file, text] of appSources) {
    for (const match of text.matchAll(/\b(?:query|mutation|subscription)\s+([A-Z]\w*)\s*[({]/g)) {
      if (!registered.has(match[1])) problems.push(`${file}: the operation ${match[1]} is not in src/app/api/operations.ts`);
    }
  }
  for (const name of registry.NOT_TYPED_YET)
    if (registry.APP_OPERATIONS[name]) problems.push(`${name} is typed: take it off NOT_TYPED_YET`);
  return problems;
}

/** The text of src/app/api/operation-types.ts for these operations. */
export async function operationTypes(schema: GraphQLSchema, operations: Record<string, string>): Promise<string> {
  const emitter = new Emitter(schema);
  const types: string[] = [];
  for (const name of Object.keys(operations).sort()) {
    const document = parse(operations[name]);
    const fragments = new Map(
      document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d] as const),
    );
    const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
    const root = schema.getRootType(operation.operation)!;
    const typeName = `${name}${capitalized(operation.operation)}`;
    const variables = (operation.variableDefinitions ?? []).map((v) => {
      const type = typeFromAST(schema, v.type) as GraphQLInputType;
      const required = isNonNullType(type) && !v.defaultValue;
      return `${v.variable.name.value}${required ? '' : '?'}: ${emitter.input(type)};`;
    });
    types.push(
      `/** ${operation.operation} ${name} */`,
      `export type ${typeName} = ${emitter.object(root, operation.selectionSet, fragments)};`,
      `export type ${typeName}Variables = { ${variables.join(' ')} };`,
    );
  }
  const named = [...emitter.named.keys()].sort().map((key) => emitter.named.get(key)!);
  const text = [
    '// Generated by `npm run graphql:types` (scripts/graphql-app-types.ts) from schema.graphql and the operations of',
    '// src/app/api/operations.ts: do not edit (test/unit/app-graphql-types.test.ts compares it).',
    '',
    ...named,
    '',
    ...types,
    '',
  ].join('\n');
  return format(text, { ...(await resolveConfig(TYPES_FILE)), filepath: TYPES_FILE });
}

/** The app's source files (name relative to src/app → text), where named operations are looked for. */
export function appSources(): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (/\.tsx?$/.test(entry.name) && file !== TYPES_FILE) files.set(path.relative(APP_DIR, file), fs.readFileSync(file, 'utf8'));
    }
  };
  walk(APP_DIR);
  return files;
}

export function readSchema(): GraphQLSchema {
  return buildSchema(fs.readFileSync(SCHEMA_FILE, 'utf8'));
}

async function main(): Promise<void> {
  const schema = readSchema();
  const registry = await loadRegistry();
  const problems = registryProblems(schema, registry, appSources());
  if (problems.length > 0) {
    for (const problem of problems) console.error(problem);
    process.exit(1);
  }
  fs.writeFileSync(TYPES_FILE, await operationTypes(schema, registry.APP_OPERATIONS));
  console.log(`${path.relative(ROOT, TYPES_FILE)}: ${Object.keys(registry.APP_OPERATIONS).length} operations`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
