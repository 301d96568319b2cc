import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Kind, parse, type FieldNode, type FragmentDefinitionNode, type GraphQLResolveInfo, type OperationDefinitionNode } from 'graphql';
import { SelectedColumns } from '#graphql/columns';

const test = suite('SelectedColumns: the columns a place of a query selects');

const columns = () =>
  new SelectedColumns({
    all: ['id', 'client_id', 'title', 'state', 'template_id', 'created_at'] as const,
    always: ['id'],
    byField: { id: [], title: ['title'], state: ['state'], template: ['template_id'], assignees: [] },
  });

/** The resolve info of the query's first root field, as graphql-js and graphql-jit hand it to the resolver. */
function infoOf(query: string): GraphQLResolveInfo {
  const document = parse(query);
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode;
  const fragments = Object.fromEntries(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  const first = operation.selectionSet.selections[0] as FieldNode;
  const fieldNodes = operation.selectionSet.selections.filter(
    (s): s is FieldNode => s.kind === Kind.FIELD && s.name.value === first.name.value,
  );
  return { fieldNodes, fragments } as unknown as GraphQLResolveInfo;
}

test('only the columns of the selected fields, in table order, with the id', () => {
  assert.equal(columns().of(infoOf('{ jobs { edges { node { state title } } } }'), ['edges', 'node']).columns, ['id', 'title', 'state']);
  assert.equal(columns().of(infoOf('{ jobs { edges { node { id assignees { id } } } } }'), ['edges', 'node']).columns, ['id']);
});

test('through fragments, inline fragments, aliases, repeated fields, and __typename', () => {
  const info = infoOf(`
    { jobs { edges { node { __typename ...A ... on Job { name: title } } } } jobs { edges { cursor node { template { id } } } } }
    fragment A on Job { ...B }
    fragment B on Job { state }`);
  assert.equal(columns().of(info, ['edges', 'node']).columns, ['id', 'title', 'state', 'template_id']);
});

test('a field without a known column set reads every column', () => {
  const set = columns().of(infoOf('{ jobs { edges { node { title createdAt } } } }'), ['edges', 'node']);
  assert.equal(set.columns, ['id', 'client_id', 'title', 'state', 'template_id', 'created_at']);
});

test('worked out once per place of a document: the same field nodes give the same set', () => {
  const selected = columns();
  const info = infoOf('{ jobs { edges { node { title } } } }');
  const first = selected.of(info, ['edges', 'node']);
  assert.is(selected.of({ ...info }, ['edges', 'node']), first);
  assert.is(first.key, 'id,title');
});

test.run();
