import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser } from '../helpers/factories';
import { upload } from '../helpers/upload';

async function publish(server: TestServer, body: Record<string, unknown>) {
  const res = await server.request('POST', '/api/admin/agreement', {
    token: await adminToken(server),
    body: { title: 'Terms', bodyMarkdown: '# Terms\n\nBe nice.', ...body },
  });
  assert.is(res.status, 201, res.text);
  return res.body.data;
}

const TINY_PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);

// ---------------------------------------------------------------------------
const admin = suite('/api/admin/agreement');
let server: TestServer;
admin.before(async () => {
  server = await startTestServer();
});
admin.after(async () => server.stop());

admin('no token → 401; a client user → 403', async () => {
  assert.is((await server.request('GET', '/api/admin/agreement')).status, 401);
  const client = await buildClient(server);
  const res = await server.request('POST', '/api/admin/agreement', {
    token: client.owner.token,
    body: { kind: 'eula', version: 'x', title: 't', bodyMarkdown: 'b' },
  });
  assert.is(res.status, 403);
});

admin('POST publishes a version; GET lists it, filtered by kind; PUT changes it', async () => {
  const created = await publish(server, { kind: 'eula', version: '1.0', requiresReacceptance: true });
  assert.equal(
    [created.kind, created.version, created.title, created.hasPdf, created.requiresReacceptance],
    ['eula', '1.0', 'Terms', false, true],
  );
  assert.type(created.effectiveAt, 'string');
  await publish(server, { kind: 'msa', version: '1.0' });
  const token = await adminToken(server);
  const list = await server.request('GET', '/api/admin/agreement?kind=eula', { token });
  assert.is(list.status, 200);
  assert.ok(list.body.data.items.every((a: { kind: string }) => a.kind === 'eula'));
  assert.ok(list.body.data.items.some((a: { id: number }) => a.id === created.id));
  const put = await server.request('PUT', `/api/admin/agreement/${created.id}`, { token, body: { title: 'End-User Terms' } });
  assert.is(put.status, 200, put.text);
  assert.is(put.body.data.title, 'End-User Terms');
  assert.is(put.body.data.version, '1.0');
});

admin('409 for an existing version of the kind', async () => {
  await publish(server, { kind: 'eula', version: 'dup' });
  const res = await server.request('POST', '/api/admin/agreement', {
    token: await adminToken(server),
    body: { kind: 'eula', version: 'dup', title: 't', bodyMarkdown: 'b' },
  });
  assert.is(res.status, 409);
});

admin('422 without a body or PDF, with a file that is not a PDF, or an unknown kind', async () => {
  const token = await adminToken(server);
  const none = await server.request('POST', '/api/admin/agreement', { token, body: { kind: 'msa', version: 'n1', title: 't' } });
  assert.is(none.status, 422);
  const notPdf = await server.request('POST', '/api/admin/agreement', {
    token,
    body: { kind: 'msa', version: 'n2', title: 't', pdfBase64: Buffer.from('hello').toString('base64') },
  });
  assert.is(notPdf.status, 422);
  assert.is(notPdf.body.error.details.fields[0].path, 'body.pdfBase64');
  const kind = await server.request('POST', '/api/admin/agreement', {
    token,
    body: { kind: 'nda', version: 'n3', title: 't', bodyMarkdown: 'b' },
  });
  assert.is(kind.status, 422);
});

admin('PUT of an unknown agreement → 404', async () => {
  const res = await server.request('PUT', '/api/admin/agreement/999999', { token: await adminToken(server), body: { title: 'x' } });
  assert.is(res.status, 404);
});

admin.run();

// ---------------------------------------------------------------------------
const gate = suite('agreement gate (MSA per client, EULA per user)');
let g: TestServer;
gate.before(async () => {
  g = await startTestServer();
});
gate.after(async () => g.stop());

