import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer } from '../helpers/server';
import { buildClient } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { cliEnv, runWip } from '../helpers/spawn-wip';

// Entries made by real HTTP calls on a server, which is then stopped; each test
// tampers with a copy of its database directly, as an intruder with file access would.

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-audit-'));
const pristine = path.join(root, 'pristine');
let clientA: number;
let clientB: number;
/** row ids of client A's entries by seq */
let idsA: Record<number, number>;

const verify = suite('wip audit verify');
verify.before(async () => {
  const server = await startTestServer({ env: { WIP_DATA_DIR: pristine } });
  try {
    const a = await buildClient(server);
    const b = await buildClient(server);
    clientA = a.id;
    clientB = b.id;
    for (const mutation of [
      'createAssetClass(input: {name: "Pump"}) { assetClass { id } }',
      'createLocation(input: {name: "Hall"}) { location { id } }',
      'createAsset(input: {name: "P-1", serialNumber: "S1"}) { asset { id } }',
      'createSensor(input: {name: "T1", unit: "C", kind: "temperature"}) { sensor { id } }',
      'createAsset(input: {name: "P-2"}) { asset { id } }',
    ]) {
      const result = await gql(server, a.owner.token, `mutation { ${mutation} }`);
      assert.equal(result.errors, undefined, JSON.stringify(result.body));
    }
    for (const mutation of ['createSensor(input: {name: "B1"}) { sensor { id } }', 'createAsset(input: {name: "B-1"}) { asset { id } }']) {
      assert.equal((await gql(server, b.owner.token, `mutation { ${mutation} }`)).errors, undefined);
    }
  } finally {
    await server.stop();
  }
  const db = new BetterSqlite3(path.join(pristine, 'wip.db'), { readonly: true });
  const rows = db.prepare('SELECT id, seq FROM audit_entries WHERE client_id = ? ORDER BY seq').all(clientA) as {
    id: number;
    seq: number;
  }[];
  db.close();
  assert.is(rows.length, 5);
  idsA = Object.fromEntries(rows.map((r) => [r.seq, r.id]));
});
verify.after(() => fs.rmSync(root, { recursive: true, force: true }));

let copies = 0;
/** A copy of the pristine data directory, with `tamper` applied to its database. */
function tampered(tamper?: (db: BetterSqlite3.Database) => void): string {
  const dir = path.join(root, `copy-${++copies}`);
  fs.cpSync(pristine, dir, { recursive: true });
  if (tamper) {
    const db = new BetterSqlite3(path.join(dir, 'wip.db'));
    tamper(db);
    db.close();
  }
  return dir;
}

const run = (dir: string, ...args: string[]) => runWip(['audit', 'verify', ...args], cliEnv(dir));

verify('an untouched chain passes (exit 0), for every client and in JSON', async () => {
  const dir = tampered();
  const human = await run(dir);
  assert.is(human.code, 0, human.stderr);
  assert.match(human.stdout, new RegExp(`client ${clientA}: 5 entries, chain intact`));
  assert.match(human.stdout, new RegExp(`client ${clientB}: 2 entries, chain intact`));
  const json = await run(dir, '--json');
  assert.is(json.code, 0);
  const report = JSON.parse(json.stdout);
  assert.is(report.ok, true);
  assert.equal(
    report.clients.filter((c: { clientId: number }) => [clientA, clientB].includes(c.clientId)),
    [
      { clientId: clientA, entries: 5, broken: null },
      { clientId: clientB, entries: 2, broken: null },
    ],
  );
});

verify("an edited row's `after` is caught, naming the entry", async () => {
  const dir = tampered((db) =>
    db.prepare(`UPDATE audit_entries SET "after" = replace("after", 'Hall', 'Yard') WHERE client_id = ? AND seq = 2`).run(clientA),
  );
  const result = await run(dir);
  assert.is(result.code, 1, result.stdout);
  assert.match(
    result.stdout,
    `client ${clientA}: BROKEN at entry 2 (row id ${idsA[2]}): content does not match its hash: the entry was edited`,
  );
  assert.match(result.stdout, new RegExp(`client ${clientB}: 2 entries, chain intact`));
});

verify('a deleted middle row is caught, naming the missing entry', async () => {
  const dir = tampered((db) => db.prepare('DELETE FROM audit_entries WHERE client_id = ? AND seq = 3').run(clientA));
  const result = await run(dir, '--json');
  assert.is(result.code, 1);
  const report = JSON.parse(result.stdout);
  assert.is(report.ok, false);
  const broken = report.clients.find((c: { clientId: number }) => c.clientId === clientA).broken;
  assert.equal({ entryId: broken.entryId, seq: broken.seq }, { entryId: idsA[4], seq: 4 });
  assert.match(broken.reason, /entry 3 is missing/);
});

verify('two rows swapped (reordered) are caught at the first of them', async () => {
  const dir = tampered((db) => {
    const swap = db.prepare('UPDATE audit_entries SET seq = ? WHERE client_id = ? AND seq = ?');
    db.transaction(() => {
      swap.run(-1, clientA, 2);
      swap.run(2, clientA, 3);
      swap.run(3, clientA, -1);
    })();
  });
  const result = await run(dir);
  assert.is(result.code, 1);
  assert.match(result.stdout, `client ${clientA}: BROKEN at entry 2 (row id ${idsA[3]}): does not link to the previous entry`);
});

verify('a deleted last row is caught: the head names the missing entry', async () => {
  const dir = tampered((db) => db.prepare('DELETE FROM audit_entries WHERE client_id = ? AND seq = 5').run(clientA));
  const result = await run(dir);
  assert.is(result.code, 1);
  assert.match(result.stdout, `client ${clientA}: BROKEN at entry 5: entry 5 is missing: the chain ends at entry 4 but its head says 5`);
});

verify('a chain whose head was deleted with all its entries is still found', async () => {
  const dir = tampered((db) => db.prepare('DELETE FROM audit_heads WHERE client_id = ?').run(clientA));
  const result = await run(dir);
  assert.is(result.code, 1);
  assert.match(result.stdout, `client ${clientA}: BROKEN at entry 5 (row id ${idsA[5]}): the chain has 5 entries but no head`);
});

verify('--client-id limits the walk to one client', async () => {
  const dir = tampered((db) => db.prepare('DELETE FROM audit_entries WHERE client_id = ? AND seq = 1').run(clientA));
  const onlyB = await run(dir, '--client-id', String(clientB), '--json');
  assert.is(onlyB.code, 0, onlyB.stderr);
  assert.equal(JSON.parse(onlyB.stdout), { ok: true, clients: [{ clientId: clientB, entries: 2, broken: null }], checkpoints: [] });
  const onlyA = await run(dir, '--client-id', String(clientA));
  assert.is(onlyA.code, 1);
  assert.match(onlyA.stdout, `client ${clientA}: BROKEN at entry 2 (row id ${idsA[2]}): entry 1 is missing`);
  assert.not.match(onlyA.stdout, `client ${clientB}`);
});

verify('usage errors exit 2; an unknown client exits 1 with one line on stderr', async () => {
  const dir = tampered();
  assert.is((await run(dir, '--client-id', 'abc')).code, 2);
  assert.is((await run(dir, '--client-id', '0')).code, 2);
  const unknown = await run(dir, '--client-id', '999999');
  assert.is(unknown.code, 1);
  assert.is(unknown.stderr.trim().split('\n').length, 1);
  assert.match(unknown.stderr, /Client 999999 not found/);
});

verify.run();
