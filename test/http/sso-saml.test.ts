import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import forge from 'node-forge';
import { SignedXml } from 'xml-crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, type BuiltClient } from '../helpers/factories';

// A test-only IdP key pair and certificate; responses are built and signed here with xml-crypto.
function testIdpKeys(commonName: string) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(Date.now() - 3600_000);
  cert.validity.notAfter = new Date(Date.now() + 24 * 3600_000);
  cert.setSubject([{ name: 'commonName', value: commonName }]);
  cert.setIssuer([{ name: 'commonName', value: commonName }]);
  cert.sign(forge.pki.privateKeyFromPem(keyPem), forge.md.sha256.create());
  return { keyPem, certPem: forge.pki.certificateToPem(cert) };
}

let server: TestServer;
let client: BuiltClient;
const idpKeys = testIdpKeys('test-only SAML IdP');
const otherKeys = testIdpKeys('test-only attacker');
const IDP = 'https://idp.corp.test/saml';
const PROVIDER = 'corp-saml';

const test = suite('SAML sign-in: POST /api/client/auth/vendor-saml');
test.before(async () => {
  server = await startTestServer();
  client = await buildClient(server);
  const res = await server.request('POST', `/api/admin/client/${client.id}/sso`, {
    token: client.owner.token,
    body: { name: PROVIDER, kind: 'saml', issuer: IDP, idpCertificates: [idpKeys.certPem], jit: { enabled: true } },
  });
  assert.is(res.status, 201, res.text);
});
test.after(async () => server.stop());

const iso = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

function assertionXml(
  email: string,
  options: { audience?: string; notOnOrAfter?: string; recipient?: string; id?: string; inResponseTo?: string } = {},
) {
  const audience = options.audience ?? `${server.url}/api/client/auth/vendor-saml/metadata?provider=${PROVIDER}`;
  const recipient = options.recipient ?? `${server.url}/api/client/auth/vendor-saml`;
  const until = options.notOnOrAfter ?? iso(5 * 60_000);
  return `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${options.id ?? '_' + randomUUID()}" Version="2.0" IssueInstant="${iso(0)}"><saml:Issuer>${IDP}</saml:Issuer><saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${email}</saml:NameID><saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${until}" Recipient="${recipient}"${options.inResponseTo ? ` InResponseTo="${options.inResponseTo}"` : ''}/></saml:SubjectConfirmation></saml:Subject><saml:Conditions NotBefore="${iso(-60_000)}" NotOnOrAfter="${until}"><saml:AudienceRestriction><saml:Audience>${audience.replace(/&/g, '&amp;')}</saml:Audience></saml:AudienceRestriction></saml:Conditions><saml:AuthnStatement AuthnInstant="${iso(0)}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:Password</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement><saml:AttributeStatement><saml:Attribute Name="email"><saml:AttributeValue>${email}</saml:AttributeValue></saml:Attribute></saml:AttributeStatement></saml:Assertion>`;
}