gate('MSA and EULA acceptance, re-acceptance on a new version', async () => {
  const client = await buildClient(g);
  const member = await buildUser(g, client, { roles: ['author'] });
  const other = await buildClient(g);
  const info = (token: string | undefined) => g.request('GET', '/api/client/client-info', { token });

  assert.is((await info(member.token)).status, 200); // nothing published yet

  await publish(g, { kind: 'msa', version: '1', title: 'Master Services Agreement' });
  const blocked = await info(member.token);
  assert.is(blocked.status, 403);
  assert.is(blocked.body.error.code, 'MSA_NOT_ACCEPTED');
  // agreement, licensing and auth routes stay open
  assert.is((await g.request('GET', '/api/client/agreement', { token: member.token })).status, 200);
  assert.is((await g.request('GET', '/api/client/license', { token: member.token })).status, 200);
  assert.is((await g.request('GET', '/api/client/auth/me', { token: member.token })).status, 200);
  const before = await g.request('GET', '/api/client/have-client-accepted-msa', { token: member.token });
  assert.equal(before.body.data, {
    accepted: false,
    required: true,
    version: '1',
    acceptedVersion: null,
    acceptedAt: null,
    acceptedBy: null,
  });

  const notSa = await g.request('POST', '/api/client/accept-msa', { token: member.token, body: {} });
  assert.is(notSa.status, 403);
  const accepted = await g.request('POST', '/api/client/accept-msa', {
    token: client.owner.token,
    body: { version: '1' },
    headers: { 'user-agent': 'gate-test' },
  });
  assert.is(accepted.status, 200, accepted.text);
  assert.is(accepted.body.data.acceptance.userAgent, 'gate-test');
  const after = await g.request('GET', '/api/client/have-client-accepted-msa', { token: member.token });
  assert.equal([after.body.data.accepted, after.body.data.version, after.body.data.acceptedBy.userId], [true, '1', client.owner.id]);
  assert.type(after.body.data.acceptedAt, 'string');
  assert.is((await info(member.token)).status, 200); // accepted for the whole client
  const seenByMember = await g.request('GET', '/api/client/agreement', { token: member.token });
  assert.equal([seenByMember.body.data.accepted, 'ip' in seenByMember.body.data.acceptance], [true, false]);
  const seenByOwner = await g.request('GET', '/api/client/agreement', { token: client.owner.token });
  assert.is(seenByOwner.body.data.acceptance.userAgent, 'gate-test');
  const otherBlocked = await info(other.owner.token);
  assert.is(otherBlocked.body.error.code, 'MSA_NOT_ACCEPTED'); // per client
  await g.request('POST', '/api/client/accept-msa', { token: other.owner.token, body: {} });

  await publish(g, { kind: 'eula', version: '1', title: 'EULA' });
  assert.is((await info(member.token)).body.error.code, 'EULA_NOT_ACCEPTED');
  const eula = await g.request('GET', '/api/client/eula', { token: member.token });
  assert.equal([eula.status, eula.body.data.agreement.version, eula.body.data.accepted], [200, '1', false]);
  const accept = await g.request('POST', '/api/client/eula/accept', {
    token: member.token,
    body: {},
    headers: { 'user-agent': 'eula-agent' },
  });
  assert.is(accept.status, 200, accept.text);
  const acceptance = accept.body.data.acceptance;
  assert.equal([acceptance.version, acceptance.userAgent, acceptance.acceptedBy.userId], ['1', 'eula-agent', member.id]);
  assert.ok(acceptance.ip);
  assert.type(acceptance.acceptedAt, 'string');
  assert.is((await info(member.token)).status, 200);
  assert.is((await info(client.owner.token)).body.error.code, 'EULA_NOT_ACCEPTED'); // per user

  // a new version that does not require re-acceptance: the earlier acceptance still counts
  await publish(g, { kind: 'eula', version: '2', requiresReacceptance: false });
  assert.is((await info(member.token)).status, 200);
  const v2 = await g.request('GET', '/api/client/eula', { token: member.token });
  assert.equal([v2.body.data.agreement.version, v2.body.data.accepted, v2.body.data.acceptance.version], ['2', true, '1']);

  // one that does: earlier acceptances are stale
  await publish(g, { kind: 'eula', version: '3', requiresReacceptance: true });
  assert.is((await info(member.token)).body.error.code, 'EULA_NOT_ACCEPTED');
  const stale = await g.request('POST', '/api/client/eula/accept', { token: member.token, body: { version: '2' } });
  assert.is(stale.status, 409);
  assert.is((await g.request('POST', '/api/client/eula/accept', { token: member.token, body: { version: '3' } })).status, 200);
  assert.is((await info(member.token)).status, 200);

  // a new MSA requiring re-acceptance blocks the client again
  await publish(g, { kind: 'msa', version: '2', requiresReacceptance: true });
  assert.is((await info(member.token)).body.error.code, 'MSA_NOT_ACCEPTED');
});

