import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ADMIN_PASSWORD, type TestServer } from './server';

// Each test builds its own clients and users: no shared fixtures, no resets.

export const PASSWORD = 'correct-horse-battery';

export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}-${randomBytes(4).toString('hex')}@example.test`;
}

export async function adminToken(server: TestServer): Promise<string> {
  const res = await server.request('POST', '/api/admin/auth/sign-in', { body: { username: 'admin', password: ADMIN_PASSWORD } });
  assert.equal(res.status, 200, res.text);
  return res.body.data.token;
}

export interface BuiltClient {
  id: number;
  name: string;
  owner: { id: number; email: string; password: string; token: string };
}

export async function buildClient(
  server: TestServer,
  options: { seats?: { full?: number; connect?: number }; name?: string; ownerEmail?: string } = {},
): Promise<BuiltClient> {
  const token = await adminToken(server);
  const email = options.ownerEmail ?? uniqueEmail('owner');
  const res = await server.request('POST', '/api/admin/client', {
    token,
    body: {
      name: options.name ?? `Client ${randomBytes(3).toString('hex')}`,
      owner: { email, password: PASSWORD },
      seats: options.seats ?? { full: 5, connect: 5 },
    },
  });
  assert.equal(res.status, 201, res.text);
  const ownerToken = await signIn(server, email, PASSWORD, res.body.data.id);
  return {
    id: res.body.data.id,
    name: res.body.data.name,
    owner: { id: res.body.data.owner.id, email, password: PASSWORD, token: ownerToken },
  };
}

export async function buildUser(
  server: TestServer,
  client: BuiltClient,
  fields: { roles?: string[]; licenseType?: string; email?: string; password?: string | null } = {},
): Promise<{ id: number; email: string; password: string; token: string | undefined }> {
  const email = fields.email ?? uniqueEmail();
  const password = fields.password === null ? undefined : (fields.password ?? PASSWORD);
  const res = await server.request('POST', '/api/admin/user', {
    token: client.owner.token,
    body: { email, roles: fields.roles ?? ['author'], licenseType: fields.licenseType ?? 'full', ...(password && { password }) },
  });
  assert.equal(res.status, 201, res.text);
  const token = password ? await signIn(server, email, password, client.id) : undefined;
  return { id: res.body.data.id, email, password: password ?? '', token };
}

export async function signIn(server: TestServer, email: string, password: string, clientId?: number): Promise<string> {
  const res = await server.request('POST', '/api/client/auth/sign-in', { body: { email, password, ...(clientId && { clientId }) } });
  assert.equal(res.status, 200, res.text);
  return res.body.data.token;
}
