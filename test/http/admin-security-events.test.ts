import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { ADMIN_PASSWORD, startTestServer, testDaemonEnv, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser, uniqueEmail, PASSWORD, type BuiltClient } from '../helpers/factories';
import { issueTestLicense } from '../helpers/licenses';
import { runCli } from '../helpers/cli';
import { createAdmin } from '#services/admins';
import { changedByCli, cliActor } from '#services/security-log';

// Every sign-in of a system administrator and every
// administrative change leaves a security event saying who (actor id and
// name), what (event, target, the changed fields before and after) and from
// where (IP, user agent) — read back through the logs API, as an auditor would.

let server: TestServer;
let token: string;
let client: BuiltClient;
const SSO_SECRET = 'audit-test-oidc-client-secret-value';

const audit = suite('Security events of administrative changes');
audit.before(async () => {
  // loopback webhook targets allowed (nothing is delivered: the endpoint subscribes to backup.failed only)
  server = await startTestServer({ env: { WIP_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' } });
  token = await adminToken(server);
  client = await buildClient(server, { seats: { full: 5 } });
});
audit.after(async () => server.stop());

/** A user agent naming the case: the event found by it proves "from where" was recorded. */
const agentOf = (name: string) => `audit-test/${name.replace(/\W+/g, '-')}-${randomBytes(3).toString('hex')}`;

interface LogItem {
  event: string;
  ip: string | null;
  userAgent: string | null;
  clientId: number | null;
  actor: { kind: string; id: number | null; name: string | null } | null;
  data: { target?: { type: string; id: unknown }; changes?: Record<string, { before: unknown; after: unknown }>; [k: string]: unknown };
}

/** The security events of this user agent, newest first, through GET /api/admin/logs?category=security. */
async function eventsOf(agent: string): Promise<LogItem[]> {
  const res = await server.request('GET', '/api/admin/logs?category=security&limit=200', { token });
  assert.is(res.status, 200, res.text);
  return (res.body.data.items as LogItem[]).filter((i) => i.userAgent === agent);
}

async function call(method: string, path: string, agent: string, body?: unknown, as = token) {
  const res = await server.request(method, path, { token: as, body, headers: { 'user-agent': agent } });
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
  return res.body?.data;
}

interface Case {
  name: string;
  event: string;
  /** performs the change with this user agent; answers the target id when the event names one */
  act(agent: string): Promise<unknown>;
  /** the actor expected (default: the system administrator "admin") */
  actor?: () => { kind: string; name: RegExp | string };
  /** field → [before, after] expected among the recorded changes (undefined: not checked); SECRET: a credential that changed, shown only as [redacted] */
  changes?: Record<string, [unknown, unknown] | typeof SECRET>;
  /** text that must never appear in the recorded event */
  secret?: string | string[];
}

const uniq = () => randomBytes(3).toString('hex');
const SECRET = '[redacted]';
let licenseId = 0;
let agreementId = 0;
let translationId = 0;
let providerId = 0;
let webhookId = 0;
let userId = 0;

const CASES: Case[] = [
  {
    name: 'system administrator sign-in',
    event: 'auth.admin_sign_in',
    async act(agent) {
      await call('POST', '/api/admin/auth/sign-in', agent, { username: 'admin', password: ADMIN_PASSWORD }, undefined);
    },
  },
  {
    name: 'create a client',
    event: 'client.created',
    async act(agent) {
      const created = await call('POST', '/api/admin/client', agent, {
        name: 'Audited Works',
        owner: { email: uniqueEmail('owner') },
        seats: { full: 2 },
      });
      return created.id;
    },
    changes: { name: [null, 'Audited Works'], seats: [null, { full: 2 }] },
  },
  {
    name: 'rename a client',
    event: 'client.updated',
    async act(agent) {
      return (await call('PUT', `/api/admin/client/${client.id}`, agent, { name: 'Renamed Works' })).id;
    },
    changes: { name: [undefined, 'Renamed Works'] },
  },
  {
    name: "set a client's storage quota",
    event: 'client.storage_quota_changed',
    async act(agent) {
      await call('PUT', `/api/admin/client/${client.id}/storage-quota`, agent, { storageQuotaBytes: 1_000_000 });
      return client.id;
    },
    changes: { storageQuotaBytes: [null, 1_000_000] },
  },
  {
    name: 'allocate seats',
    event: 'license.seats_allocated',
    async act(agent) {
      licenseId = (await call('POST', '/api/admin/license', agent, { clientId: client.id, licenseType: 'connect', seats: 2 })).id;
      return licenseId;
    },
    changes: { licenseType: [null, 'connect'], seats: [null, 2] },
  },
  {
    name: 'change seats',
    event: 'license.seats_changed',
    async act(agent) {
      return (await call('PUT', `/api/admin/license/${licenseId}`, agent, { seats: 3 })).id;
    },
    changes: { seats: [2, 3] },
  },
  {
    name: 'delete a seat allocation',
    event: 'license.seats_deleted',
    async act(agent) {
      await call('DELETE', `/api/admin/license/${licenseId}`, agent);
      return licenseId;
    },
    changes: { seats: [3, null] },
  },
  {
    name: 'install a license key',
    event: 'license.installed',
    async act(agent) {
      const key = issueTestLicense({ licenseId: 'L-AUDITED' });
      CASES.find((c) => c.event === 'license.installed')!.secret = key;
      await call('POST', '/api/admin/license-on-prem', agent, { licenseKey: key });
      return 'L-AUDITED';
    },
    changes: { licenseId: [undefined, 'L-AUDITED'] },
  },
  {
    name: 'publish an agreement',
    event: 'agreement.published',
    async act(agent) {
      // effective in the future: client routes stay open for the other cases
      agreementId = (
        await call('POST', '/api/admin/agreement', agent, {
          kind: 'eula',
          version: `v-${uniq()}`,
          title: 'Terms',
          bodyMarkdown: '# Terms',
          effectiveAt: '2099-01-01T00:00:00.000Z',
        })
      ).id;
      return agreementId;
    },
    changes: { title: [null, 'Terms'] },
  },
  {
    name: 'change an agreement',
    event: 'agreement.changed',
    async act(agent) {
      return (await call('PUT', `/api/admin/agreement/${agreementId}`, agent, { title: 'End-User Terms', requiresReacceptance: true })).id;
    },
    changes: { title: ['Terms', 'End-User Terms'], requiresReacceptance: [false, true] },
  },
  {
    name: 'add a translation',
    event: 'i18n.translation_created',
    async act(agent) {
      translationId = (
        await call('POST', '/api/admin/internationalization', agent, {
          language: 'de',
          namespace: 'console',
          key: `audit.${uniq()}`,
          text: 'Prüfung',
        })
      ).id;
      return translationId;
    },
    changes: { text: [null, 'Prüfung'] },
  },
  {
    name: 'change a translation',
    event: 'i18n.translation_changed',
    async act(agent) {
      return (await call('PUT', `/api/admin/internationalization/${translationId}`, agent, { text: 'Revision' })).id;
    },
    changes: { text: ['Prüfung', 'Revision'] },
  },
  {
    name: 'add an SSO provider',
    event: 'security.sso_provider_changed',
    secret: SSO_SECRET,
    async act(agent) {
      const body = { name: `audit-${uniq()}`, kind: 'oidc', issuer: 'https://idp.example.test', clientId: 'wip', clientSecret: SSO_SECRET };
      providerId = (await call('POST', `/api/admin/client/${client.id}/sso`, agent, body)).id;
      return providerId;
    },
    changes: { issuer: [null, 'https://idp.example.test'], clientSecret: SECRET },
  },
  {
    name: "change an SSO provider's secret and state",
    event: 'security.sso_provider_changed',
    secret: 'rotated-oidc-client-secret-value',
    async act(agent) {
      return (
        await call('PUT', `/api/admin/client/${client.id}/sso/${providerId}`, agent, {
          enabled: false,
          clientSecret: 'rotated-oidc-client-secret-value',
        })
      ).id;
    },
    changes: { enabled: [true, false], clientSecret: SECRET },
  },
  {
    name: 'remove an SSO provider',
    event: 'security.sso_provider_changed',
    async act(agent) {
      await call('DELETE', `/api/admin/client/${client.id}/sso/${providerId}`, agent);
      return providerId;
    },
    changes: { enabled: [false, null] },
  },
  {
    name: 'register a system webhook',
    event: 'webhook.created',
    async act(agent) {
      const created = await call('POST', '/api/admin/webhooks', agent, {
        url: 'http://127.0.0.1:9/audit?key=receiver-credential-value',
        events: ['backup.failed'],
      });
      webhookId = created.id;
      // the signing secret, and a credential in the receiver's URL, never reach the log
      assert.ok(JSON.stringify(created).includes('receiver-credential-value'), 'the API answers the URL as registered');
      CASES.find((c) => c.event === 'webhook.created')!.secret = [created.secret, 'receiver-credential-value'];
      return webhookId;
    },
    changes: { url: [null, 'http://127.0.0.1:9/audit?key=redacted'] },
  },
  {
    name: "rotate a webhook's secret",
    event: 'webhook.changed',
    async act(agent) {
      const changed = await call('PUT', `/api/admin/webhooks/${webhookId}`, agent, { rotateSecret: true, description: 'audited' });
      CASES.find((c) => c.event === 'webhook.changed')!.secret = changed.secret;
      return webhookId;
    },
    changes: { description: ['', 'audited'], secret: SECRET },
  },
  {
    name: 'delete a webhook',
    event: 'webhook.deleted',
    async act(agent) {
      await call('DELETE', `/api/admin/webhooks/${webhookId}`, agent);
      return webhookId;
    },
    changes: { url: ['http://127.0.0.1:9/audit?key=redacted', null] },
    secret: 'receiver-credential-value',
  },
  {
    name: "a Security Administrator changes the client's security settings",
    event: 'security.settings_changed',
    actor: () => ({ kind: 'user', name: client.owner.email }),
    async act(agent) {
      await call(
        'PUT',
        '/api/client/auth/client-security-settings',
        agent,
        { passwordMinLength: 14, ssoEnforced: false },
        client.owner.token,
      );
      return client.id;
    },
    changes: { passwordMinLength: [12, 14] },
  },
  {
    name: 'a Security Administrator creates a user with a password',
    event: 'user.created',
    actor: () => ({ kind: 'user', name: client.owner.email }),
    async act(agent) {
      userId = (
        await call(
          'POST',
          '/api/admin/user',
          agent,
          { email: uniqueEmail('audited'), roles: ['author'], licenseType: 'full', password: PASSWORD },
          client.owner.token,
        )
      ).id;
      return userId;
    },
    changes: { roles: [null, ['author']], password: SECRET },
    secret: PASSWORD,
  },
  {
    name: 'a Security Administrator moves a user to another seat type',
    event: 'user.license_type_changed',
    actor: () => ({ kind: 'user', name: client.owner.email }),
    async act(agent) {
      await call('POST', '/api/admin/license', agentOf('setup'), { clientId: client.id, licenseType: 'connect', seats: 2 });
      const operator = await call(
        'POST',
        '/api/admin/user',
        agentOf('setup'),
        { email: uniqueEmail('op'), roles: ['operator'], licenseType: 'full', password: PASSWORD },
        client.owner.token,
      );
      await call('POST', '/api/client/license', agent, { userId: operator.id, licenseType: 'connect' }, client.owner.token);
      return operator.id;
    },
    changes: { licenseType: ['full', 'connect'] },
  },
  {
    name: "a Security Administrator changes a user's roles",
    event: 'user.changed',
    actor: () => ({ kind: 'user', name: client.owner.email }),
    async act(agent) {
      return (await call('PUT', '/api/admin/user', agent, { id: userId, roles: ['author', 'approver'] }, client.owner.token)).id;
    },
    changes: { roles: [['author'], ['author', 'approver']] },
  },
  {
    name: 'a Security Administrator deletes a user',
    event: 'user.deleted',
    actor: () => ({ kind: 'user', name: client.owner.email }),
    async act(agent) {
      await call('DELETE', `/api/admin/user/${userId}`, agent, undefined, client.owner.token);
      return userId;
    },
    changes: { roles: [['author', 'approver'], null] },
  },
  {
    name: "change the system administrator's password",
    event: 'admin.password_changed',
    actor: () => ({ kind: 'admin', name: /^auditor-/ }),
    async act(agent) {
      // another administrator: the suite's "admin" keeps its password
      const username = `auditor-${uniq()}`;
      const admin = await createAdmin(server.deps, username, PASSWORD, changedByCli());
      const signedIn = await server.request('POST', '/api/admin/auth/sign-in', { body: { username, password: PASSWORD } });
      await call(
        'POST',
        '/api/admin/auth/change-password',
        agent,
        { currentPassword: PASSWORD, newPassword: 'another-long-password' },
        signedIn.body.data.token,
      );
      return admin.id;
    },
  },
  {
    name: 'delete a client',
    event: 'client.deleted',
    async act(agent) {
      const doomed = await call('POST', '/api/admin/client', agentOf('setup'), {
        name: 'Doomed Works',
        owner: { email: uniqueEmail('owner') },
        seats: { full: 1 },
      });
      await call('DELETE', `/api/admin/client/${doomed.id}`, agent);
      return doomed.id;
    },
    changes: { name: ['Doomed Works', null] },
  },
];

for (const c of CASES) {
  audit(`${c.name} → ${c.event} with actor, IP, user agent and before/after`, async () => {
    const agent = agentOf(c.name);
    const targetId = await c.act(agent);
    const rows = (await eventsOf(agent)).filter((r) => r.event === c.event);
    assert.is(rows.length, 1, `one ${c.event} event for ${agent}: ${JSON.stringify(rows)}`);
    const row = rows[0];
    const actor = c.actor?.() ?? { kind: 'admin', name: 'admin' };
    assert.is(row.actor?.kind, actor.kind);
    if (typeof actor.name === 'string') assert.ok(row.actor?.name?.includes(actor.name), `actor name ${row.actor?.name}`);
    else assert.match(row.actor?.name ?? '', actor.name);
    assert.ok(row.ip, 'the IP is recorded');
    if (targetId !== undefined) assert.equal(row.data.target?.id, targetId);
    for (const [field, expected] of Object.entries(c.changes ?? {})) {
      const change = row.data.changes?.[field];
      assert.ok(change, `${field} is among the changes: ${JSON.stringify(row.data.changes)}`);
      if (expected === SECRET) {
        assert.is(change, SECRET, `${field}: changed, never shown`);
        continue;
      }
      const [before, after] = expected;
      if (before !== undefined) assert.equal(change.before, before, `${field} before`);
      if (after !== undefined) assert.equal(change.after, after, `${field} after`);
    }
    // no secret in the event, nor in the table itself (the API redacts again on the way out)
    const stored = await server.deps.db.kysely.selectFrom('logs').select(['data', 'message']).where('user_agent', '=', agent).execute();
    for (const secret of [c.secret ?? []].flat()) {
      assert.not.ok(JSON.stringify(row).includes(secret), `no secret in the event: ${secret}`);
      assert.not.ok(
        stored.some((s) => s.data.includes(secret) || s.message.includes(secret)),
        `no secret stored: ${secret}`,
      );
    }
  });
}

audit('the CLI records its changes with actor cli and the OS user', async () => {
  const username = `cli-${uniq()}`;
  // the OS user as the CLI names it (os.userInfo() throws for a uid without a passwd entry: the fallback then)
  const osUser = cliActor().name;
  const dir = ['--data-dir', server.dataDir];
  const env = testDaemonEnv(server.dataDir);
  assert.is(
    (await runCli([...dir, 'admin', 'create', '--username', username, '--password-stdin'], { env, input: `${PASSWORD}\n` })).code,
    0,
  );
  assert.is(
    (
      await runCli([...dir, 'admin', 'reset-password', '--username', username, '--password-stdin'], {
        env,
        input: 'another-long-password\n',
      })
    ).code,
    0,
  );
  assert.is((await runCli([...dir, 'admin', 'delete', '--username', username], { env })).code, 0);
  const key = issueTestLicense({ licenseId: 'L-FROM-CLI' });
  const installed = await runCli([...dir, 'license', 'install', key], { env });
  assert.is(installed.code, 0, installed.stderr);

  const res = await server.request('GET', '/api/admin/logs?category=security&limit=50', { token });
  const items = res.body.data.items as LogItem[];
  for (const event of ['admin.created', 'admin.password_reset', 'admin.deleted', 'license.installed']) {
    const row = items.find(
      (i) =>
        i.event === event &&
        (event === 'license.installed' ? i.data.target?.id === 'L-FROM-CLI' : JSON.stringify(i.data).includes(username)),
    );
    assert.ok(row, `${event} recorded`);
    assert.equal(row.actor, { kind: 'cli', id: null, name: osUser });
    assert.not.ok(JSON.stringify(row).includes(key));
  }
});

audit("a failed sign-in names no actor (nobody signed in); the account tried is the row's adminId", async () => {
  const agent = agentOf('failed');
  const res = await server.request('POST', '/api/admin/auth/sign-in', {
    body: { username: 'admin', password: 'not-it' },
    headers: { 'user-agent': agent },
  });
  assert.is(res.status, 401);
  const [row] = await eventsOf(agent);
  assert.is(row?.event, 'auth.admin_sign_in_failed');
  assert.is(row.actor, null);
  assert.is((row as unknown as { adminId: number }).adminId, 1);
});

audit('the first start records the first administrator, by the system', async () => {
  const res = await server.request('GET', '/api/admin/logs?event=admin.created&limit=200', { token });
  const first = (res.body.data.items as LogItem[]).find((i) => i.data.changes?.username?.after === 'admin');
  assert.ok(first, 'admin.created for "admin"');
  assert.equal(first.actor, { kind: 'system', id: null, name: 'first start' });
});

audit('a Security Administrator unlocking a user is the actor (not the user unlocked)', async () => {
  const agent = agentOf('unlock');
  const user = await buildUser(server, client);
  for (let i = 0; i < 10; i++)
    await server.request('POST', '/api/client/auth/sign-in', { body: { email: user.email, password: `wrong-${i}`, clientId: client.id } });
  const userId = user.id;
  await call('POST', `/api/admin/user/${userId}/unlock`, agent, undefined, client.owner.token);
  const [row] = await eventsOf(agent);
  assert.is(row?.event, 'auth.unlocked');
  assert.is(row.actor?.kind, 'user');
  assert.ok(row.actor?.name?.includes(client.owner.email));
});

audit('the OpenAPI document describes the actor of a log entry', async () => {
  const doc = (await server.request('GET', '/api/openapi.json')).body;
  const data = doc.paths['/api/admin/logs'].get.responses['200'].content['application/json'].schema.properties.data;
  const item = data.properties.items.items;
  assert.ok(item.properties.actor, 'actor in the log item schema');
  const actor = item.properties.actor.anyOf?.find((s: { type?: string }) => s.type === 'object') ?? item.properties.actor;
  assert.equal(Object.keys(actor.properties).sort(), ['id', 'kind', 'name']);
});

audit.run();
