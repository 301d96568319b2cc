import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer } from '../helpers/server';
import { DOMAIN_TEST_ENV } from '../helpers/domain';
import { edited, fetchBundle, finishedJob, OTHER_PHOTO, publishedKeys, resigned } from '../helpers/records';
import { cliEnv, runWip } from '../helpers/spawn-wip';

// `wip verify-bundle` (issue 34) checks a bundle offline: the server that made
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

const verify = suite('wip verify-bundle FILE [--key KEY]');
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
  assert.match(result.stdout, /VERIFIED: the record is intact/);
  assert.match(result.stdout, /3 files \(3 included\)/);
  assert.not.ok(fs.existsSync(nowhere), 'nothing written: no data directory made');
  // the fingerprint alone works as the key, and --json gives the exact answer
  const json = await run(file('ok2.json', bundle), '--key', kid, '--json');
  assert.is(json.code, 0, json.stderr);
  const answer = JSON.parse(json.stdout);
  assert.equal([answer.ok, answer.problems, answer.signer], [true, [], { kid, trusted: true }]);
  // no key: integrity only, and it says so
  const bare = await run(file('ok3.json', bundle));
  assert.is(bare.code, 0);
  assert.match(bare.stdout, /not checked against a trusted key/);
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
});

verify.run();
