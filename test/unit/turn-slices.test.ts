import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inTurnSlices } from '#lib/turn-slices';

const test = suite('inTurnSlices: at most a budget of work between two polls of the event loop, first come first served');

const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Counts event-loop turns (one immediate a turn) until stopped. */
function turnCounter() {
  const counter = { turns: 0, stop: () => (counting = false) };
  let counting = true;
  const tick = () => {
    counter.turns++;
    if (counting) setImmediate(tick);
  };
  setImmediate(tick);
  return counter;
}

test('an idle loop runs a call at once', () => {
  const ran: number[] = [];
  const run = inTurnSlices((i: number) => ran.push(i), 5);
  run(1);
  assert.equal(ran, [1]);
});

test('past the budget, calls wait and run in later turns, in arrival order, with polls in between', async () => {
  const ran: { i: number; turn: number }[] = [];
  const counter = turnCounter();
  const run = inTurnSlices((i: number) => {
    ran.push({ i, turn: counter.turns });
    busy(3);
  }, 2);
  // ten calls arriving together (as requests read in one poll): the first crosses the budget
  for (let i = 0; i < 10; i++) run(i);
  assert.equal(
    ran.map((r) => r.i),
    [0],
    'only the first runs in the turn they arrive in',
  );
  // a poll between two slices sees I/O: a timer firing here is the loop coming round
  let polls = 0;
  const poller = setInterval(() => polls++, 0);
  while (ran.length < 10) await turn();
  clearInterval(poller);
  counter.stop();
  assert.equal(
    ran.map((r) => r.i),
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  );
  for (let k = 1; k < ran.length; k++)
    assert.ok(ran[k].turn > ran[k - 1].turn, `call ${k} ran in turn ${ran[k].turn}, call ${k - 1} in ${ran[k - 1].turn}`);
  assert.ok(polls >= 5, `the loop came round between slices (${polls} timer runs)`);
});

test('a call arriving while others wait goes behind them, even when the slice has room', async () => {
  const ran: string[] = [];
  const run = inTurnSlices((name: string) => {
    ran.push(name);
    if (name === 'first') busy(3);
  }, 2);
  run('first');
  run('waiting');
  await Promise.resolve();
  run('later');
  while (ran.length < 3) await turn();
  assert.equal(ran, ['first', 'waiting', 'later']);
});

test('cheap calls share a slice: many run in one turn', async () => {
  const turns = new Set<number>();
  const counter = turnCounter();
  let done = 0;
  const run = inTurnSlices(() => {
    turns.add(counter.turns);
    done++;
  }, 1000); // a generous slice: a loaded machine pausing the process mid-loop must not split the turn
  for (let i = 0; i < 100; i++) run();
  while (done < 100) await turn();
  counter.stop();
  assert.is(turns.size, 1);
});

test.run();
