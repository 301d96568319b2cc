import fs from 'node:fs';
import { buildSchema } from 'graphql';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  appSources,
  loadRegistry,
  operationTypes,
  readSchema,
  registryProblems,
  SCHEMA_FILE,
  TYPES_FILE,
} from '../../scripts/graphql-app-types';

// The floor app's GraphQL operations are typed from schema.graphql (scripts/graphql-app-types.ts): an operation the
// schema no longer answers, a named operation the app sends unregistered, or types not regenerated after a change
// (npm run graphql:types) fail here; the app's type check (tsc -p src/app/tsconfig.json) then holds the calls to them.

test('every registered operation validates against schema.graphql, and every named operation of the app is registered', async () => {
  assert.equal(registryProblems(readSchema(), await loadRegistry(), appSources()), []);
});

test('src/app/api/operation-types.ts is current', async () => {
  const expected = await operationTypes(readSchema(), (await loadRegistry()).APP_OPERATIONS);
  assert.ok(fs.existsSync(TYPES_FILE), 'run npm run graphql:types');
  assert.is(fs.readFileSync(TYPES_FILE, 'utf8'), expected, 'src/app/api/operation-types.ts is stale: run npm run graphql:types');
});

test('a schema change the app does not follow is reported, naming the operation', async () => {
  const registry = await loadRegistry();
  // RecordStepPayload without its record: the offline queue's RecordStep asks for it
  const text = fs.readFileSync(SCHEMA_FILE, 'utf8');
  const changed = text.replace(/\s*"""the step's record as now stored"""\s*record: StepRecord!/, '');
  assert.is.not(changed, text, 'the schema has RecordStepPayload.record');
  const problems = registryProblems(buildSchema(changed), registry, new Map());
  assert.equal(problems, ['RecordStep: Cannot query field "record" on type "RecordStepPayload".']);
});

test('an unregistered named operation, and a document of another name, are reported', () => {
  const problems = registryProblems(
    readSchema(),
    { APP_OPERATIONS: { Mine: 'query Other { me { id } }' }, NOT_TYPED_YET: [] },
    new Map([['areas/x.ts', 'graphql(`query Unlisted($id: ID!) { job(id: $id) { id } }`)']]),
  );
  assert.equal(problems, [
    'Mine: the document must hold exactly one operation, named Mine',
    'areas/x.ts: the operation Unlisted is not in src/app/api/operations.ts',
  ]);
});

test.run();
