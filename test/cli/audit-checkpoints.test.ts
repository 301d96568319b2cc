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
import { hashAuditEntry } from '#repos/audit';

// Signed chain checkpoints and the signing keys from the CLI:
// `wip audit checkpoint`, `wip audit verify` against stored and exported
// checkpoints, `wip keys list|rotate`, and the fingerprint in `wip doctor`.
// Each test tampers with a copy of a data directory, as an intruder with file
// access would: cutting entries off the end AND moving the head back leaves a
// chain that verifies on its own — only a checkpoint tells.

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-checkpoints-'));
const pristine = path.join(root, 'pristine');
let clientId: number;

const checkpoints = suite('wip audit checkpoint, wip keys');
checkpoints.before(async () => {
  const server = await startTestServer({ env: { WIP_DATA_DIR: pristine } });
  try {
    const client = await buildClient(server);
    clientId = client.id;
    for (const name of ['P-1', 'P-2', 'P-3', 'P-4']) {
      assert.equal(
        (await gql(server, client.owner.token, `mutation { createAsset(input: {name: "${name}"}) { asset { id } } }`)).errors,
        undefined,
      );
    }
  } finally {
    await server.stop({ keepData: true });
  }
});
checkpoints.after(() => fs.rmSync(root, { recursive: true, force: true }));

let copies = 0;
function copy(): string {
  const dir = path.join(root, `copy-${++copies}`);
  fs.cpSync(pristine, dir, { recursive: true });
  return dir;
}
/** Cuts the chain back to `seq` entries and moves the head with it: a chain that verifies on its own. */
function truncate(dir: string, seq: number, options: { dropCheckpoints?: boolean } = {}): void {
  const db = new BetterSqlite3(path.join(dir, 'wip.db'));
  db.transaction(() => {
    db.prepare('DELETE FROM audit_entries WHERE client_id = ? AND seq > ?').run(clientId, seq);
    const last = db.prepare('SELECT hash FROM audit_entries WHERE client_id = ? AND seq = ?').get(clientId, seq) as { hash: string };
    db.prepare('UPDATE audit_heads SET seq = ?, hash = ? WHERE client_id = ?').run(seq, last.hash, clientId);
    if (options.dropCheckpoints) db.prepare('DELETE FROM audit_checkpoints').run();
  })();
  db.close();
}
const wip = (dir: string, ...args: string[]) => runWip(args, cliEnv(dir));

checkpoints('a chain truncated after a checkpoint is caught by wip audit verify; without a checkpoint it would pass', async () => {
  const dir = copy();
  const made = await wip(dir, 'audit', 'checkpoint', '--client-id', String(clientId), '--json');
  assert.is(made.code, 0, made.stderr);
  const [checkpoint] = JSON.parse(made.stdout);
  assert.is(checkpoint.seq, 4);
  assert.match(checkpoint.kid, /^[\w-]{43}$/);
  assert.is((await wip(dir, 'audit', 'verify')).code, 0);

  const exported = path.join(root, 'checkpoint.json');
  const exportRun = await wip(dir, 'audit', 'checkpoint', '--client-id', String(clientId), '--export', exported);
  assert.is(exportRun.code, 0, exportRun.stderr);
  assert.is(JSON.parse(fs.readFileSync(exported, 'utf8')).format, 'wip-audit-checkpoint');

  // the control: truncated with no checkpoint anywhere, the chain verifies
  const blind = copy();
  truncate(blind, 2);
  assert.is((await wip(blind, 'audit', 'verify')).code, 0, 'a truncated chain alone looks intact');

  truncate(dir, 2);
  const caught = await wip(dir, 'audit', 'verify');
  assert.is(caught.code, 1, caught.stdout);
  assert.match(caught.stdout, `client ${clientId}: 2 entries, chain intact`);
  assert.match(
    caught.stdout,
    new RegExp(
      `client ${clientId}: CHECKPOINT \\d+ NOT MATCHED: the checkpoint signed on .+ covers entry 4, which the chain no longer has: entries were cut off its end`,
    ),
  );

  // the intruder also deleted the stored checkpoints: the outsider's copy still tells
  const wiped = copy();
  await wip(wiped, 'audit', 'checkpoint', '--client-id', String(clientId));
  truncate(wiped, 3, { dropCheckpoints: true });
  assert.is((await wip(wiped, 'audit', 'verify')).code, 0);
  const outsider = await wip(wiped, 'audit', 'verify', '--checkpoint', exported, '--json');
  assert.is(outsider.code, 1, outsider.stdout);
  const report = JSON.parse(outsider.stdout);
  assert.equal(
    report.checkpoints.map((c: any) => [c.clientId, c.checkpointId, c.seq]),
    [[clientId, null, 4]],
  );
});

checkpoints('a chain rewritten with a new head after a checkpoint is caught', async () => {
  const dir = copy();
  assert.is((await wip(dir, 'audit', 'checkpoint')).code, 0);
  // the last entry replaced by a forged one, rehashed so the chain alone verifies
  const db = new BetterSqlite3(path.join(dir, 'wip.db'));
  const row = db.prepare('SELECT * FROM audit_entries WHERE client_id = ? AND seq = 4').get(clientId) as any;
  const forged = { ...row, after: row.after.replace('P-4', 'P-9') };
  const hash = hashAuditEntry(forged);
  db.prepare('UPDATE audit_entries SET "after" = ?, hash = ? WHERE id = ?').run(forged.after, hash, row.id);
  db.prepare('UPDATE audit_heads SET hash = ? WHERE client_id = ?').run(hash, clientId);
  db.close();
  const result = await wip(dir, 'audit', 'verify', '--client-id', String(clientId));
  assert.is(result.code, 1, result.stdout);
  assert.match(result.stdout, /entry 4 does not have the hash the checkpoint signed on .+: the chain was rewritten/);
});

checkpoints('wip keys rotate keeps the old key published; doctor shows the active fingerprint; old checkpoints still verify', async () => {
  const dir = copy();
  assert.is((await wip(dir, 'audit', 'checkpoint')).code, 0);
  const before = JSON.parse((await wip(dir, 'keys', 'list', '--json')).stdout);
  assert.is(before.keys.length, 1);
  const doctor = await wip(dir, 'doctor');
  assert.match(doctor.stdout, new RegExp(`signing-key.*fingerprint ${before.keys[0].kid}`));
  const rotated = await wip(dir, 'keys', 'rotate', '--json');
  assert.is(rotated.code, 0, rotated.stderr);
  const result = JSON.parse(rotated.stdout);
  assert.is.not(result.active, before.keys[0].kid);
  assert.equal(
    result.keys.map((k: any) => [k.kid, Boolean(k.retiredAt)]),
    [
      [before.keys[0].kid, true],
      [result.active, false],
    ],
  );
  const secrets = JSON.parse(fs.readFileSync(path.join(dir, 'secrets.json'), 'utf8'));
  assert.is(secrets.signingKeys[0].privateKey, undefined, 'a retired key cannot sign again');
  assert.match((await wip(dir, 'doctor')).stdout, new RegExp(`fingerprint ${result.active}.*1 retired key`));
  // the checkpoint signed by the retired key still holds
  assert.is((await wip(dir, 'audit', 'verify')).code, 0);
  assert.is((await wip(dir, 'audit', 'checkpoint')).code, 0);
  assert.is((await wip(dir, 'audit', 'verify')).code, 0);
});

checkpoints.run();
