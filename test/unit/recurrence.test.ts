import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { instantOf, isTimeZone, localOf, occurrencesBetween, parseRecurrence, type Recurrence } from '#domain/recurrence';

// The recurrence of schedules (src/domain/recurrence.ts): RRULEs in wall-clock time, placed in a zone as RFC 5545
// 3.3.5 says across daylight-saving changes.

const test = suite('recurrence: RRULE in a time zone, across daylight-saving changes');

function rule(rrule: string, startsAt: string, zone: string): Recurrence {
  const parsed = parseRecurrence(rrule, startsAt, zone);
  if ('problems' in parsed) throw new Error(JSON.stringify(parsed.problems));
  return parsed.recurrence;
}

const between = (r: Recurrence, from: string, to: string, limit = 100) =>
  occurrencesBetween(r, new Date(from), new Date(to), limit).map((d) => d.toISOString());

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

test.run();
