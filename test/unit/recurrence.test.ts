import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RRule } from 'rrule';
import { instantOf, isTimeZone, localOf, MAX_COUNT, occurrencesBetween, parseRecurrence, type Recurrence } from '#domain/recurrence';

// The recurrence of schedules (src/domain/recurrence.ts): RRULEs in wall-clock time, placed in a zone as RFC 5545
// 3.3.5 says across daylight-saving changes.

const test = suite('recurrence: RRULE in a time zone, across daylight-saving changes');

function rule(rrule: string, startsAt: string, zone: string): Recurrence {
  const parsed = parseRecurrence(rrule, startsAt, zone);
  if ('problems' in parsed) throw new Error(JSON.stringify(parsed.problems));
  return parsed.recurrence;
}

const between = (r: Recurrence, from: string, to: string, limit = 100) =>
  occurrencesBetween(r, new Date(from), new Date(to), limit).instants.map((d) => d.toISOString());

test('a daily 07:00 in Berlin is 06:00Z before the spring change and 05:00Z after it; back to 06:00Z after the autumn one', () => {
  const daily = rule('FREQ=DAILY', '2026-03-27T07:00', 'Europe/Berlin');
  assert.equal(between(daily, '2026-03-27T00:00Z', '2026-03-31T00:00Z'), [
    '2026-03-27T06:00:00.000Z',
    '2026-03-28T06:00:00.000Z',
    '2026-03-29T05:00:00.000Z',
    '2026-03-30T05:00:00.000Z',
  ]);
  assert.equal(between(daily, '2026-10-24T00:00Z', '2026-10-27T00:00Z'), [
    '2026-10-24T05:00:00.000Z',
    '2026-10-25T06:00:00.000Z',
    '2026-10-26T06:00:00.000Z',
  ]);
});

test('a time in the spring gap is read with the offset before it (02:30 → 03:30 CEST); a time occurring twice in autumn is the first', () => {
  assert.is(instantOf(new Date('2026-03-29T02:30:00Z'), 'Europe/Berlin').toISOString(), '2026-03-29T01:30:00.000Z');
  assert.is(localOf(new Date('2026-03-29T01:30:00Z'), 'Europe/Berlin'), '2026-03-29T03:30');
  assert.is(instantOf(new Date('2026-10-25T02:30:00Z'), 'Europe/Berlin').toISOString(), '2026-10-25T00:30:00.000Z');
  const nightly = rule('FREQ=DAILY', '2026-03-27T02:30', 'Europe/Berlin');
  assert.equal(between(nightly, '2026-03-27T00:00Z', '2026-03-30T12:00Z'), [
    '2026-03-27T01:30:00.000Z',
    '2026-03-28T01:30:00.000Z',
    '2026-03-29T01:30:00.000Z',
    '2026-03-30T00:30:00.000Z',
  ]);
  const autumn = rule('FREQ=DAILY', '2026-10-24T02:30', 'Europe/Berlin');
  assert.equal(between(autumn, '2026-10-24T00:00Z', '2026-10-26T12:00Z'), [
    '2026-10-24T00:30:00.000Z',
    '2026-10-25T00:30:00.000Z',
    '2026-10-26T01:30:00.000Z',
  ]);
});

test('weekly by day, monthly by day, COUNT and UNTIL; the window is (after, until] and limited', () => {
  const mondays = rule('RRULE:FREQ=WEEKLY;BYDAY=MO,TH', '2026-06-01T08:15', 'America/New_York');
  assert.equal(between(mondays, '2026-06-01T00:00Z', '2026-06-09T00:00Z'), [
    '2026-06-01T12:15:00.000Z',
    '2026-06-04T12:15:00.000Z',
    '2026-06-08T12:15:00.000Z',
  ]);
  assert.equal(
    between(mondays, '2026-06-01T12:15Z', '2026-06-04T12:15Z'),
    ['2026-06-04T12:15:00.000Z'],
    'after is excluded, until included',
  );
  assert.equal(between(mondays, '2026-06-01T00:00Z', '2027-06-01T00:00Z', 2).length, 2);
  const twice = rule('FREQ=MONTHLY;BYMONTHDAY=15;COUNT=2', '2026-01-15T09:00', 'UTC');
  assert.equal(between(twice, '2025-12-01T00:00Z', '2027-01-01T00:00Z'), ['2026-01-15T09:00:00.000Z', '2026-02-15T09:00:00.000Z']);
});

