import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { DOMAIN_TEST_ENV } from '../helpers/domain';
import { edited, fetchBundle, finishedJob, publishedKeys, resigned } from '../helpers/records';
import { verifyRecordBundle } from '#domain/record-verify';

// The verifier fuzzed with malformed bundles: byte flips, cuts,
// values of the wrong type or size anywhere in the file and in the signed
// payload (re-signed or not). Every one must be refused with a clear problem —
// never a crash, never "verified". Seeded: a failure reproduces.

let server: TestServer;
let text: string;
let keys: { keys: any[] };
const fuzz = suite('the record bundle verifier, fuzzed');
fuzz.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
  const { job, operator } = await finishedJob(server);
  text = (await fetchBundle(server, operator.token!, job.id, true)).text;
  keys = await publishedKeys(server);
  await server.stop();
});

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ODD_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1e308,
  'x',
  '',
  'A'.repeat(70_000),
  [],
  {},
  [[[[[]]]]],
  { format: 'wip-record-bundle' },
  '\u0000\ud800',
  NaN,
];

function paths(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (out.length > 5000) return out;
  if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const p = [...prefix, Array.isArray(value) ? Number(key) : key];
      out.push(p);
      paths(child, p, out);
    }
  }
  return out;
}

/** Changes one random place of `root`; returns where, and whether it was a removal. */
function mutateAt(root: any, random: () => number): { path: (string | number)[]; removed: boolean } {
  const all = paths(root);
  const target = all[Math.floor(random() * all.length)];
  let parent = root;
  for (const key of target.slice(0, -1)) parent = parent[key];
  const last = target[target.length - 1];
  const roll = random();
  if (roll < 0.3) {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
    return { path: target, removed: true };
  }
  parent[last] = ODD_VALUES[Math.floor(random() * ODD_VALUES.length)];
  return { path: target, removed: false };
}

async function refused(input: string, what: string): Promise<void> {
  let result;
  try {
    result = await verifyRecordBundle(input, keys);
  } catch (error) {
    assert.unreachable(`${what}: the verifier threw ${(error as Error).stack}`);
    return;
  }
  assert.is(result.ok, false, `${what}: verified a malformed bundle`);
  assert.ok(
    result.problems.length > 0 && result.problems.every((p) => typeof p === 'string' && p.length > 10),
    `${what}: ${JSON.stringify(result.problems)}`,
  );
}

fuzz('the untouched bundle verifies (the baseline the cases break)', async () => {
  assert.equal((await verifyRecordBundle(text, keys)).problems, []);
});

fuzz('not a bundle at all: empty, not JSON, other JSON, deep nesting, huge input', async () => {
  for (const [input, what] of [
    ['', 'empty'],
    ['{', 'cut JSON'],
    ['null', 'null'],
    ['[]', 'an array'],
    ['"wip-record-bundle"', 'a string'],
    ['{"format":"wip-record-bundle","formatVersion":2}', 'a future version'],
    ['{"format":"wip-record-bundle","formatVersion":1,"jws":{"protected":"e30","payload":"","signature":"AA"}}', 'an empty payload'],
    ['['.repeat(200_000) + ']'.repeat(200_000), 'nesting beyond any stack'],
    [
      JSON.stringify({ format: 'wip-record-bundle', formatVersion: 1, jws: { protected: '!!', payload: '!!', signature: '!!' } }),
      'not base64url',
    ],
  ] as const) {
    await refused(input, what);
  }
});

fuzz('byte flips and cuts anywhere in the file', async () => {
  const random = seeded(34);
  for (let i = 0; i < 150; i++) {
    const bytes = Buffer.from(text, 'utf8');
    const at = Math.floor(random() * bytes.length);
    let mutated: string;
    if (i % 3 === 0) mutated = bytes.subarray(0, at).toString('utf8');
    else {
      bytes[at] = (bytes[at] + 1 + Math.floor(random() * 254)) % 256;
      mutated = bytes.toString('utf8');
    }
    if (mutated === text) continue;
    // a flip inside insignificant whitespace, or into an equivalent JSON escape, leaves the same bundle: not a case
    try {
      if (JSON.stringify(JSON.parse(mutated)) === JSON.stringify(JSON.parse(text))) continue;
    } catch {
      // not JSON: a case
    }
    await refused(mutated, `case ${i}: byte ${at}`);
  }
});

fuzz('values of the wrong type, size or presence in the file, and in the signed payload (edited, then re-signed)', async () => {
  const random = seeded(7515);
  const original = JSON.parse(text);
  for (let i = 0; i < 120; i++) {
    const file = JSON.parse(text);
    const { path, removed } = mutateAt(file, random);
    // photos are optional in a bundle, each one too: leaving one out is no damage
    if (removed && path[0] === 'attachments' && path.length <= 2) continue;
    if (JSON.stringify(file) === JSON.stringify(original)) continue;
    await refused(JSON.stringify(file), `file case ${i} at ${path.join('.')}`);
  }
  for (let i = 0; i < 80; i++) {
    const seed = Math.floor(random() * 1e9);
    const change = (payload: any) => void mutateAt(payload, seeded(seed));
    const changed = edited(text, change);
    if (JSON.parse(changed).jws.payload === original.jws.payload) continue; // the same value written over itself
    await refused(changed, `payload case ${i} (seed ${seed})`);
    await refused(await resigned(text, change), `re-signed payload case ${i} (seed ${seed})`);
  }
});

fuzz.run();