gate('a version effective in the future is not yet current', async () => {
  const client = await buildClient(g);
  await g.request('POST', '/api/client/accept-msa', { token: client.owner.token, body: {} });
  await g.request('POST', '/api/client/eula/accept', { token: client.owner.token, body: {} });
  assert.is((await g.request('GET', '/api/client/client-info', { token: client.owner.token })).status, 200);
  const future = new Date(g.clock.now().getTime() + 60_000).toISOString();
  await publish(g, { kind: 'eula', version: 'future', requiresReacceptance: true, effectiveAt: future });
  assert.is((await g.request('GET', '/api/client/client-info', { token: client.owner.token })).status, 200);
  // the gate's reads are cached until a write: the version comes into force by the clock alone, with no write
  g.clock.advance(61_000);
  assert.is((await g.request('GET', '/api/client/client-info', { token: client.owner.token })).body.error?.code, 'EULA_NOT_ACCEPTED');
  await g.request('POST', '/api/client/eula/accept', { token: client.owner.token, body: {} });
  assert.is((await g.request('GET', '/api/client/client-info', { token: client.owner.token })).status, 200);
});

gate.run();

// ---------------------------------------------------------------------------
const off = suite('agreement gate switched off (WIP_AGREEMENT_GATE=false)');
let o: TestServer;
off.before(async () => {
  o = await startTestServer({ env: { WIP_AGREEMENT_GATE: 'false' } });
});
off.after(async () => o.stop());

off('client routes answer without accepted agreements', async () => {
  const client = await buildClient(o);
  await publish(o, { kind: 'msa', version: '1' });
  await publish(o, { kind: 'eula', version: '1' });
  const res = await o.request('GET', '/api/client/client-info', { token: client.owner.token });
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.id, client.id);
});

off.run();

// ---------------------------------------------------------------------------
const download = suite('GET /api/client/download-agreement');
let d: TestServer;
download.before(async () => {
  d = await startTestServer();
});
download.after(async () => d.stop());

async function fetchPdf(token: string) {
  const res = await fetch(`${d.url}/api/client/download-agreement`, { headers: { authorization: `Bearer ${token}` } });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

download('404 while no MSA is published; 401 without a token', async () => {
  const client = await buildClient(d);
  const res = await d.request('GET', '/api/client/download-agreement', { token: client.owner.token });
  assert.is(res.status, 404);
  assert.is(res.headers.get('x-ratelimit-limit'), '20'); // on every response of the route
  assert.is((await d.request('GET', '/api/client/download-agreement')).status, 401);
});

download('the MSA rendered from Markdown as a PDF attachment, with the rate-limit headers', async () => {
  await publish(d, {
    kind: 'msa',
    version: '2024.1',
    title: 'Master Services Agreement',
    bodyMarkdown: '# MSA\n\n1. **Scope** of the services\n- item\n\nText with a [link](https://example.test).',
  });
  const client = await buildClient(d);
  const { res, bytes } = await fetchPdf(client.owner.token);
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'application/pdf');
  assert.match(res.headers.get('content-disposition') ?? '', /attachment; filename="msa-2024.1.pdf"/);
  assert.is(bytes.subarray(0, 5).toString('latin1'), '%PDF-');
  assert.is(res.headers.get('x-ratelimit-limit'), '20');
  assert.is(res.headers.get('x-ratelimit-remaining'), '19');
  assert.match(res.headers.get('x-ratelimit-reset') ?? '', /^\d+$/);
});