test('refused: no FREQ, finer than hourly, DTSTART or TZID inside, several lines, an impossible start, an unknown zone', () => {
  const problems = (rrule: string, startsAt = '2026-01-01T08:00', zone = 'UTC') => {
    const parsed = parseRecurrence(rrule, startsAt, zone);
    return 'problems' in parsed ? parsed.problems.map((p) => p.path) : [];
  };
  assert.equal(problems('BYDAY=MO'), ['recurrence']);
  assert.equal(problems('FREQ=MINUTELY'), ['recurrence']);
  assert.equal(problems('FREQ=SECONDLY;INTERVAL=30'), ['recurrence']);
  assert.equal(problems('FREQ=DAILY;TZID=Europe/Berlin'), ['recurrence']);
  assert.equal(problems('DTSTART:20260101T000000Z\nRRULE:FREQ=DAILY'), ['recurrence']);
  assert.equal(problems('FREQ=DAILY', '2026-02-30T08:00'), ['startsAt']);
  assert.equal(problems('FREQ=DAILY', '2026-01-01 08:00'), ['startsAt']);
  assert.equal(problems('FREQ=DAILY', '2026-01-01T08:00', 'Mars/Olympus_Mons'), ['timeZone']);
  assert.equal(problems('FREQ=HOURLY;INTERVAL=4'), []);
  assert.ok(isTimeZone('Europe/Berlin') && isTimeZone('UTC') && !isTimeZone(''));
});

const HOUR = 3_600_000;
/** The problems of a rule, and how long finding them took. */
function refusal(rrule: string, startsAt = '2026-12-01T00:00', zone = 'UTC') {
  const started = performance.now();
  const parsed = parseRecurrence(rrule, startsAt, zone);
  return { messages: 'problems' in parsed ? parsed.problems.map((p) => p.message) : [], ms: performance.now() - started };
}

test('refused: whatever the FREQ, a rule whose expansion recurs more often than hourly, or that cannot be expanded in bounded time', () => {
  const minutes = Array.from({ length: 60 }, (_, i) => i).join(',');
  const seconds = Array.from({ length: 60 }, (_, i) => i).join(',');
  for (const rrule of [
    // once: 604,800 jobs a week from one schedule
    `FREQ=HOURLY;BYMINUTE=${minutes};BYSECOND=${seconds}`,
    'FREQ=HOURLY;BYMINUTE=0,30',
    'FREQ=DAILY;BYHOUR=8;BYMINUTE=0,1',
    'FREQ=WEEKLY;BYDAY=MO;BYSECOND=0,30',
    'FREQ=YEARLY;BYMONTH=1;BYMINUTE=0,15,30,45;BYSETPOS=1,2,3,4',
    `FREQ=MONTHLY;BYMONTHDAY=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28;BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23;BYMINUTE=${minutes}`,
  ])
    assert.ok(refusal(rrule).messages.includes('recurs at most hourly: one BYMINUTE and one BYSECOND at most'), rrule);
  assert.equal(refusal('FREQ=HOURLY;INTERVAL=0').messages, ['INTERVAL and COUNT must be at least 1']);
  assert.equal(refusal('FREQ=DAILY;COUNT=0').messages, ['INTERVAL and COUNT must be at least 1']);
  assert.equal(refusal(`FREQ=HOURLY;COUNT=${MAX_COUNT + 1}`).messages, [`COUNT is at most ${MAX_COUNT}`]);
  assert.equal(refusal('FREQ=YEARLY;BYSETPOS=400;BYDAY=MO').messages.length, 1);
  // the library loops forever on these (an hour never reached; no occurrence until the year 9999): refused at once
  assert.equal(refusal('FREQ=HOURLY;BYHOUR=25').messages, ['BYHOUR takes 0 to 23']);
  assert.equal(refusal('FREQ=HOURLY;BYHOUR=-1').messages, ['BYHOUR takes 0 to 23']);
  assert.equal(refusal('FREQ=HOURLY;BYMINUTE=60').messages, ['BYMINUTE takes 0 to 59']);
  assert.equal(refusal('FREQ=DAILY;BYMONTH=13').messages, ['BYMONTH takes 1 to 12']);
  assert.equal(refusal('FREQ=DAILY;BYMONTHDAY=0').messages, ['BYMONTHDAY takes -31 to -1 and 1 to 31']);
  assert.equal(refusal('FREQ=YEARLY;BYWEEKNO=54').messages, ['BYWEEKNO takes -53 to -1 and 1 to 53']);
  const unreachable = refusal('FREQ=HOURLY;INTERVAL=24;BYHOUR=1', '2026-12-01T00:00');
  assert.equal(unreachable.messages, ["no BYHOUR is reached every 24 hours from the start's hour"]);
  for (const never of [
    'FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=30',
    'FREQ=DAILY;INTERVAL=7;BYDAY=TU',
    'FREQ=MONTHLY;BYMONTH=4;BYMONTHDAY=31',
    'FREQ=MONTHLY;BYDAY=6FR',
  ]) {
    const refused = refusal(never, '2026-12-07T00:00');
    assert.equal(refused.messages, ['occurs too rarely or never: no occurrence within 2000 steps of its start'], never);
    assert.ok(refused.ms < 1500, `${never}: ${Math.round(refused.ms)} ms`);
  }
  // hourly and coarser, within reach: taken
  for (const rrule of [
    'FREQ=HOURLY',
    'FREQ=HOURLY;INTERVAL=2;BYHOUR=6,8,10',
    'FREQ=HOURLY;BYMINUTE=15;BYSECOND=0',
    'FREQ=DAILY;BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23',
    'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29',
    'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO',
    'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYHOUR=6,14,22',
    `FREQ=HOURLY;COUNT=${MAX_COUNT}`,
  ])
    assert.equal(refusal(rrule).messages, [], rrule);
});

