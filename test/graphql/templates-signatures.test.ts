import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Secret, TOTP } from 'otpauth';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, PASSWORD } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { advance, APPROVE, buildTeam, createTemplate, ok, PUBLISH } from '../helpers/templates';

// Approve and publish are electronic signatures (21 CFR Part 11): the signer
// re-authenticates, and a wrong password counts toward the sign-in lockout.

const MAX_FAILURES = 3;
let server: TestServer;
const signatures = suite('GraphQL electronic signatures on approve and publish');
signatures.before(async () => {
  server = await startTestServer({
    env: { WIP_SIGN_IN_RATE_LIMIT_MAX: '1000', WIP_LOCKOUT_MAX_FAILURES: String(MAX_FAILURES), WIP_LOCKOUT_IP_MAX_FAILURES: '1000' },
  });
});
signatures.after(async () => server.stop());

const codeFor = (secret: string) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({
    timestamp: server.clock.now().getTime(),
  });

const signaturesOf = async (token: string, id: string) =>
  ok(await gql(server, token, `query ($id: ID!) { templateVersion(id: $id) { state signatures { meaning } } }`, { id })).templateVersion;

signatures('a wrong password → INVALID_CREDENTIALS, nothing signed, the version stays where it was', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  const created = await createTemplate(server, team.author.token);
  const id = created.latestVersion.id;
  await advance(server, team, id, 'IN_REVIEW');
  const wrong = await gql(server, team.approver.token, APPROVE, { id, password: 'not-my-password' });
  assert.equal(wrong.codes, ['INVALID_CREDENTIALS']);
  assert.equal(await signaturesOf(team.author.token, id), { state: 'IN_REVIEW', signatures: [] });
  const none = await gql(server, team.approver.token, APPROVE, { id });
  assert.equal(none.codes, ['VALIDATION_ERROR']);
  ok(await gql(server, team.approver.token, APPROVE, { id, password: PASSWORD }));
  const publishWrong = await gql(server, team.publisher.token, PUBLISH, { id, password: 'nope' });
  assert.equal(publishWrong.codes, ['INVALID_CREDENTIALS']);
  assert.equal(await signaturesOf(team.author.token, id), { state: 'APPROVED', signatures: [{ meaning: 'APPROVED' }] });
});

signatures('a wrong signature says "Invalid password or code" and is logged as a failed signature, not a failed sign-in', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  const created = await createTemplate(server, team.author.token);
  const id = created.latestVersion.id;
  await advance(server, team, id, 'IN_REVIEW');
  const wrong = await gql(server, team.approver.token, APPROVE, { id, password: 'not-my-password' });
  assert.equal(
    wrong.errors?.map((e) => [e.extensions?.code, e.message]),
    [['INVALID_CREDENTIALS', 'Invalid password or code']],
  );
  const admin = await adminToken(server);
  const eventsOf = async (event: string) =>
    (await server.request('GET', `/api/admin/logs?event=${event}&limit=200`, { token: admin })).body.data.items.filter(
      (item: { data: { email?: string } }) => item.data.email === team.approver.email,
    );
  const failed = await eventsOf('auth.signature_failed');
  assert.is(failed.length, 1);
  assert.match(failed[0].message, /^Failed electronic signature: wrong password on an electronic signature/);
  assert.is(failed[0].userId, team.approver.id);
  assert.equal(await eventsOf('auth.sign_in_failed'), []);
});

signatures(
  'wrong signatures count toward the sign-in lockout: enough of them → TOO_MANY_ATTEMPTS, even for the right password, and sign-in is locked too',
  async () => {
    const client = await buildClient(server);
    const team = await buildTeam(server, client);
    const created = await createTemplate(server, team.author.token);
    const id = created.latestVersion.id;
    await advance(server, team, id, 'IN_REVIEW');
    for (let i = 1; i < MAX_FAILURES; i++) {
      assert.equal((await gql(server, team.approver.token, APPROVE, { id, password: `wrong-${i}` })).codes, ['INVALID_CREDENTIALS']);
    }
    assert.equal((await gql(server, team.approver.token, APPROVE, { id, password: 'wrong-last' })).codes, ['TOO_MANY_ATTEMPTS']);
    assert.equal((await gql(server, team.approver.token, APPROVE, { id, password: PASSWORD })).codes, ['TOO_MANY_ATTEMPTS']);
    const signIn = await server.request('POST', '/api/client/auth/sign-in', { body: { email: team.approver.email, password: PASSWORD } });
    assert.is(signIn.status, 429);
    assert.is(signIn.body.error.code, 'TOO_MANY_ATTEMPTS');
    assert.equal(await signaturesOf(team.author.token, id), { state: 'IN_REVIEW', signatures: [] });
  },
);

signatures('a user with two-factor signs with a current TOTP code; a wrong code → INVALID_CREDENTIALS', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  const setup = await server.request('POST', '/api/client/auth/two-factor/setup', {
    token: team.publisher.token,
    body: { password: PASSWORD },
  });
  assert.is(setup.status, 200, setup.text);
  const secret = setup.body.data.secret as string;
  const enable = await server.request('POST', '/api/client/auth/two-factor/enable', {
    token: team.publisher.token,
    body: { code: codeFor(secret) },
  });
  assert.is(enable.status, 200, enable.text);
  server.clock.advance(30_000); // the enabling code's time step is spent
  const created = await createTemplate(server, team.author.token);
  const id = created.latestVersion.id;
  await advance(server, team, id, 'APPROVED');
  assert.equal((await gql(server, team.publisher.token, PUBLISH, { id, code: '000000' })).codes, ['INVALID_CREDENTIALS']);
  const published = ok(await gql(server, team.publisher.token, PUBLISH, { id, code: codeFor(secret) })).publishVersion.version;
  assert.is(published.state, 'PUBLISHED');
  assert.equal(
    published.signatures.map((s: any) => [s.meaning, s.signer.id]),
    [
      ['APPROVED', team.approver.id],
      ['PUBLISHED', team.publisher.id],
    ],
  );
  const method = await server.deps.db.kysely
    .selectFrom('version_signatures')
    .select('method')
    .where('version_id', '=', created.latestVersion.databaseId)
    .where('meaning', '=', 'PUBLISHED')
    .executeTakeFirstOrThrow();
  assert.is(method.method, 'totp');
});

signatures('a TOTP code from a user without two-factor is refused like a wrong password', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  const created = await createTemplate(server, team.author.token);
  const id = created.latestVersion.id;
  await advance(server, team, id, 'IN_REVIEW');
  assert.equal((await gql(server, team.approver.token, APPROVE, { id, code: '123456' })).codes, ['INVALID_CREDENTIALS']);
});

signatures.run();
