import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import BetterSqlite3 from 'better-sqlite3';
import { withStatementCache } from '#db/statement-cache';
import { LruCache } from '#lib/lru';

const test = suite('statement cache: prepared statements by SQL text, rows as better-sqlite3 builds them');

function setup() {
  const sqlite = new BetterSqlite3(':memory:');
  sqlite.exec(
    `create table t (id integer primary key, name text, n real, b blob, gone text); insert into t values (1, 'a', 1.5, x'00ff', 'x'), (2, null, null, null, 'y')`,
  );
  return { sqlite, db: withStatementCache(sqlite) };
}

test('rows equal what better-sqlite3 builds: keys, order, values and types', () => {
  const { sqlite, db } = setup();
  for (const sql of ['select * from t order by id', 'select id, name as "a b", n, id as id2 from t', 'select count(*), max(n) from t']) {
    const native = sqlite.prepare(sql).all();
    const cached = db.prepare(sql).all([]) as Record<string, unknown>[];
    assert.equal(cached, native, sql);
    assert.equal(
      cached.map((r) => Object.keys(r)),
      native.map((r) => Object.keys(r as object)),
      sql,
    );
  }
});

test('a repeated column name keeps its last value, as better-sqlite3 does', () => {
  const { sqlite, db } = setup();
  const sql = `select id as v, name as v from t where id = 1`;
  assert.equal(db.prepare(sql).all([]), sqlite.prepare(sql).all());
});

test('a RETURNING statement runs once per call', () => {
  const { sqlite, db } = setup();
  const insert = db.prepare(`insert into t (name) values (?) returning id, name`);
  assert.equal(insert.all(['c']), [{ id: 3, name: 'c' }]);
  assert.is((sqlite.prepare('select count(*) as n from t').get() as { n: number }).n, 3);
});

test('a cached select * follows a schema change made after it was prepared', () => {
  const { sqlite, db } = setup();
  const sql = 'select * from t where id = 1';
  db.prepare(sql).all([]);
  sqlite.exec('alter table t drop column gone');
  assert.equal(db.prepare(sql).all([]), [{ id: 1, name: 'a', n: 1.5, b: Buffer.from([0, 255]) }]);
});

test('a cached statement is reused; one still being iterated is not', () => {
  const { db } = setup();
  const sql = 'select id from t order by id';
  const first = db.prepare(sql);
  assert.is(db.prepare(sql), first);
  const rows = first.iterate([]);
  rows.next();
  const second = db.prepare(sql);
  assert.is.not(second, first, 'busy: a fresh statement');
  assert.equal(second.all([]), [{ id: 1 }, { id: 2 }]);
  rows.return?.();
  assert.is(db.prepare(sql), first);
});

test('LruCache forgets the least recently used entry first', () => {
  const lru = new LruCache<string, number>(2);
  lru.set('a', 1);
  lru.set('b', 2);
  assert.is(lru.get('a'), 1); // a is now the most recent
  lru.set('c', 3);
  assert.is(lru.get('b'), undefined);
  assert.is(lru.get('a'), 1);
  assert.is(lru.get('c'), 3);
  assert.is(lru.size, 2);
});

test.run();