/** A small random generator with a seed: the same rules on every run. */
function random(seed: number) {
  return () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

test('every rule taken recurs at most hourly: random rules, their first 300 occurrences at least an hour apart', () => {
  const next = random(40);
  const pick = <T>(items: T[]): T => items[Math.floor(next() * items.length)];
  const some = (max: number, from = 0) =>
    [...new Set(Array.from({ length: 1 + Math.floor(next() * 4) }, () => from + Math.floor(next() * max)))].join(',');
  let taken = 0;
  for (let i = 0; i < 400; i++) {
    const parts = [`FREQ=${pick(['HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'])}`];
    if (next() < 0.4) parts.push(`INTERVAL=${1 + Math.floor(next() * 5)}`);
    if (next() < 0.5) parts.push(`BYHOUR=${some(24)}`);
    if (next() < 0.5) parts.push(`BYMINUTE=${some(60)}`);
    if (next() < 0.3) parts.push(`BYSECOND=${some(60)}`);
    if (next() < 0.4) parts.push(`BYDAY=${pick(['MO', 'MO,TU,WE,TH,FR,SA,SU', 'SA,SU', 'FR'])}`);
    if (next() < 0.3) parts.push(`BYSETPOS=${pick(['1', '-1', '1,2,3', '2,-2'])}`);
    const rrule = parts.join(';');
    const parsed = parseRecurrence(rrule, '2026-03-20T07:00', 'UTC');
    if ('problems' in parsed) continue;
    taken++;
    const { instants } = occurrencesBetween(parsed.recurrence, new Date('2026-03-01T00:00Z'), new Date('2031-01-01T00:00Z'), 300);
    for (let k = 1; k < instants.length; k++)
      assert.ok(
        instants[k].getTime() - instants[k - 1].getTime() >= HOUR,
        `${rrule}: ${instants[k - 1].toISOString()} → ${instants[k].toISOString()}`,
      );
  }
  assert.ok(taken > 100, `${taken} rules taken`);
});

test('a schedule started long ago is expanded from near the window, as the library would from its start', () => {
  const rules = [
    'FREQ=HOURLY;INTERVAL=5',
    'FREQ=HOURLY;INTERVAL=3;BYHOUR=0,1,2,10,11,12;BYMINUTE=20',
    'FREQ=DAILY;INTERVAL=3;BYHOUR=6,18',
    'FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,FR;BYSETPOS=-1',
    'FREQ=WEEKLY;INTERVAL=3',
    'FREQ=MONTHLY;INTERVAL=5',
    'FREQ=MONTHLY;BYDAY=2TU,-1FR;BYHOUR=9',
    'FREQ=MONTHLY;INTERVAL=2;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1',
    'FREQ=YEARLY;INTERVAL=3',
    'FREQ=YEARLY;BYWEEKNO=20;BYDAY=WE',
    'FREQ=YEARLY;INTERVAL=2;BYMONTH=2,8;BYMONTHDAY=-1;BYHOUR=23;BYMINUTE=59',
    'FREQ=DAILY;UNTIL=20270101T000000',
  ];
  for (const startsAt of ['2019-01-31T07:45', '2023-02-28T23:10', '2024-02-29T00:00']) {
    for (const rrule of rules) {
      const recurrence = rule(rrule, startsAt, 'UTC');
      const library = new RRule({ ...RRule.parseString(rrule), dtstart: new Date(`${startsAt}:00Z`), tzid: null });
      for (const from of ['2026-03-29T01:00Z', '2026-12-31T22:00Z', '2028-02-28T12:00Z']) {
        const after = new Date(from);
        const until = new Date(after.getTime() + 120 * 24 * HOUR);
        const expected = library.between(after, until, false).slice(0, 200);
        assert.equal(
          occurrencesBetween(recurrence, after, until, 200).instants.map((d) => d.toISOString()),
          expected.map((d) => d.toISOString()),
          `${rrule} from ${startsAt}, window at ${from}`,
        );
      }
    }
  }
  // what would walk 126 years of hours from its start takes a week's
  const started = performance.now();
  const old = occurrencesBetween(
    rule('FREQ=HOURLY', '1900-01-01T00:00', 'Europe/Berlin'),
    new Date('2026-12-07T10:00Z'),
    new Date('2026-12-14T10:00Z'),
    500,
  );
  assert.is(old.instants.length, 168);
  assert.ok(performance.now() - started < 1000, `${Math.round(performance.now() - started)} ms`);
});

test('a shared budget: each expansion takes the steps it walked; past it the walk stops, budgetSpent, what was found is right', () => {
  // a leap day, walked day by day: from mid-2026 the next is 2028-02-29, about 610 steps away
  const leap = rule('FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29', '2026-07-01T08:00', 'UTC');
  const after = new Date('2026-07-01T00:00Z');
  const until = new Date('2030-07-01T00:00Z');
  const budget = { steps: 1500 };
  const first = occurrencesBetween(leap, after, until, 1, budget);
  assert.equal(
    first.instants.map((d) => d.toISOString()),
    ['2028-02-29T08:00:00.000Z'],
  );
  assert.is(first.budgetSpent, false);
  const taken = 1500 - budget.steps;
  assert.ok(taken > 600 && taken < 620, `the walk to the leap day took ${taken} steps`);
  // the rest of the budget does not reach the next leap day
  const second = occurrencesBetween(leap, after, until, 2, budget);
  assert.equal(
    second.instants.map((d) => d.toISOString()),
    ['2028-02-29T08:00:00.000Z'],
  );
  assert.equal([second.cutShort, second.budgetSpent, budget.steps], [true, true, 0]);
  // nothing left: nothing walked
  const third = occurrencesBetween(leap, after, until, 1, budget);
  assert.equal([third.instants, third.budgetSpent], [[], true]);
  // without a budget the same walk stops at its own EXPANSION_STEPS (the next leap day after 2028 is 2032, about
  // 2,070 steps from the start, and the walk knows it passed the window's end only at an occurrence): cut short,
  // but not by a budget
  const whole = occurrencesBetween(leap, after, until, 2);
  assert.equal([whole.instants.length, whole.cutShort, whole.budgetSpent], [1, true, false]);
  // asked for one, it stops at the leap day: complete
  const one = occurrencesBetween(leap, after, until, 1);
  assert.equal([one.instants.length, one.cutShort, one.budgetSpent], [1, false, false]);
});

test.run();
