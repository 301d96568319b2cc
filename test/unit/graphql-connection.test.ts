import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GraphQLError } from 'graphql';
import { connectionFromArray, pageInput } from '#graphql/connection';
import { decodeGlobalId } from '#graphql/ids';
import { formatGraphQLError } from '#graphql/errors';
import { type AppError, tokenExpired } from '#errors';
import { encodeCursor } from '#db/pagination';

const test = suite('GraphQL connections, global ids, error codes');

const rows = [1, 2, 3, 5, 8, 13].map((id) => ({ id }));
const ids = (c: ReturnType<typeof connectionFromArray>) => c.nodes.map((n: any) => n.id);
const info = (c: ReturnType<typeof connectionFromArray>) => [c.pageInfo.hasPreviousPage, c.pageInfo.hasNextPage];

test('a list held whole pages forward and backward with exact pageInfo and the count of all', () => {
  const first = connectionFromArray(rows, { first: 2 }, (r) => r);
  assert.equal([ids(first), info(first), first.totalCount], [[1, 2], [false, true], 6]);
  const next = connectionFromArray(rows, { first: 3, after: first.pageInfo.endCursor }, (r) => r);
  assert.equal(
    [ids(next), info(next)],
    [
      [3, 5, 8],
      [true, true],
    ],
  );
  const last = connectionFromArray(rows, { last: 2 }, (r) => r);
  assert.equal(
    [ids(last), info(last)],
    [
      [8, 13],
      [true, false],
    ],
  );
  const before = connectionFromArray(rows, { last: 10, before: last.pageInfo.startCursor }, (r) => r);
  assert.equal(
    [ids(before), info(before)],
    [
      [1, 2, 3, 5],
      [false, true],
    ],
  );
  // a cursor between ids (its row deleted) still places the page
  assert.equal(ids(connectionFromArray(rows, { first: 2, after: encodeCursor(4) }, (r) => r)), [5, 8]);
  assert.equal(ids(connectionFromArray([], { last: 2 }, (r) => r)), []);
});

test('page arguments: one direction, 1–200, cursors checked before any read', () => {
  assert.equal(pageInput({}), { limit: 50, cursor: undefined });
  assert.equal(pageInput({ last: 5 }), { limit: 5, before: '' });
  const code = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      return (error as AppError).code;
    }
    return 'none';
  };
  assert.is(
    code(() => pageInput({ first: 1, last: 1 })),
    'VALIDATION_ERROR',
  );
  assert.is(
    code(() => pageInput({ after: encodeCursor(1), before: encodeCursor(3) })),
    'VALIDATION_ERROR',
  );
  assert.is(
    code(() => pageInput({ last: 0 })),
    'VALIDATION_ERROR',
  );
  assert.is(
    code(() => pageInput({ before: 'garbage' })),
    'BAD_REQUEST',
  );
});

test('global ids: the types of the schema, database ids and keys well formed, anything else undefined', () => {
  assert.equal(decodeGlobalId('Template:12'), { type: 'Template', id: 12 });
  assert.equal(decodeGlobalId('Step:34:step_9f0a'), { type: 'Step', versionId: 34, key: 'step_9f0a' });
  assert.equal(decodeGlobalId('Tutorial:welcome'), { type: 'Tutorial', key: 'welcome' });
  for (const bad of [
    'Template:012',
    'Template:12:1',
    'Step:34',
    'Step:x:y',
    'Client:1',
    'template:1',
    12,
    null,
    'Section:1:a b',
    'Job:1e3',
  ]) {
    assert.is(decodeGlobalId(bad), undefined, String(bad));
  }
});

test('an error raised while a query runs keeps its code in extensions: TOKEN_EXPIRED as any other', () => {
  const logged: unknown[] = [];
  const format = formatGraphQLError({ error: (...args: unknown[]) => logged.push(args) } as never);
  const expired = format(new GraphQLError(tokenExpired().message, { originalError: tokenExpired(), path: ['me'] }));
  assert.equal([expired.message, expired.extensions.code, expired.path], ['Token has expired', 'TOKEN_EXPIRED', ['me']]);
  assert.equal(logged, []);
});

test.run();