function sign(assertion: string, keys = idpKeys): string {
  const signer = new SignedXml({
    privateKey: keys.keyPem,
    publicCert: keys.certPem,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  signer.addReference({
    xpath: "//*[local-name(.)='Assertion']",
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
  });
  signer.computeSignature(assertion, { location: { reference: "//*[local-name(.)='Issuer']", action: 'after' } });
  return signer.getSignedXml();
}

function response(assertions: string, prefix = '', inResponseTo?: string) {
  const xml = `${prefix}<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_${randomUUID()}"${inResponseTo ? ` InResponseTo="${inResponseTo}"` : ''} Version="2.0" IssueInstant="${iso(0)}" Destination="${server.url}/api/client/auth/vendor-saml"><saml:Issuer>${IDP}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>${assertions}</samlp:Response>`;
  return Buffer.from(xml).toString('base64');
}

const post = (samlResponse: string) => server.request('POST', '/api/client/auth/vendor-saml', { body: { samlResponse } });
const usersWithEmail = async (email: string) =>
  (await server.deps.db.kysely.selectFrom('users').select('id').where('client_id', '=', client.id).where('email', '=', email).execute())
    .length;

test('a signed assertion signs the user in (provisioned), like password sign-in; the same assertion again is a replay', async () => {
  const signed = response(sign(assertionXml('ann@corp.test')));
  const res = await post(signed);
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.user.email, 'ann@corp.test');
  assert.ok(res.body.data.token && res.body.data.refreshToken);
  assert.ok(res.headers.getSetCookie().some((c) => c.startsWith('wip_session=')));
  const replay = await post(signed);
  assert.is(replay.status, 401);
  assert.is(replay.body.error.code, 'SSO_FAILED');
});

test('unsigned, wrongly signed, wrapped, expired, wrong audience, wrong recipient and DOCTYPE responses are refused with 401; nothing is provisioned', async () => {
  const cases: [string, string][] = [
    ['unsigned', response(assertionXml('u1@corp.test'))],
    ['wrongly signed', response(sign(assertionXml('u2@corp.test'), otherKeys))],
    ['signature-wrapped', response(assertionXml('u3@corp.test') + sign(assertionXml('victim-signed@corp.test')))],
    ['expired', response(sign(assertionXml('u4@corp.test', { notOnOrAfter: iso(-10 * 60_000) })))],
    ['wrong audience', response(sign(assertionXml('u5@corp.test', { audience: 'https://another-sp.test/metadata' })))],
    ['wrong recipient', response(sign(assertionXml('u6@corp.test', { recipient: 'https://another-sp.test/acs' })))],
    [
      'doctype',
      response(sign(assertionXml('u7@corp.test')), '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>'),
    ],
  ];
  for (const [name, body] of cases) {
    const res = await post(body);
    assert.is(res.status, 401, `${name}: ${res.text}`);
    assert.is(res.body.error.code, 'SSO_FAILED', name);
  }
  for (const email of ['u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7', 'victim-signed'])
    assert.is(await usersWithEmail(`${email}@corp.test`), 0, email);
});

test('SP-initiated: the AuthnRequest goes to the entryPoint; a response answering it is accepted once; an unknown InResponseTo is refused', async () => {
  const providers = await server.request('GET', `/api/admin/client/${client.id}/sso`, { token: client.owner.token });
  const id = providers.body.data.find((p: { name: string }) => p.name === PROVIDER).id;
  assert.is(
    (await server.request('GET', `/api/client/auth/vendor-saml?provider=${PROVIDER}`)).status,
    404,
    'no entryPoint: no SP-initiated sign-in',
  );
  const put = await server.request('PUT', `/api/admin/client/${client.id}/sso/${id}`, {
    token: client.owner.token,
    body: { entryPoint: 'https://idp.corp.test/saml/sso' },
  });
  assert.is(put.status, 200, put.text);

  const start = await server.request('GET', `/api/client/auth/vendor-saml?provider=${PROVIDER}`);
  assert.is(start.status, 302, start.text);
  const location = new URL(start.headers.get('location')!);
  assert.is(location.origin + location.pathname, 'https://idp.corp.test/saml/sso');
  const request = inflateRawSync(Buffer.from(location.searchParams.get('SAMLRequest')!, 'base64')).toString('utf8');
  assert.ok(request.includes(`${server.url}/api/client/auth/vendor-saml`), request);
  const requestId = /\bID="([^"]+)"/.exec(request)![1];

  const email = `sp-${randomUUID()}@corp.test`;
  const answer = (assertionId = '_' + randomUUID(), inResponseTo = requestId) =>
    post(response(sign(assertionXml(email, { id: assertionId, inResponseTo })), '', inResponseTo));
  const unknown = await answer(undefined, '_' + randomUUID());
  assert.is(unknown.status, 401, unknown.text);
  assert.is(await usersWithEmail(email), 0);
  const ok = await answer();
  assert.is(ok.status, 200, ok.text);
  assert.is(ok.body.data.user.email, email);
  // the request is answered once (a fresh assertion id, so not the replay cache)
  const again = await answer();
  assert.is(again.status, 401, again.text);
});

test('an unsigned error response with a body-sized status message is refused without storing the message whole', async () => {
  const message = 'm'.repeat(200_000);
  const xml = `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_${randomUUID()}" Version="2.0" IssueInstant="${iso(0)}"><saml:Issuer>${IDP}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Responder"/><samlp:StatusMessage>${message}</samlp:StatusMessage></samlp:Status></samlp:Response>`;
  const requestId = randomUUID();
  // the refusals of the tests above locked this provider for this IP: wait that lock out
  server.clock.advance(server.deps.config.lockoutDuration + 1000);
  const res = await server.request('POST', '/api/client/auth/vendor-saml', {
    body: { samlResponse: Buffer.from(xml).toString('base64') },
    headers: { 'x-request-id': requestId },
  });
  assert.is(res.status, 401, res.text);
  const rows = await server.deps.db.kysely
    .selectFrom('logs')
    .select(['event', 'message', 'data'])
    .where('request_id', '=', requestId)
    .execute();
  assert.is(rows.length, 1);
  assert.is(rows[0].event, 'auth.sso_refused');
  // the library's message quotes the status message: the start is kept, not 200 000 characters twice
  assert.ok(rows[0].message.includes('SAML provider returned Responder error: mmm'), rows[0].message.slice(0, 200));
  assert.ok(rows[0].message.length + rows[0].data.length < 2048, `${rows[0].message.length + rows[0].data.length} characters stored`);
});

test('SP metadata names the entity id and the ACS URL', async () => {
  const res = await fetch(`${server.url}/api/client/auth/vendor-saml/metadata?provider=${PROVIDER}`);
  assert.is(res.status, 200);
  const xml = await res.text();
  assert.ok(xml.includes(`entityID="${server.url}/api/client/auth/vendor-saml/metadata?provider=${PROVIDER}"`.replace('&', '&amp;')));
  assert.ok(xml.includes(`Location="${server.url}/api/client/auth/vendor-saml"`));
  assert.is((await fetch(`${server.url}/api/client/auth/vendor-saml/metadata?provider=nope`)).status, 404);
});

test.run();
