import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { allRoutes } from '#http/routes/index';
import { GRAPHQL_OPERATIONS } from '#policies/operations';
import { PERMISSIONS, type Permission } from '#policies/permissions';
import { ROLES } from '#policies/roles';

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

test.run();
