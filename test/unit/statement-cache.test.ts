import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import BetterSqlite3 from 'better-sqlite3';
import { withStatementCache } from '../../src/db/statement-cache';
import { LruCache } from '../../src/lib/lru';

const test = suite('statement cache: rows built from arrays');

function setup() {
  const sqlite = new BetterSqlite3(':memory:');
  sqlite.exec(`create table t (id integer primary key, name text, n real, b blob, gone text); insert into t values (1, 'a', 1.5, x'00ff', 'x'), (2, null, null, null, 'y')`);
  return { sqlite, db: withStatementCache(sqlite) };
}

test('rows equal what better-sqlite3 builds: keys, order, values and types', () => {
  const { sqlite, db } = setup();
  for (const sql of ['select * from t order by id', 'select id, name as "a b", n, id as id2 from t', 'select count(*), max(n) from t']) {
    const native = sqlite.prepare(sql).all();
    const cached = db.prepare(sql).all([]) as Record<string, unknown>[];
    assert.equal(cached, native, sql);
    assert.equal(cached.map((r) => Object.keys(r)), native.map((r) => Object.keys(r as object)), sql);
  }
});

test('a repeated column name keeps its last value, as better-sqlite3 does', () => {
  const { sqlite, db } = setup();
  const sql = `select id as v, name as v from t where id = 1`;
  assert.equal(db.prepare(sql).all([]), sqlite.prepare(sql).all());
});

test('a column named __proto__ is an own property, not the prototype', () => {
  const { db } = setup();
  const [row] = db.prepare(`select 'x' as "__proto__", 1 as id`).all([]) as Record<string, unknown>[];
  assert.is(Object.getPrototypeOf(row), Object.prototype);
  assert.equal(Object.getOwnPropertyDescriptor(row, '__proto__')?.value, 'x');
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

test('explicit columns are read through wip_row: the same rows, in the same order, as better-sqlite3 reads', () => {
  const { sqlite, db } = setup();
  sqlite.exec(`with recursive k(v) as (select 3 union all select v + 1 from k where v < 40) insert into t (name, n, b, gone) select 'n' || v, v / 3.0, null, 'z' from k`);
  for (const sql of [
    'select id, name, n, b from t order by id',
    'select name, id from t where id > ? order by name desc limit ? + 0',
    'select max("n"), "t"."name" as "a ""b""" from t group by gone order by 2',
    'select id, name from t where id = 1 -- a trailing comment',
    'select id, name as ID from t order by id', // names equal but for case: read as arrays
    'select id from t where id < 3;', // cannot be wrapped: read as arrays
  ]) {
    const parameters = sql.includes('?') ? [5, 7] : [];
    assert.equal(JSON.stringify(db.prepare(sql).all(parameters)), JSON.stringify(sqlite.prepare(sql).all(parameters)), sql);
  }
  assert.equal((db.prepare('select id from t where id in (1, 2) order by id desc').all([]) as { id: number }[]).map((r) => r.id), [2, 1]);
});

test('wip_row serves the statement cache only: not callable from other SQL, nor from the schema', () => {
  const { sqlite } = setup();
  assert.throws(() => sqlite.prepare('select wip_row(1)').get(), /statement cache only/);
  sqlite.exec('create view v as select wip_row(id) as r from t');
  assert.throws(() => sqlite.prepare('select * from v').all(), /unsafe use of wip_row/);
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
