import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, type BuiltClient } from '../helpers/factories';
import en from '../../config/i18n/en.json';
import de from '../../config/i18n/de.json';
import { ERROR_STATUS } from '#errors';
import { settledRetainedHeap } from '../helpers/memory';

let server: TestServer;
let admin: string;
let a: BuiltClient;
let b: BuiltClient;
const i18n = suite('localization: admin entries, merged bundles, translated error messages');
i18n.before(async () => {
  server = await startTestServer();
  admin = await adminToken(server);
  [a, b] = [await buildClient(server), await buildClient(server)];
});
i18n.after(async () => server.stop());

const add = async (body: Record<string, unknown>) => {
  const res = await server.request('POST', '/api/admin/internationalization', { token: admin, body });
  assert.is(res.status, 201, res.text);
  return res.body.data;
};
const bundle = async (token: string, lang: string, headers: Record<string, string> = {}) =>
  server.request('GET', `/api/client/internalization/${encodeURIComponent(lang)}`, { token, headers });

i18n('the shipped bundles translate only known error codes, English covers every code', () => {
  const codes = Object.keys(ERROR_STATUS).sort();
  assert.equal(Object.keys(en.errors).sort(), codes);
  for (const code of Object.keys(de.errors)) assert.ok(codes.includes(code), code);
});

i18n('built-in < system < client override, with fallback de-AT → de → en; other clients never see an override', async () => {
  await add({ language: 'de', namespace: 'app', key: 'job', text: 'Auftrag' });
  await add({ language: 'en', namespace: 'app', key: 'job', text: 'Job' });
  await add({ language: 'en', namespace: 'app', key: 'asset', text: 'Asset' });
  const override = await add({ language: 'DE-at', namespace: 'app', key: 'job', text: 'Arbeitsauftrag', clientId: a.id });
  assert.is(override.language, 'de-AT');
  assert.is(override.clientId, a.id);
  await add({ language: 'de', namespace: 'errors', key: 'NOT_FOUND', text: 'Gibt es nicht', clientId: a.id });

  const mine = await bundle(a.owner.token, 'de-AT');
  assert.is(mine.status, 200, mine.text);
  assert.equal(mine.body.data.fallback, ['de-AT', 'de', 'en']);
  assert.is(mine.body.data.namespaces.app.job, 'Arbeitsauftrag');
  assert.is(mine.body.data.namespaces.app.asset, 'Asset', 'English fallback');
  assert.is(mine.body.data.namespaces.errors.NOT_FOUND, 'Gibt es nicht');
  assert.is(mine.body.data.namespaces.errors.FORBIDDEN, de.errors.FORBIDDEN, 'built-in German');

  const theirs = await bundle(b.owner.token, 'de-AT');
  assert.is(theirs.body.data.namespaces.app.job, 'Auftrag', "system text, not client A's override");
  assert.is(theirs.body.data.namespaces.errors.NOT_FOUND, de.errors.NOT_FOUND);
  assert.is((await bundle(b.owner.token, 'fr')).body.data.namespaces.app.job, 'Job');
});

i18n('translate returns the asked keys of one namespace', async () => {
  const res = await server.request('GET', '/api/client/translate?lang=de-AT&namespace=app&keys=job,asset,missing', {
    token: a.owner.token,
  });
  assert.is(res.status, 200, res.text);
  assert.equal(res.body.data, { language: 'de-AT', namespace: 'app', translations: { job: 'Arbeitsauftrag', asset: 'Asset' } });
  const all = await server.request('GET', '/api/client/translate?lang=en&namespace=errors', { token: a.owner.token });
  assert.is(all.body.data.translations.NOT_FOUND, en.errors.NOT_FOUND);
});