download('an uploaded PDF is served as uploaded', async () => {
  await publish(d, {
    kind: 'msa',
    version: '2024.2',
    bodyMarkdown: null,
    pdfBase64: TINY_PDF.toString('base64'),
    fileName: 'Master Agreement.pdf',
  });
  const client = await buildClient(d);
  const { res, bytes } = await fetchPdf(client.owner.token);
  assert.is(res.status, 200);
  assert.ok(bytes.equals(TINY_PDF));
  assert.match(res.headers.get('content-disposition') ?? '', /filename="Master Agreement.pdf"/);
});

download(
  'a PDF uploaded with POST /api/admin/upload is published by fileId and served as uploaded; a non-PDF or unknown id is 422',
  async () => {
    const token = await adminToken(d);
    const up = await upload(d, token, [{ name: 'Terms 2024.3.pdf', data: TINY_PDF }], { path: '/api/admin/upload' });
    assert.is(up.status, 201, up.text);
    const text = await upload(d, token, [{ name: 'notes.txt', data: 'not a pdf' }], { path: '/api/admin/upload' });
    const refusedText = await d.request('POST', '/api/admin/agreement', {
      token,
      body: { kind: 'msa', version: '2024.3x', title: 'MSA', fileId: text.body.data.files[0].id },
    });
    assert.is(refusedText.status, 422, refusedText.text);
    const unknown = await d.request('POST', '/api/admin/agreement', {
      token,
      body: { kind: 'msa', version: '2024.3y', title: 'MSA', fileId: 999999 },
    });
    assert.is(unknown.status, 422, unknown.text);
    assert.is(unknown.body.error.details.fields[0].path, 'body.fileId');
    await publish(d, { kind: 'msa', version: '2024.3', title: 'MSA', fileId: up.body.data.files[0].id });
    const client = await buildClient(d);
    const { res, bytes } = await fetchPdf(client.owner.token);
    assert.is(res.status, 200);
    assert.ok(bytes.equals(TINY_PDF));
    assert.match(res.headers.get('content-disposition') ?? '', /filename="Terms 2024.3.pdf"/);
  },
);

download('20 requests per 15 minutes per user: the 21st → 429 RATE_LIMITED with Retry-After', async () => {
  const client = await buildClient(d);
  for (let i = 1; i <= 20; i++) {
    const { res } = await fetchPdf(client.owner.token);
    assert.is(res.status, 200, `request ${i}`);
    assert.is(res.headers.get('x-ratelimit-remaining'), String(20 - i));
  }
  const { res, bytes } = await fetchPdf(client.owner.token);
  assert.is(res.status, 429);
  const body = JSON.parse(bytes.toString('utf8'));
  assert.is(body.error.code, 'RATE_LIMITED');
  assert.ok(Number(res.headers.get('retry-after')) > 0);
  assert.is(res.headers.get('x-ratelimit-limit'), '20');
  assert.is(res.headers.get('x-ratelimit-remaining'), '0');
  const reset = Number(res.headers.get('x-ratelimit-reset'));
  assert.ok(Number.isInteger(reset) && reset * 1000 > Date.now() && reset * 1000 <= Date.now() + 15 * 60 * 1000 + 1000);
  // another user has their own budget
  const other = await buildUser(d, client, { roles: ['viewer'] });
  assert.is((await fetchPdf(other.token!)).res.status, 200);
});

download.run();
