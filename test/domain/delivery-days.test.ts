import assert from 'node:assert/strict';
import type { DomainFailure } from '../../src/domain/failures.js';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Ajv } from 'ajv';
import {
  daysToTakeIn,
  DeliveryDays,
  deliversOn,
  deliveryDaysBetween,
  deliveryDaysByYear,
  EVERY_DAY,
  extendedEnd,
  isSubsetOf,
  lastDateOf,
  maskOf,
  shiftByDays,
  weekdayOf,
  WEEKDAYS,
  weekdaysOf,
} from '../../src/domain/delivery-days.js';
import { formatDate, parseDate } from '../../src/domain/publication.js';

const date = (text: string) => parseDate(text) as number;
const at = (iso: string) => Date.parse(iso) / 1000;
const WEEKEND = maskOf(['saturday', 'sunday']);
const MONDAY_TO_SATURDAY = maskOf(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday']);

describe('delivery days', () => {
  it('name the weekday of a date, Monday first', () => {
    assert.equal(weekdayOf(date('2026-03-02')), 0);
    assert.equal(weekdayOf(date('2026-03-08')), 6);
    assert.equal(weekdayOf(date('1970-01-01')), 3);
    assert.equal(weekdayOf(date('1969-12-29')), 0);
  });

  it('are a mask of weekdays, read back Monday first', () => {
    assert.deepEqual(weekdaysOf(maskOf(['sunday', 'saturday'])), ['saturday', 'sunday']);
    assert.equal(maskOf(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']), EVERY_DAY);
    assert.ok(deliversOn(WEEKEND, date('2026-03-07')));
    assert.ok(!deliversOn(WEEKEND, date('2026-03-06')));
  });

  it('are sent as one to seven weekdays, none twice', () => {
    const schema = DeliveryDays('The days.');
    assert.equal(schema.description, 'The days.');
    const valid = new Ajv({ strict: false }).compile(schema);
    assert.ok(valid(['saturday']));
    assert.ok(valid([...WEEKDAYS]));
    assert.ok(!valid([]));
    assert.ok(!valid(['saturday', 'saturday']));
    assert.ok(!valid(['someday']));
  });

  it("narrow a product's only to days it has", () => {
    assert.ok(isSubsetOf(maskOf(['sunday']), WEEKEND));
    assert.ok(isSubsetOf(WEEKEND, EVERY_DAY));
    assert.ok(!isSubsetOf(maskOf(['friday', 'sunday']), WEEKEND));
  });

  it('are counted in any span as one by one', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1000, max: 30_000 }),
        fc.integer({ min: -3, max: 800 }),
        fc.integer({ min: 1, max: 127 }),
        (first, span, mask) => {
          let count = 0;
          for (let day = first; day <= first + span; day += 1) if (deliversOn(mask, day)) count += 1;
          assert.equal(deliveryDaysBetween(first, first + span, mask), count);
        },
      ),
    );
  });

  it('are counted by the calendar year they fall in', () => {
    // Saturday 26 December 2026 to Sunday 10 January 2027: one weekend in 2026, two in 2027.
    const byYear = deliveryDaysByYear(date('2026-12-26'), date('2027-01-10'), WEEKEND);
    assert.deepEqual(
      [...byYear],
      [
        [2026, 2],
        [2027, 4],
      ],
    );
  });

  it('leave out a year the span touches without a delivery day in it', () => {
    // Monday 28 December 2026 to Saturday 2 January 2027: no weekend day in 2026, one in 2027.
    assert.deepEqual([...deliveryDaysByYear(date('2026-12-28'), date('2027-01-02'), WEEKEND)], [[2027, 1]]);
  });

  it('a span of ten years holds each year whole', () => {
    const byYear = deliveryDaysByYear(date('2027-01-01'), date('2036-12-31'), EVERY_DAY);
    assert.equal(byYear.size, 10);
    assert.equal(byYear.get(2028), 366);
  });
});

describe('a term moved by delivery days', () => {
  it('runs on to the next delivery day, however many days that takes', () => {
    // Weekend-only, last covered Sunday 8 March 2026: one more is Saturday 14 March, six days on.
    assert.equal(daysToTakeIn(date('2026-03-08'), 1, WEEKEND), 6);
    assert.equal(daysToTakeIn(date('2026-03-08'), 2, WEEKEND), 7);
    assert.equal(daysToTakeIn(date('2026-03-08'), 3, WEEKEND), 13);
    assert.equal(daysToTakeIn(date('2026-03-08'), 0, WEEKEND), 0);
    // Monday to Saturday, last covered Saturday: the Sunday is skipped.
    assert.equal(daysToTakeIn(date('2026-03-07'), 1, MONDAY_TO_SATURDAY), 2);
    // No delivery day at all: nothing to run on to.
    assert.equal(daysToTakeIn(date('2026-03-07'), 3, 0), 0);
  });

  it('takes in a long extension by whole weeks, not day by day', () => {
    // Two billion days one by one would take many seconds: the mutation run's timeout holds this.
    assert.equal(daysToTakeIn(date('2026-03-08'), 2 ** 31, EVERY_DAY), 2 ** 31);
  });

  it('moved by no day stays the instant it was, in the hour a DST change repeats too', () => {
    // 02:30 comes twice on 25 October 2026 in Berlin; the second is kept, not taken for the first.
    const second = at('2026-10-25T02:30:00+01:00');
    assert.equal(shiftByDays(second, 0, 'Europe/Berlin'), second);
    assert.equal(shiftByDays(second, 1, 'Europe/Berlin'), at('2026-10-26T02:30:00+01:00'));
  });

  it('takes in exactly as many delivery days, the last of them its last date', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 30_000 }),
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 1, max: 127 }),
        (last, count, mask) => {
          const days = daysToTakeIn(last, count, mask);
          assert.equal(deliveryDaysBetween(last + 1, last + days, mask), count);
          assert.ok(deliversOn(mask, last + days));
        },
      ),
    );
  });

  it('keeps its wall-clock time across a DST change', () => {
    // Ends at midnight starting 29 March 2026 in Berlin (last date 28 March); one more day ends at midnight starting 30 March.
    const end = at('2026-03-29T00:00:00+01:00');
    assert.equal(formatDate(lastDateOf(end, 'Europe/Berlin')), '2026-03-28');
    const moved = extendedEnd(end, 1, EVERY_DAY, 'Europe/Berlin', '/p');
    assert.deepEqual(moved, { dateEnded: at('2026-03-30T00:00:00+02:00'), days: 1 });
    const back = extendedEnd(at('2026-10-24T12:00:00+02:00'), 2, EVERY_DAY, 'Europe/Berlin', '/p');
    assert.deepEqual(back, { dateEnded: at('2026-10-26T12:00:00+01:00'), days: 2 });
  });

  it('refuses, at the pointer given, to move an end past the last instant the interface writes', () => {
    // Ends at the last instant of 30 and of 31 December 9999: a day more fits the first, not the second.
    const inside = extendedEnd(at('9999-12-30T23:59:59+00:00'), 1, EVERY_DAY, 'UTC', '/p');
    assert.equal(inside.dateEnded, at('9999-12-31T23:59:59+00:00'));
    assert.throws(
      () => extendedEnd(at('9999-12-31T23:59:59+00:00'), 1, EVERY_DAY, 'UTC', '/data/attributes/remedy'),
      (error: DomainFailure) =>
        error.code === 'INVALID_ATTRIBUTE' &&
        error.problems[0]?.pointer === '/data/attributes/remedy' &&
        /past the year 9999/.test(error.problems[0]?.detail ?? ''),
    );
  });
});
