import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseRecurrence } from '#domain/recurrence';
import {
  choiceOf,
  defaultChoice,
  LAST_DAY,
  problemsOf,
  ruleOf,
  summaryOf,
  type RecurrenceChoice,
} from '../../src/app/areas/supervisor/recurrence';

// The app's recurrence builder (src/app/areas/supervisor/recurrence.ts): each choice becomes the RRULE and start
// the server takes — checked against the server's own parser — and a saved rule reads back as the same choice.

const test = suite('the schedule form’s recurrence builder');
const base = defaultChoice('2026-12-07');
const choice = (changes: Partial<RecurrenceChoice>): RecurrenceChoice => ({ ...base, ...changes });

const shapes: [string, RecurrenceChoice, string][] = [
  ['daily at 07:00', base, 'FREQ=DAILY'],
  ['every 2 days at 22:30', choice({ interval: 2, time: '22:30' }), 'FREQ=DAILY;INTERVAL=2'],
  ['weekly on Monday', choice({ kind: 'weekly', weekdays: ['MO'] }), 'FREQ=WEEKLY;BYDAY=MO'],
  // the days are written Monday first, whatever order they were ticked in
  ['weekly on Friday and Monday', choice({ kind: 'weekly', weekdays: ['FR', 'MO'] }), 'FREQ=WEEKLY;BYDAY=MO,FR'],
  ['every other week on Wednesday', choice({ kind: 'weekly', interval: 2, weekdays: ['WE'] }), 'FREQ=WEEKLY;INTERVAL=2;BYDAY=WE'],
  ['monthly on the first', choice({ kind: 'monthly', monthDay: 1 }), 'FREQ=MONTHLY;BYMONTHDAY=1'],
  ['monthly on the last day', choice({ kind: 'monthly', monthDay: LAST_DAY }), 'FREQ=MONTHLY;BYMONTHDAY=-1'],
  ['every 6 hours', choice({ kind: 'hourly', interval: 6, time: '06:00' }), 'FREQ=HOURLY;INTERVAL=6'],
  ['every hour', choice({ kind: 'hourly', interval: 1 }), 'FREQ=HOURLY'],
];

for (const [name, picked, rule] of shapes) {
  test(`${name}: ${rule}, a rule the server takes, read back as the same choice`, () => {
    const written = ruleOf(picked);
    assert.is(written.recurrence, rule);
    assert.is(written.startsAt, `2026-12-07T${picked.time}`);
    assert.equal(problemsOf(picked), []);
    const parsed = parseRecurrence(written.recurrence, written.startsAt, 'Europe/Berlin');
    assert.ok('recurrence' in parsed, JSON.stringify(parsed));
    const read = choiceOf(written.recurrence, written.startsAt);
    assert.is(read.kind, picked.kind);
    assert.equal(ruleOf(read), written);
    assert.ok(summaryOf(written.recurrence, written.startsAt));
  });
}

test('a rule the builder cannot say stays advanced, as written (never rewritten)', () => {
  for (const rule of [
    'FREQ=MONTHLY;BYDAY=1MO',
    'FREQ=WEEKLY;BYDAY=WE,MO',
    'FREQ=DAILY;INTERVAL=1',
    'FREQ=DAILY;COUNT=10',
    'FREQ=MONTHLY;BYMONTHDAY=31',
    'FREQ=HOURLY;INTERVAL=48',
    'FREQ=YEARLY',
    'not a rule',
    'FREQ=DAILY;FREQ=WEEKLY',
  ]) {
    const read = choiceOf(rule, '2026-12-07T07:00');
    assert.is(read.kind, 'advanced', rule);
    assert.is(ruleOf(read).recurrence, rule, rule);
    assert.is(summaryOf(rule, '2026-12-07T07:00'), null, rule);
  }
  // RRULE: before it and lower case are what the server takes too
  assert.is(choiceOf('RRULE:freq=weekly;byday=mo', '2026-12-07T07:00').kind, 'weekly');
  assert.is(ruleOf(choice({ kind: 'advanced', rule: ' RRULE:FREQ=YEARLY;BYMONTH=1 ' })).recurrence, 'FREQ=YEARLY;BYMONTH=1');
});

test('what the page tells before asking the server', () => {
  assert.equal(problemsOf(choice({ kind: 'weekly', weekdays: [] })), ['weekdays']);
  assert.equal(problemsOf(choice({ kind: 'hourly', interval: 24 })), ['interval']);
  assert.equal(problemsOf(choice({ interval: 0 })), ['interval']);
  assert.equal(problemsOf(choice({ interval: 1.5 })), ['interval']);
  assert.equal(problemsOf(choice({ startDate: '', time: '24:00' })), ['startDate', 'time']);
  assert.equal(problemsOf(choice({ kind: 'advanced', rule: '  ' })), ['rule']);
  assert.equal(problemsOf(choice({ kind: 'advanced', rule: 'FREQ=MINUTELY', interval: 0 })), [], 'the server judges the rule');
});

test('the summary names weekdays by their index from Monday', () => {
  assert.equal(summaryOf('FREQ=WEEKLY;BYDAY=MO,SU', '2026-12-07T07:00'), {
    kind: 'weekly',
    interval: 1,
    time: '07:00',
    weekdays: [0, 6],
    monthDay: 1,
  });
});

test.run();
