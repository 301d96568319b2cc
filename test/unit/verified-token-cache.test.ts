import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { VerifiedTokenCache } from '#lib/verified-token-cache';

const test = suite('VerifiedTokenCache');

test('returns claims until their exp, then forgets them', () => {
  const cache = new VerifiedTokenCache<{ exp?: number; sid: number }>();
  cache.set('t1', { exp: 100, sid: 1 });
  assert.equal(cache.get('t1', 99), { exp: 100, sid: 1 });
  assert.is(cache.get('t1', 100), undefined);
  assert.is(cache.get('t1', 50), undefined); // gone for good once expired
  assert.is(cache.get('unknown', 0), undefined);
});

test('is bounded: the oldest entry goes first', () => {
  const cache = new VerifiedTokenCache<{ exp?: number }>(2);
  cache.set('a', { exp: 10 });
  cache.set('b', { exp: 10 });
  cache.set('c', { exp: 10 });
  assert.is(cache.get('a', 0), undefined);
  assert.ok(cache.get('b', 0));
  assert.ok(cache.get('c', 0));
});

test.run();
