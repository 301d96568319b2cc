import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseQuery } from '#http/route';

const test = suite("route query strings: parsed as Koa's ctx.query parses them");

// what Koa 3's ctx.query gives (koa/lib/search-params.js: URLSearchParams, one property per name)
function koaQuery(querystring: string): Record<string, unknown> {
  const params = new URLSearchParams(querystring);
  const query: Record<string, unknown> = {};
  for (const key of params.keys()) {
    const values = params.getAll(key);
    Object.defineProperty(query, key, {
      value: values.length <= 1 ? values[0] : values,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
  return query;
}

test('the same names and values, malformed escapes and prototype names included', () => {
  const cases = [
    '',
    'a',
    'a=',
    '=b',
    'a=1&a=2',
    'a=1&&b=2',
    'a+b=c+d',
    'a=%zz',
    'a=%E0%A4%A',
    'a=%E2%82%AC',
    'a=%ED%A0%80',
    'a=%00',
    '__proto__=x',
    'constructor=1&toString=2',
    'a=1;b=2',
    'a=%2',
    'a=%',
    'a[]=1&a[]=2',
    'a=b=c',
    '%61=1',
    'a=%C0%80',
    'a=%F0%9F%98%80',
    'a=%FF',
    'a=%e2%82',
    'limit=50&cursor=aWQ6NDUwMDM',
    'search=J%C3%BCrgen+M',
  ];
  for (const querystring of cases)
    assert.equal(JSON.stringify({ ...parseQuery(querystring) }), JSON.stringify(koaQuery(querystring)), querystring);
  const many = Array.from({ length: 1500 }, (_, i) => `k${i}=${i}`).join('&');
  assert.is(Object.keys(parseQuery(many)).length, 1500);
});

test.run();