i18n('ETag and 304 until an entry changes; the route says how to cache', async () => {
  const first = await bundle(a.owner.token, 'de');
  const etag = first.headers.get('etag')!;
  assert.match(etag, /^"[\w-]+"$/);
  assert.is(first.headers.get('cache-control'), 'private, no-cache');
  const again = await bundle(a.owner.token, 'de', { 'If-None-Match': etag });
  assert.is(again.status, 304);
  assert.is(again.text, '');
  const otherClient = await bundle(b.owner.token, 'de', { 'If-None-Match': etag });
  assert.is(otherClient.status, 200, 'a different client has a different bundle');

  const list = await server.request('GET', '/api/admin/internationalization?language=de&namespace=app', { token: admin });
  assert.is(list.status, 200, list.text);
  const entry = list.body.data.items.find((e: { key: string; clientId: number | null }) => e.key === 'job' && e.clientId === null);
  const put = await server.request('PUT', `/api/admin/internationalization/${entry.id}`, { token: admin, body: { text: 'Job (de)' } });
  assert.is(put.status, 200, put.text);
  assert.is(put.body.data.text, 'Job (de)');
  const changed = await bundle(a.owner.token, 'de', { 'If-None-Match': etag });
  assert.is(changed.status, 200);
  assert.is(changed.body.data.namespaces.app.job, 'Job (de)');

  const t = await server.request('GET', '/api/client/translate?lang=de&namespace=app&keys=job', { token: a.owner.token });
  const t304 = await server.request('GET', '/api/client/translate?lang=de&namespace=app&keys=job', {
    token: a.owner.token,
    headers: { 'If-None-Match': t.headers.get('etag')! },
  });
  assert.is(t304.status, 304);
});

i18n('a malformed language tag is 422; so is one in an entry', async () => {
  for (const lang of ['en_US!', 'x', 'toolongsubtag123', 'de--AT']) {
    const res = await bundle(a.owner.token, lang);
    assert.is(res.status, 422, `${lang}: ${res.text}`);
    assert.is(res.body.error.code, 'VALIDATION_ERROR');
    const translate = await server.request('GET', `/api/client/translate?lang=${encodeURIComponent(lang)}&namespace=app`, {
      token: a.owner.token,
    });
    assert.is(translate.status, 422);
  }
  const res = await server.request('POST', '/api/admin/internationalization', {
    token: admin,
    body: { language: 'nope!', namespace: 'app', key: 'k', text: 't' },
  });
  assert.is(res.status, 422);
});

i18n('admin: duplicates are 409 with the existing id, unknown clients 422, unknown ids 404, filter by client', async () => {
  const entry = await add({ language: 'en', namespace: 'app', key: 'dup', text: 'One' });
  const dup = await server.request('POST', '/api/admin/internationalization', {
    token: admin,
    body: { language: 'en', namespace: 'app', key: 'dup', text: 'Two' },
  });
  assert.is(dup.status, 409);
  assert.equal(dup.body.error.details, { id: entry.id });
  await add({ language: 'en', namespace: 'app', key: 'dup', text: 'Mine', clientId: b.id });
  const unknown = await server.request('POST', '/api/admin/internationalization', {
    token: admin,
    body: { language: 'en', namespace: 'app', key: 'k', text: 't', clientId: 999999 },
  });
  assert.is(unknown.status, 422);
  const missing = await server.request('PUT', '/api/admin/internationalization/999999', { token: admin, body: { text: 'x' } });
  assert.is(missing.status, 404);
  const onlyB = await server.request('GET', `/api/admin/internationalization?clientId=${b.id}`, { token: admin });
  assert.equal(
    onlyB.body.data.items.map((e: { text: string }) => e.text),
    ['Mine'],
  );
  const clientCannot = await server.request('GET', '/api/admin/internationalization', { token: a.owner.token });
  assert.is(clientCannot.status, 403);
});

