import { generateKeyPairSync, randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { getNamedType, isInputObjectType, isNonNullType, type GraphQLInputType } from 'graphql';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { allRoutes } from '#http/routes/index';
import { ROLES, type Role } from '#policies/roles';
import { GRAPHQL_OPERATIONS } from '#policies/operations';
import { PERMISSIONS } from '#policies/permissions';
import { buildAppSchema } from '#graphql/schema';
import { startTestServer, unconfiguredIntegration, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser, PASSWORD, signIn, type BuiltClient } from '../helpers/factories';
import { gid, gql } from '../helpers/graphql';
import { contentInput, createAsset, createJob, DOMAIN_TEST_ENV, publishedTemplate } from '../helpers/domain';
import { graphqlOperations, validLiteral } from '../helpers/fuzz';
import { upload } from '../helpers/upload';

// Every declared route, from the same list the server mounts: a route added
// later is covered here without anyone remembering to add it.

/** Routes anyone may call. Adding one is a deliberate decision: extend this list in the same change. */
const PUBLIC_ROUTES = [
  'GET /healthz',
  'GET /readyz',
  'GET /metrics',
  'GET /api/client/on-premise',
  'GET /api/client/auth/client-security-settings',
  'POST /api/admin/auth/sign-in',
  'POST /api/client/auth/sign-in',
  'POST /api/client/auth/sign-in-v2',
  'POST /api/client/auth/verify-two-factor',
  'POST /api/client/auth/refresh',
  'POST /api/client/auth/refresh-token',
  'POST /api/client/auth/sign-up',
  'POST /api/client/auth/create-account',
  'POST /api/client/auth/forgot',
  'POST /api/client/auth/reset-password/:token',
  'POST /api/client/auth/set-password/:token',
  // the password rules a link's page lists before the first attempt: the token is the credential
  'GET /api/client/auth/reset-password/:token',
  'GET /api/client/auth/set-password/:token',
  // single sign-on: starting a sign-in, the IdP's redirect back, the one-time code exchange
  'GET /api/client/auth/oidc',
  'GET /api/client/auth/oidc/callback',
  'GET /api/client/auth/vendor-dynamics',
  'POST /api/client/auth/sso/exchange',
  'POST /api/client/auth/vendor-saml',
  'GET /api/client/auth/vendor-saml',
  'GET /api/client/auth/vendor-saml/metadata',
  // which build and API contract answers: nothing secret, apps check it before signing in
  'GET /api/client/version',
  // removed routes (docs/api/contract.md 4.3): 410 GONE to anyone, there is nothing left to protect
  'GET /api/client/reports',
  'POST /api/client/reports',
  // the API description and its reference page: they describe the API, they grant nothing
  'GET /api/openapi.json',
  'GET /api/docs',
  'GET /api/docs/:file',
  // the admin console's page and files (and the account mails' link pages): the page signs in through the API
  'GET /',
  'GET /app',
  'GET /app/',
  'GET /app/:file',
  'GET /app/:section/:id',
  'GET /app/:section/:id/:action',
  'GET /app/sw.js',
  'GET /console/',
  'GET /console/:file',
  'GET /auth/set-password/:token',
  'GET /auth/reset-password/:token',
  // records anyone can verify: the appliance's PUBLIC signing keys, the verifier page and its download
  'GET /.well-known/wip-signing-keys.json',
  'GET /verify/',
  'GET /verify/wip-verifier.html',
  // the container platform has no account: it signs each notification (HMAC over the raw body); a system admin token also works
  'POST /api/admin/container-notification-center',
].sort();

/** The roles a route's permission allows (src/policies/permissions.ts), or undefined: any user of its `auth`. */
const rolesOf = (route: { permission?: keyof typeof PERMISSIONS }): readonly Role[] | undefined =>
  route.permission && PERMISSIONS[route.permission];
const key = (r: { method: string; path: string }) => `${r.method.toUpperCase()} ${r.path}`;
const bodyFor = (method: string) => (method === 'get' ? undefined : {});
const concrete = (path: string) => path.replace(/:(\w+)/g, (_, name: string) => (/token/i.test(name) ? 'some-token' : '999999'));

let server: TestServer;
const matrix = suite('authorization matrix over every route');
matrix.before(async () => {
  server = await startTestServer();
});
matrix.after(async () => server.stop());

matrix('only the reviewed routes are public', () => {
  assert.equal(
    allRoutes()
      .filter((r) => r.auth === 'public')
      .map(key)
      .sort(),
    PUBLIC_ROUTES,
  );
});

matrix('every other route answers 401 UNAUTHORIZED without credentials, and with a forged token', async () => {
  for (const route of allRoutes().filter((r) => r.auth !== 'public')) {
    for (const token of [undefined, 'eyJhbGciOiJIUzI1NiJ9.eyJzaWQiOjF9.forged']) {
      const res = await server.request(route.method.toUpperCase(), concrete(route.path), { token, body: bodyFor(route.method) });
      assert.is(res.status, 401, `${key(route)} → ${res.status}`);
      assert.is(res.body.error.code, 'UNAUTHORIZED', key(route));
    }
  }
});

matrix("system-admin routes refuse client tokens, even a Security Administrator's (403)", async () => {
  const client = await buildClient(server);
  for (const route of allRoutes().filter((r) => r.auth === 'admin')) {
    const res = await server.request(route.method.toUpperCase(), concrete(route.path), {
      token: client.owner.token,
      body: bodyFor(route.method),
    });
    assert.is(res.status, 403, `${key(route)} → ${res.status}`);
    assert.is(res.body.error.code, 'FORBIDDEN');
  }
});

matrix('client-user routes refuse system-admin tokens (403)', async () => {
  const token = await adminToken(server);
  for (const route of allRoutes().filter((r) => r.auth === 'user')) {
    const res = await server.request(route.method.toUpperCase(), concrete(route.path), { token, body: bodyFor(route.method) });
    assert.is(res.status, 403, `${key(route)} → ${res.status}`);
  }
});

matrix('role-guarded routes refuse a client user holding every role but the allowed ones (403)', async () => {
  // a seat for each distinct set of allowed roles (one user each), however many the routes declare
  const client = await buildClient(server, { seats: { full: 50, connect: 5 } });
  // per route, a user holding every role but the route's own
  const users = new Map<string, string>();
  const guarded = allRoutes().filter((r) => r.permission);
  assert.ok(guarded.length >= 5);
  // one user per distinct set of allowed roles, holding all the others
  const tokens = new Map<string, string>();
  for (const route of guarded) {
    const roles = ROLES.filter((role) => !rolesOf(route)!.includes(role));
    if (!users.has(roles.join())) users.set(roles.join(), (await buildUser(server, client, { roles })).token!);
    const res = await server.request(route.method.toUpperCase(), concrete(route.path), {
      token: users.get(roles.join()),
      body: bodyFor(route.method),
    });
    assert.is(res.status, 403, `${key(route)} → ${res.status}`);
    assert.is(res.body.error.code, 'FORBIDDEN');
  }
});

matrix.run();

// ---------------------------------------------------------------------------
// The complete matrix: every REST route and every GraphQL operation × every
// kind of credential. Expectations come from the declarations — the route
// table (auth, permission) and GRAPHQL_OPERATIONS, both naming permissions of
// the one table the route guard, the GraphQL guard and the services enforce
// (src/policies/permissions.ts) — and each cell is checked against the running
// server.

const complete = suite('complete authorization matrix: token states, roles, system admin, foreign client, JWT attacks');
let srv: TestServer;
/** A token the session layer refuses, by kind. */
let refused: Record<string, string>;
let roleTokens: Map<Role, string>;
let roleEmails: Map<Role, string>;
let clientA: BuiltClient;
let clientB: BuiltClient;
/** Ids of client A's data, by GraphQL argument name, and every id A owns. */
/** client A's ids: database ids, and `all` as global ids (typed: what GraphQL arguments take; REST takes their number) */
let idsA: {
  version: Record<string, number>;
  job: number;
  fault: number;
  deviation: number;
  template: number;
  schedule: number;
  skill: number;
  operator: number;
  all: string[];
};
/** A string planted in every piece of client A's data: no answer to client B may contain it. */
const MARKER = `zqx${randomBytes(5).toString('hex')}`;
const graphqlOps = graphqlOperations(buildAppSchema());

const attemptsTo = (token: string | undefined) => ({ token, headers: { accept: 'application/graphql-response+json, application/json' } });

complete.before(async () => {
  // budgets out of the way: thousands of refused requests from one address are the subject here, not the limiter
  srv = await startTestServer({ env: { ...DOMAIN_TEST_ENV, WIP_RATE_LIMIT_ANONYMOUS_MAX: '1000000', WIP_RATE_LIMIT_MAX: '1000000' } });
  // B first: A's ids are then higher than any of B's in each table
  clientB = await buildClient(srv, { seats: { full: 30, connect: 10 } });
  clientA = await buildClient(srv, { seats: { full: 30, connect: 10 }, name: `Client ${MARKER}` });
  roleTokens = new Map();
  roleEmails = new Map();
  for (const role of ROLES) {
    const user = await buildUser(srv, clientA, { roles: [role] });
    roleTokens.set(role, user.token!);
    roleEmails.set(role, user.email);
  }

  // client A's data, each piece carrying the marker
  const owner = clientA.owner.token;
  const content = {
    sections: [
      {
        id: 's',
        title: `Section ${MARKER}`,
        steps: [{ id: 'measure', title: `Step ${MARKER}`, fields: [{ key: 'note', label: MARKER, type: 'TEXT' }] }],
      },
    ],
  };
  const published = await publishedTemplate(srv, clientA, content, `Template ${MARKER}`);
  const versionIn = async (state: 'DRAFT' | 'IN_REVIEW' | 'APPROVED') => {
    const made = await gql(srv, owner, 'mutation($i: CreateTemplateInput!) { createTemplate(input: $i) { version { id databaseId } } }', {
      i: { title: `T ${MARKER}`, description: MARKER, tags: [MARKER], content: contentInput(content) },
    });
    const { id, databaseId } = made.data.createTemplate.version as { id: string; databaseId: number };
    if (state !== 'DRAFT')
      await gql(srv, owner, 'mutation($v: ID!) { submitVersion(input: { versionId: $v }) { version { id } } }', { v: id });
    if (state === 'APPROVED')
      await gql(
        srv,
        published.signer.token,
        'mutation($v: ID!, $p: String) { approveVersion(input: { versionId: $v, password: $p }) { version { id } } }',
        { v: id, p: PASSWORD },
      );
    return databaseId;
  };
  const version = {
    submitVersion: await versionIn('DRAFT'),
    updateDraft: await versionIn('DRAFT'),
    rejectVersion: await versionIn('IN_REVIEW'),
    approveVersion: await versionIn('IN_REVIEW'),
    publishVersion: await versionIn('APPROVED'),
    retireVersion: published.versionId,
  };
  const asset = await createAsset(srv, owner, `Asset ${MARKER}`);
  const job = await createJob(srv, owner, { templateId: published.templateId, title: `Job ${MARKER}`, assetId: asset });
  const fault = await gql(srv, owner, 'mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { databaseId } } }', {
    i: { jobId: gid('Job', job.id), description: `Fault ${MARKER}`, severity: 'LOW' },
  });
  assert.equal(fault.codes, [], JSON.stringify(fault.errors));
  // the fault raised on the job is one of its deviations (docs/execution-rules.md): its detail carries the marker
  const deviation = (
    await gql(srv, owner, 'query($j: ID!) { deviations(filter: { jobId: $j }) { nodes { databaseId } } }', { j: gid('Job', job.id) })
  ).data.deviations.nodes[0].databaseId as number;
  // a skill (docs/qualifications.md), held by client A's operator, whose name carries the marker
  const skill = await gql(srv, owner, 'mutation($i: CreateSkillInput!) { createSkill(input: $i) { skill { databaseId } } }', {
    i: { name: `Skill ${MARKER}`, description: MARKER, levels: 2 },
  });
  assert.equal(skill.codes, [], JSON.stringify(skill.errors));
  const skillId: number = skill.data.createSkill.skill.databaseId;
  const operatorId = (await gql(srv, roleTokens.get('operator'), 'query { me { databaseId } }')).data.me.databaseId as number;
  const granted = await gql(srv, owner, 'mutation($i: GrantSkillInput!) { grantSkill(input: $i) { userSkill { level } } }', {
    i: { userId: gid('User', operatorId), skillId: gid('Skill', skillId), level: 2 },
  });
  assert.equal(granted.codes, [], JSON.stringify(granted.errors));
  const schedule = await gql(srv, owner, 'mutation($i: CreateScheduleInput!) { createSchedule(input: $i) { schedule { databaseId } } }', {
    i: {
      title: `Schedule ${MARKER}`,
      templateId: gid('Template', published.templateId),
      assetId: gid('Asset', asset),
      recurrence: 'FREQ=WEEKLY',
      startsAt: '2030-01-07T07:00',
    },
  });
  assert.equal(schedule.codes, [], JSON.stringify(schedule.errors));
  const file = await upload(srv, owner, [{ name: `${MARKER}.txt`, data: `content ${MARKER}` }]);
  assert.is(file.status, 201, file.text);
  idsA = {
    version,
    job: job.id,
    fault: fault.data.raiseFault.fault.databaseId,
    deviation,
    template: published.templateId,
    skill: skillId,
    operator: operatorId,
    schedule: schedule.data.createSchedule.schedule.databaseId,
    all: [
      gid('Client', clientA.id),
      gid('User', clientA.owner.id),
      gid('Template', published.templateId),
      ...Object.values(version).map((v) => gid('TemplateVersion', v)),
      ...['Section', 'Step'].flatMap((type) => Object.values(version).map((v) => `${type}:${v}:${type === 'Step' ? 'measure' : 's'}`)),
      gid('Asset', asset),
      gid('Job', job.id),
      gid('Fault', fault.data.raiseFault.fault.databaseId),
      gid('Deviation', deviation),
      gid('Schedule', schedule.data.createSchedule.schedule.databaseId),
      gid('File', file.body.data.files[0].id),
      gid('Skill', skillId),
    ],
  };

  // tokens the session layer must refuse: signed out, deleted user, disabled user, expired
  const user = async () => buildUser(srv, clientA, { roles: ['admin'] });
  const signedOut = await user();
  assert.is((await srv.request('POST', '/api/client/auth/sign-out', { token: signedOut.token })).status, 200);
  const deleted = await user();
  assert.is((await srv.request('DELETE', `/api/admin/user/${deleted.id}`, { token: owner })).status, 200);
  const disabled = await user();
  const disabling = await srv.request('PUT', '/api/admin/user', { token: owner, body: { id: disabled.id, disabled: true } });
  assert.is(disabling.status, 200, disabling.text);
  refused = {
    'no token': '',
    'signed out': signedOut.token!,
    'deleted user': deleted.token!,
    'disabled user': disabled.token!,
    ...jwtAttacks(clientA.owner.token, srv),
  };
});
complete.after(async () => srv.stop());

/** Tokens an attacker could build from a real one; each must be refused. */
function jwtAttacks(real: string, server: TestServer): Record<string, string> {
  const [header, payload] = real.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const now = Math.floor(server.clock.now().getTime() / 1000);
  const expired = jwt.sign({ ...claims, iat: now - 7200, exp: now - 3600 }, server.deps.jwtKey, { algorithm: 'HS256' });
  const [eh, , es] = expired.split('.');
  return {
    'alg none': `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`,
    'alg none, signature kept': `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.${real.split('.')[2]}`,
    // RS256 with the attacker's key, and HS256 keyed with that public key (the classic RS/HS confusion)
    'RS256 of another key': jwt.sign(claims, privateKey, {
      algorithm: 'RS256',
      header: { alg: 'RS256', jwk: publicKey.export({ format: 'jwk' }) } as never,
    }),
    'HS256 keyed with a public key': jwt.sign(claims, publicPem, { algorithm: 'HS256', allowInsecureKeySizes: true } as never),
    'HS512 with the right secret': jwt.sign(claims, server.deps.jwtKey, { algorithm: 'HS512' }),
    'tampered payload': `${header}.${b64({ ...claims, sub: String(clientB.owner.id), cid: clientB.id })}.${real.split('.')[2]}`,
    'another secret': jwt.sign(claims, 'not-the-secret-but-long-enough-to-look-real', { algorithm: 'HS256' }),
    expired,
    'expired, exp forged': `${eh}.${b64({ ...claims, iat: now - 7200, exp: now + 3600 })}.${es}`,
  };
}

const concreteFor = (path: string, id: number | string) =>
  path.replace(/:(\w+)/g, (_, name: string) => (/token/i.test(name) ? 'some-token' : /lang/.test(name) ? 'en' : String(id)));
/**
 * A route's own budget (sign-in, two-factor, exports) is counted before the
 * guard, per address: thousands of cells from one address exhaust it. Such a
 * 429 is a refusal, but not the one the cell is about, so the cell is skipped
 * (and counted, so a change that makes most cells 429 shows).
 */
const limitedBeforeGuard = (route: ReturnType<typeof allRoutes>[number], res: { status: number }) =>
  res.status === 429 && route.rateLimit !== undefined;
let skippedByBudgets = 0;
const isForbidden = (res: { status: number; body: any }) => res.status === 403 && res.body?.error?.code === 'FORBIDDEN';
/**
 * A literal of `type` with the ids given: an argument or input field named in `ids` (or of type ID, with `ids['*']`)
 * takes that global id, as a string literal; other required fields a literal the type accepts, ids naming nothing.
 */
function literalWith(name: string, type: GraphQLInputType, ids: Record<string, string>, depth = 0): string {
  const named = getNamedType(type);
  if (ids[name] !== undefined) return JSON.stringify(ids[name]);
  if (named.name === 'ID' && ids['*'] !== undefined) return JSON.stringify(ids['*']);
  if (isInputObjectType(named) && depth < 4) {
    const required = Object.values(named.getFields()).filter((f) => isNonNullType(f.type) && f.defaultValue === undefined);
    const literal = `{ ${required.map((f) => `${f.name}: ${literalWith(f.name, f.type, ids, depth + 1)}`).join(', ')} }`;
    return type.toString().startsWith('[') ? `[${literal}]` : literal;
  }
  return validLiteral(type).replace(/^1$/, '999999');
}
/** Arguments an operation accepts, ids pointing at nothing unless given. */
const argsFor = (op: (typeof graphqlOps)[number], ids: Record<string, string> = {}) =>
  op.field.args.filter((a) => isNonNullType(a.type)).map((a) => `${a.name}: ${literalWith(a.name, a.type, ids)}`);
const operationText = (op: (typeof graphqlOps)[number], ids: Record<string, string> = {}) => {
  const args = argsFor(op, ids);
  return `${op.kind} { ${op.field.name}${args.length ? `(${args.join(', ')})` : ''}${/^(Int|String|Boolean|ID|Float|JSON|DateTime)!?$/.test(op.field.type.toString()) ? '' : ' { __typename }'} }`;
};

complete('every GraphQL operation is in the declared policy table (a new one is a deliberate decision)', () => {
  assert.equal(
    graphqlOps.map((op) => op.field.name).filter((name) => !(name in GRAPHQL_OPERATIONS)),
    [],
    'add them to src/policies/operations.ts',
  );
  assert.equal(
    Object.keys(GRAPHQL_OPERATIONS).filter((name) => !graphqlOps.some((op) => op.field.name === name)),
    [],
    'operations declared but gone',
  );
});

complete(
  "every non-public REST route and every GraphQL operation answer 401 to no token, a signed-out, deleted or disabled user's token, an expired one, and every JWT attack",
  async () => {
    const failures: string[] = [];
    for (const [kind, token] of Object.entries(refused)) {
      for (const route of allRoutes().filter((r) => r.auth !== 'public')) {
        const res = await srv.request(route.method.toUpperCase(), concreteFor(route.path, 1), {
          token: token || undefined,
          body: bodyFor(route.method),
        });
        if (limitedBeforeGuard(route, res)) skippedByBudgets++;
        else if (res.status !== 401) failures.push(`${kind}: ${key(route)} → ${res.status}`);
      }
      for (const op of graphqlOps) {
        const res = await srv.request('POST', '/api/client/graphql', {
          ...attemptsTo(token || undefined),
          body: { query: operationText(op) },
        });
        if (res.status !== 401 || !['UNAUTHORIZED', 'TOKEN_EXPIRED'].includes(res.body?.error?.code))
          failures.push(`${kind}: ${op.field.name} → ${res.status} ${res.text.slice(0, 80)}`);
      }
    }
    assert.equal(failures, []);
    // the expired token is refused as expired, not as forged
    assert.is((await srv.request('GET', '/api/client/auth/me', { token: refused.expired })).body.error.code, 'TOKEN_EXPIRED');
  },
);

complete(
  'each of the 7 roles and the system admin, on every REST route: allowed as declared (never FORBIDDEN), refused otherwise (403 FORBIDDEN)',
  async () => {
    const admin = await adminToken(srv);
    const failures: string[] = [];
    // sign-out ends the session the other cells use: it goes last, once per principal
    const routes = [...allRoutes().filter((r) => r.auth !== 'public')].sort(
      (a, b) => Number(a.path.endsWith('sign-out')) - Number(b.path.endsWith('sign-out')),
    );
    const principals: [string, Role | 'system admin', string][] = [
      ...ROLES.map((role) => [role, role, roleTokens.get(role)!] as [string, Role, string]),
      ['system admin', 'system admin', admin],
    ];
    for (const route of routes) {
      for (const [name, who, token] of principals) {
        const allowed =
          who === 'system admin'
            ? route.auth === 'admin' || route.auth === 'user-or-admin'
            : route.auth !== 'admin' && (rolesOf(route)?.includes(who) ?? true);
        // a sign-out ends the session it is sent with: it gets a session of its own
        const own = route.path.endsWith('sign-out')
          ? who === 'system admin'
            ? await adminToken(srv)
            : await signIn(srv, roleEmails.get(who)!, PASSWORD, clientA.id)
          : token;
        const res = await srv.request(route.method.toUpperCase(), concreteFor(route.path, 999999), {
          token: own,
          body: bodyFor(route.method),
        });
        if (limitedBeforeGuard(route, res)) skippedByBudgets++;
        else if (res.status === 401) failures.push(`${name}: ${key(route)} → 401 (the session ended? ${res.text.slice(0, 80)})`);
        else if (allowed && isForbidden(res)) failures.push(`${name}: ${key(route)} declared allowed → 403 ${res.body.error.message}`);
        else if (!allowed && res.status !== 403) failures.push(`${name}: ${key(route)} declared refused → ${res.status}`);
      }
    }
    assert.equal(failures, []);
  },
);

complete(
  "each of the 7 roles on every GraphQL operation: refused with FORBIDDEN on the client's real data where not declared, never FORBIDDEN where declared; the system admin is refused",
  async () => {
    const failures: string[] = [];
    const realIds = (name: string): Record<string, string> => ({
      versionId: gid('TemplateVersion', idsA.version[name] ?? idsA.version.updateDraft),
      templateId: gid('Template', idsA.template),
      id: gid('Template', idsA.template),
      jobId: gid('Job', idsA.job),
      faultId: gid('Fault', idsA.fault),
      deviationId: gid('Deviation', idsA.deviation),
      skillId: gid('Skill', idsA.skill),
      userId: gid('User', idsA.operator),
      scheduleId: gid('Schedule', idsA.schedule),
    });
    for (const op of graphqlOps) {
      const declared = GRAPHQL_OPERATIONS[op.field.name];
      for (const role of ROLES) {
        const allowed = declared === 'any' || (PERMISSIONS[declared] as readonly Role[]).includes(role);
        // refused cells run on real data (a check after loading it must still refuse); allowed ones on missing ids (nothing changes)
        const result = await gql(srv, roleTokens.get(role), operationText(op, allowed ? {} : realIds(op.field.name)));
        const forbidden = result.codes.includes('FORBIDDEN');
        if (result.status >= 500 || !result.body) failures.push(`${role}: ${op.field.name} → ${result.status}`);
        else if (allowed && forbidden) failures.push(`${role}: ${op.field.name} declared allowed → FORBIDDEN`);
        else if (!allowed && !forbidden)
          failures.push(`${role}: ${op.field.name} declared refused → ${result.status} ${JSON.stringify(result.body).slice(0, 200)}`);
      }
      const asAdmin = await srv.request('POST', '/api/client/graphql', {
        ...attemptsTo(await adminToken(srv)),
        body: { query: operationText(op) },
      });
      if (asAdmin.status !== 403) failures.push(`system admin: ${op.field.name} → ${asAdmin.status}`);
    }
    assert.equal(failures, []);
  },
);

complete(
  "another client's token aimed at this client's ids: no answer contains any of its data, on any REST route or GraphQL operation",
  async () => {
    // the marker is really in what client A's own owner reads (so its absence below means something)
    const own = await gql(srv, clientA.owner.token, `query { job(id: "${gid('Job', idsA.job)}") { title } }`);
    assert.ok(JSON.stringify(own.body).includes(MARKER));
    const failures: string[] = [];
    const tokenB = clientB.owner.token;
    for (const globalId of idsA.all) {
      const id = Number(globalId.split(':')[1]);
      for (const route of allRoutes().filter((r) => r.auth === 'user' || r.auth === 'user-or-admin')) {
        if (!route.path.includes(':') && route.method !== 'get') continue;
        const res = await srv.request(
          route.method.toUpperCase(),
          concreteFor(route.path, id) + (route.method === 'get' ? `?clientId=${clientA.id}&id=${id}` : ''),
          { token: tokenB, body: route.method === 'get' ? undefined : { id, clientId: clientA.id, userId: id } },
        );
        if ((res.status >= 500 && !unconfiguredIntegration(res.status, res.body)) || res.text.includes(MARKER))
          failures.push(`${key(route)} with ${id} → ${res.status} ${res.text.slice(0, 120)}`);
      }
      for (const op of graphqlOps) {
        // every ID argument and input field (node(id) and nodes(ids) included) names client A's object
        const text = operationText(op, { '*': globalId }).replace(/ids: \[\]/, `ids: [${JSON.stringify(globalId)}]`);
        const res = await gql(srv, tokenB, text);
        if (res.status >= 500 || JSON.stringify(res.body).includes(MARKER))
          failures.push(`${op.field.name} with ${globalId} → ${JSON.stringify(res.body).slice(0, 120)}`);
      }
    }
    assert.equal(failures, []);
    assert.is(
      (await srv.request('GET', '/api/client/auth/me', { token: tokenB })).status,
      200,
      "client B's session is still good: the cells above were refused, not skipped",
    );
  },
);

complete("few cells were skipped for a route's own request budget", () => {
  assert.ok(skippedByBudgets < 100, `${skippedByBudgets} cells answered 429`);
});

complete.run();
