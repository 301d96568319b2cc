import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PasswordHasher } from '#lib/password-hasher';

const test = suite('PasswordHasher (bcrypt in worker threads)');
const hasher = new PasswordHasher(4, 2);
test.after(() => hasher.close());

test('hashes and verifies; wrong passwords fail', async () => {
  const hash = await hasher.hash('pa55word-long-enough');
  assert.match(hash, /^\$2[aby]\$04\$/);
  assert.is(await hasher.verify('pa55word-long-enough', hash), true);
  assert.is(await hasher.verify('wrong', hash), false);
  assert.is(await hasher.verifyAgainstDummy('anything'), false);
});

test('the event loop stays responsive while hashes run', async () => {
  const slow = new PasswordHasher(10, 2);
  try {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    await Promise.all(Array.from({ length: 4 }, (_, i) => slow.hash(`password-${i}`)));
    clearInterval(timer);
    // hashing 4 × cost 10 takes ≥ 100 ms on any machine; the 5 ms timer must have kept firing
    assert.ok(ticks >= 5, `only ${ticks} ticks`);
  } finally {
    await slow.close();
  }
});

test.run();