i18n('error messages follow Accept-Language where a translation exists; the code never changes', async () => {
  const path = '/api/admin/internationalization/999999';
  const plain = await server.request('PUT', path, { token: admin, body: { text: 'x' } });
  assert.is(plain.body.error.message, 'Translation not found');
  const german = await server.request('PUT', path, {
    token: admin,
    body: { text: 'x' },
    headers: { 'Accept-Language': 'fr-CH, fr;q=0.9, de;q=0.8' },
  });
  assert.equal(german.body.error, { code: 'NOT_FOUND', message: de.errors.NOT_FOUND });
  const english = await server.request('PUT', path, { token: admin, body: { text: 'x' }, headers: { 'Accept-Language': 'en-GB' } });
  assert.is(english.body.error.message, 'Translation not found', 'English keeps the specific message');
  const overridden = await server.request('GET', '/api/client/internalization/not!valid', {
    token: a.owner.token,
    headers: { 'Accept-Language': 'de-AT' },
  });
  assert.is(overridden.body.error.code, 'VALIDATION_ERROR');
  assert.is(overridden.body.error.message, de.errors.VALIDATION_ERROR);
  const notFound = await server.request('GET', '/api/client/no-such-route', { token: a.owner.token, headers: { 'Accept-Language': 'de' } });
  assert.equal([notFound.body.error.code, notFound.body.error.message], ['NOT_FOUND', 'Gibt es nicht'], "client A's override");
  const garbage = await server.request('GET', '/api/client/no-such-route', {
    token: a.owner.token,
    headers: { 'Accept-Language': ';;,*,q=,x-\u00ff, de;q=abc, de;q=5' },
  });
  assert.is(garbage.body.error.code, 'NOT_FOUND');
});

i18n('language tags by the thousand do not grow what the server keeps (bundles read, error answers in Accept-Language)', async () => {
  // every well-formed tag is accepted, so no cache may keep one entry per tag;
  // a system bundle of a real application's size makes each kept bundle count
  for (let i = 0; i < 100; i++) await add({ language: 'de', namespace: 'screens', key: `label.${i}`, text: `Beschriftung ${i}` });
  const tag = (n: number) => `de-x-${n.toString(36).padStart(6, 'a')}`;
  const read = async (from: number, to: number) => {
    for (let n = from; n < to; n += 20) {
      await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const res = await bundle(a.owner.token, tag(n + i));
          assert.is(res.status, 200, res.text);
          assert.is(res.body.data.namespaces.screens['label.7'], 'Beschriftung 7');
          // and an error answer of the same tag, from anyone
          await server.request('GET', '/api/client/no-such-route', { headers: { 'Accept-Language': tag(n + i) } });
        }),
      );
    }
  };
  await read(0, 200);
  const before = await settledRetainedHeap();
  await read(200, 2200);
  const grown = (await settledRetainedHeap()) - before;
  assert.ok(grown < 4 * 2 ** 20, `2000 distinct tags kept ${(grown / 2 ** 20).toFixed(1)} MB`);
  // still translated (by now the anonymous rate limit may answer instead of the router: 429 or 404)
  const answer = await server.request('GET', '/api/client/no-such-route', { headers: { 'Accept-Language': tag(0) } });
  const code = answer.body.error.code as keyof typeof de.errors;
  assert.ok(['NOT_FOUND', 'RATE_LIMITED'].includes(code), code);
  assert.is(answer.body.error.message, de.errors[code]);
});

i18n(
  'an error answer reads one language chain as a bundle would: most specific language first, client over system over built-in',
  async () => {
    const path = '/api/client/no-such-route';
    const message = async (token: string, language: string) =>
      (await server.request('GET', path, { token, headers: { 'Accept-Language': language } })).body.error.message;
    assert.is(await message(b.owner.token, 'de-CH'), de.errors.NOT_FOUND, 'de-CH falls back to the built-in German');
    await add({ language: 'de-CH', namespace: 'errors', key: 'NOT_FOUND', text: 'Nöd gfunde' });
    assert.is(await message(b.owner.token, 'de-CH'), 'Nöd gfunde', 'a system entry in the more specific language wins');
    assert.is(await message(b.owner.token, 'de'), de.errors.NOT_FOUND);
    await add({ language: 'de-CH', namespace: 'errors', key: 'NOT_FOUND', text: 'Hier nöd', clientId: b.id });
    assert.is(await message(b.owner.token, 'de-CH'), 'Hier nöd', 'the client’s own entry wins over the system’s');
    assert.is(await message(admin, 'de-CH'), 'Nöd gfunde', 'callers of no client get the system’s');
    assert.is(await message(b.owner.token, 'fr, de-CH;q=0.5'), 'Hier nöd', 'a language without any text is skipped');
  },
);

i18n.run();
