import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer } from '../helpers/server';
import { DOMAIN_TEST_ENV } from '../helpers/domain';
import { attackerKey, edited, fetchBundle, finishedJob, forged, OTHER_PHOTO, publishedKeys, resigned } from '../helpers/records';
import { cliEnv, runWip } from '../helpers/spawn-wip';

// `wip verify-bundle` checks a bundle offline: the server that made
// it is stopped before any check, and the CLI runs with a data directory that
// does not exist — what an auditor's machine has.

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-verify-bundle-'));
const nowhere = path.join(root, 'no-data-dir');
const file = (name: string, text: string) => {
  const at = path.join(root, name);
  fs.writeFileSync(at, text);
  return at;
};
let bundle: string;
let withPhotos: string;
let keysFile: string;
let kid: string;
let photoId: number;

const verify = suite('wip verify-bundle FILE [--key KEY] [--keys FILE]');
verify.before(async () => {
  const server = await startTestServer({ env: DOMAIN_TEST_ENV });
  try {
    const { job, operator, files } = await finishedJob(server);
    bundle = (await fetchBundle(server, operator.token!, job.id)).text;
    withPhotos = (await fetchBundle(server, operator.token!, job.id, true)).text;
    const keys = await publishedKeys(server);
    keysFile = file('keys.json', JSON.stringify(keys));
    kid = keys.keys[0].kid;
    photoId = files.photo.id;
  } finally {
    await server.stop();
  }
});
verify.after(() => fs.rmSync(root, { recursive: true, force: true }));

const run = (...args: string[]) => runWip(['verify-bundle', ...args], cliEnv(nowhere));

verify('an intact bundle verifies offline, with no data directory: exit 0, the key named as trusted', async () => {
  const result = await run(file('ok.json', withPhotos), '--key', keysFile);
  assert.is(result.code, 0, result.stdout + result.stderr);
  assert.match(result.stdout, `signed by key ${kid} (trusted)`);
  assert.match(result.stdout, /^VERIFIED: the record is intact and signed by a trusted key$/m);
  assert.match(result.stdout, /3 files \(3 included\)/);
  assert.not.ok(fs.existsSync(nowhere), 'nothing written: no data directory made');
  // the fingerprint alone works as the key, and --json gives the exact answer
  const json = await run(file('ok2.json', bundle), '--key', kid, '--json');
  assert.is(json.code, 0, json.stderr);
  const answer = JSON.parse(json.stdout);
  assert.equal([answer.ok, answer.verdict, answer.problems, answer.signer], [true, 'VERIFIED', [], { kid, trusted: true }]);
  // --keys takes the saved key set (and only a file)
  const saved = await run(file('ok3.json', bundle), '--keys', keysFile);
  assert.is(saved.code, 0, saved.stdout + saved.stderr);
  assert.match(saved.stdout, /^VERIFIED/m);
});

verify('without a trusted key even the genuine bundle is INTEGRITY ONLY: exit 3, never the word VERIFIED', async () => {
  const bare = await run(file('bare.json', bundle));
  assert.is(bare.code, 3, bare.stdout + bare.stderr);
  assert.match(bare.stdout, /not checked against a trusted key/);
  assert.match(bare.stdout, /^INTEGRITY ONLY — origin not verified/m);
  assert.not.match(bare.stdout, /^VERIFIED/m);
  const json = JSON.parse((await run(file('bare2.json', bundle), '--json')).stdout);
  assert.equal([json.ok, json.verdict, json.intact], [false, 'INTEGRITY_ONLY', true]);
});

