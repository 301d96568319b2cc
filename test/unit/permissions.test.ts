import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { allRoutes } from '#http/routes/index';
import { GRAPHQL_OPERATIONS } from '#policies/operations';
import { PERMISSIONS, type Permission } from '#policies/permissions';
import { ROLES } from '#policies/roles';
import { graphql } from 'graphql';
import { buildAppSchema } from '#graphql/schema';

/**
 * Who may call what, as one reviewed file: every REST route (its `auth` and the roles of its permission) and every
 * GraphQL operation (`any` or the roles of its permission), in the order ROLES lists them. The file was written
 * from the declarations before the permissions moved into one table (src/policies/permissions.ts), so this test
 * proved the move changed no cell; from now on a change of who may do what shows up as a diff of that file, made
 * on purpose in the same change (the authorization matrix test, test/http/authorization-matrix.test.ts, checks the
 * running server obeys the table).
 */
const SNAPSHOT = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'authorization-matrix.json');

const rolesText = (permission: Permission) =>
  ROLES.filter((role) => (PERMISSIONS[permission] as readonly string[]).includes(role)).join(' ');

function currentMatrix() {
  const routes: Record<string, string> = {};
  for (const route of allRoutes()) {
    routes[`${route.method.toUpperCase()} ${route.path}`] = route.permission ? `${route.auth}: ${rolesText(route.permission)}` : route.auth;
  }
  const ops: Record<string, string> = {};
  for (const [name, permission] of Object.entries(GRAPHQL_OPERATIONS)) ops[name] = permission === 'any' ? 'any' : rolesText(permission);
  return { routes, ops };
}

test('every route and GraphQL operation allows exactly the roles of the reviewed matrix (test/fixtures/authorization-matrix.json)', () => {
  const expected = JSON.parse(fs.readFileSync(SNAPSHOT, 'utf8')) as ReturnType<typeof currentMatrix>;
  const current = currentMatrix();
  assert.equal(Object.keys(current.routes).sort(), Object.keys(expected.routes).sort(), 'the same routes');
  assert.equal(current.routes, expected.routes);
  assert.equal(current.ops, expected.ops);
});

test('every permission allows at least one role, and only roles that exist', () => {
  for (const [permission, roles] of Object.entries(PERMISSIONS)) {
    assert.ok(roles.length > 0, permission);
    for (const role of roles) assert.ok((ROLES as readonly string[]).includes(role), `${permission}: ${role}`);
  }
});

/** A schema of one operation whose resolver only counts its calls: what the GraphQL layer's guard lets through. */
function oneOperation(name: string) {
  const calls: string[] = [];
  const schema = buildAppSchema([
    {
      typeDefs: `extend type Query { dataEpoch: Int } extend type Mutation { ${name}: Boolean }`,
      resolvers: { Mutation: { [name]: () => calls.push(name) > 0 } },
    },
  ]);
  const run = async (roles: string[]) => {
    const result = await graphql({
      schema,
      source: `mutation { ${name} }`,
      contextValue: { actor: { roles } },
    });
    return result.errors?.map((e) => (e.originalError as { code?: string } | undefined)?.code) ?? [];
  };
  return { calls, run };
}

test("the GraphQL layer checks an operation's permission before its resolver runs", async () => {
  const createSkill = oneOperation('createSkill');
  assert.equal(GRAPHQL_OPERATIONS.createSkill, 'manageSkills');
  for (const role of ROLES) {
    const codes = await createSkill.run([role]);
    const allowed = (PERMISSIONS.manageSkills as readonly string[]).includes(role);
    assert.equal(codes, allowed ? [] : ['FORBIDDEN'], role);
  }
  assert.equal(createSkill.calls.length, PERMISSIONS.manageSkills.length, 'the resolver ran for the allowed roles only');
});

test('an operation missing from GRAPHQL_OPERATIONS stops the schema from building', () => {
  assert.throws(() => oneOperation('undeclaredOperation'), /undeclaredOperation has no permission in GRAPHQL_OPERATIONS/);
});

test.run();