verify('a complete forgery (value changed, audit entries and chain rewritten, re-signed) is never VERIFIED', async () => {
  const forgery = file('forged.json', await forged(bundle, (p) => (p.steps[0].values[0].value = 12)));
  // the attack that once passed: without a key, the forgery is as intact as the real record …
  const bare = await run(forgery);
  assert.is(bare.code, 3, bare.stdout);
  assert.match(bare.stdout, /INTEGRITY ONLY — origin not verified/);
  assert.not.match(bare.stdout, /FAIL/, 'the forgery is self-consistent: only the key can tell');
  // … and with the appliance's keys it is refused, naming the stranger's key
  for (const args of [
    ['--keys', keysFile],
    ['--key', kid],
  ]) {
    const keyed = await run(forgery, ...args);
    assert.is(keyed.code, 1, keyed.stdout);
    assert.match(keyed.stdout, /FAIL: signature: signed by key [\w-]{43}, which is not a trusted key of this appliance/);
    assert.match(keyed.stdout, /^NOT VERIFIED/m);
  }
  // a keys file that does not hold the signing key: refused too
  const stranger = await attackerKey();
  const otherKeys = file('other-keys.json', JSON.stringify({ keys: [{ ...stranger.jwk, kid: stranger.kid }] }));
  const wrongSet = await run(file('ok5.json', bundle), '--keys', otherKeys);
  assert.is(wrongSet.code, 1, wrongSet.stdout);
  assert.match(wrongSet.stdout, new RegExp(`signed by key ${kid}, which is not a trusted key`));
  // the genuine key in the header and in the keys file, but the signature broken
  const broken = JSON.parse(bundle);
  broken.jws.signature = Buffer.from(broken.jws.signature, 'base64url').reverse().toString('base64url');
  const badSignature = await run(file('broken.json', JSON.stringify(broken)), '--keys', keysFile);
  assert.is(badSignature.code, 1, badSignature.stdout);
  assert.match(badSignature.stdout, /FAIL: signature: the signature does not verify/);
});

verify('tampering exits 1 naming exactly what is wrong', async () => {
  const photo = JSON.parse(withPhotos);
  photo.attachments.find((a: any) => a.fileId === photoId).data = OTHER_PHOTO.toString('base64');
  const cases: [string, string, RegExp][] = [
    ['value.json', edited(bundle, (p) => (p.steps[0].values[0].value = 12)), /FAIL: signature: the signature does not verify/],
    ['photo.json', JSON.stringify(photo), new RegExp(`FAIL: attachment: photo ${photoId} \\(seal.png\\) does not match its hash`)],
    ['resigned.json', await resigned(bundle), /FAIL: signature: signed by key [\w-]{43}, which is not a trusted key of this appliance/],
    ['entry.json', edited(bundle, (p) => p.audit.entries.splice(1, 1)), /FAIL: audit: entry \d+ is missing from the chain slice/],
    [
      'content.json',
      edited(bundle, (p) => (p.instruction.content = p.instruction.content.replace('Sign off', 'Skip'))),
      /FAIL: instruction: the version content does not match its hash/,
    ],
  ];
  for (const [name, text, expected] of cases) {
    const result = await run(file(name, text), '--key', keysFile);
    assert.is(result.code, 1, `${name}: ${result.stdout}`);
    assert.match(result.stdout, expected, name);
    assert.match(result.stdout, /NOT VERIFIED/);
  }
  const stripped = JSON.parse(bundle);
  delete stripped.jws.signature;
  const unsigned = await run(file('unsigned.json', JSON.stringify(stripped)), '--key', keysFile);
  assert.is(unsigned.code, 1);
  assert.match(unsigned.stdout, /FAIL: the bundle is not signed: its JWS signature is missing/);
});

verify('bad input: a missing file, a file that is no bundle, a key that is no key', async () => {
  const missing = await run(path.join(root, 'nope.json'));
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /cannot read .*nope\.json/);
  const notBundle = await run(file('not.json', 'hello'));
  assert.is(notBundle.code, 1);
  assert.match(notBundle.stdout, /not a record bundle: the file is not JSON/);
  const badKey = await run(file('ok4.json', bundle), '--key', 'not-a-key');
  assert.is(badKey.code, 1);
  assert.match(badKey.stderr, /--key not-a-key: not a key/);
  const noKeysFile = await run(file('ok6.json', bundle), '--keys', path.join(root, 'no-keys.json'));
  assert.is(noKeysFile.code, 1);
  assert.match(noKeysFile.stderr, /--keys .*no-keys\.json: cannot read the file/);
  const emptySet = await run(file('ok7.json', bundle), '--keys', file('empty-keys.json', '{"keys": []}'));
  assert.is(emptySet.code, 1);
  assert.match(emptySet.stderr, /no Ed25519 key in the key file/);
});

verify.run();
