/**
 * The rules print circulation shares (holds, temporary addresses and complaints have their own
 * tests of how they use them): what gives print, on which days, within which term.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainFailure } from '../../src/domain/failures.js';
import { EVERY_DAY, maskOf } from '../../src/domain/delivery-days.js';
import {
  deliveredOn,
  deliveryMaskOf,
  givesPrint,
  overlaps,
  requireOpen,
  requirePrint,
  termCovers,
  type PrintTerms,
} from '../../src/domain/print.js';
import { parseDate } from '../../src/domain/publication.js';
import { printTerms as terms } from '../support/print-terms.js';

const date = (text: string) => parseDate(text) as number;
const at = (iso: string) => Date.parse(iso) / 1000;
const WEEKEND = maskOf(['saturday', 'sunday']);

describe('a subscription that gives print', () => {
  it('gives print or print and online, by its own resource, or else by its product', () => {
    const gives = (resource: PrintTerms['resource'], productResource: PrintTerms['resource']) =>
      givesPrint({ resource, productResource });
    assert.deepEqual(
      [gives('print', null), gives('print-online', null), gives('online', null), gives(null, null)],
      [true, true, false, false],
    );
    assert.deepEqual(
      [gives(null, 'print'), gives(null, 'print-online'), gives(null, 'online'), gives('online', 'print')],
      [true, true, false, false],
    );
  });

  it('is all that a hold or a complaint is made on: another is refused with NOT_PRINT naming it', () => {
    requirePrint(terms());
    assert.throws(
      () => requirePrint(terms({ resource: 'online', id: '42' })),
      (error: unknown) => error instanceof DomainFailure && error.code === 'NOT_PRINT' && /42/.test(error.message),
    );
  });
});

describe('the days a subscription is delivered on', () => {
  it("are its product's unless it narrows them, and never a day its product has dropped", () => {
    assert.equal(deliveryMaskOf({ deliveryDays: null, productDays: WEEKEND }), WEEKEND);
    assert.equal(deliveryMaskOf({ deliveryDays: maskOf(['sunday']), productDays: EVERY_DAY }), maskOf(['sunday']));
    assert.equal(
      deliveryMaskOf({ deliveryDays: maskOf(['friday', 'sunday']), productDays: WEEKEND }),
      maskOf(['sunday']),
    );
  });
});

describe('the term of a subscription', () => {
  const zone = 'UTC';
  const day = date('2026-03-10');

  it('touches a date when it began before the date ended: not at the next midnight, a second before it', () => {
    assert.equal(termCovers(terms({ dateStarted: at('2026-03-10T23:59:59Z') }), day, zone), true);
    assert.equal(termCovers(terms({ dateStarted: at('2026-03-11T00:00:00Z') }), day, zone), false);
  });

  it('touches a date when it ended after the date began: not at its midnight, a second after it; open-ended, always', () => {
    assert.equal(termCovers(terms({ dateEnded: at('2026-03-10T00:00:01Z') }), day, zone), true);
    assert.equal(termCovers(terms({ dateEnded: at('2026-03-10T00:00:00Z') }), day, zone), false);
    assert.equal(termCovers(terms({ dateEnded: null }), date('9999-12-31'), zone), true);
  });

  it("is read against the date's midnights in the publisher's zone", () => {
    // Midnight of 1 July in London (summer time) is 23:00 UTC the day before.
    const july = date('2026-07-01');
    const started = terms({ dateStarted: at('2026-07-01T23:30:00Z') });
    assert.equal(termCovers(started, july, 'UTC'), true);
    assert.equal(termCovers(started, july, 'Europe/London'), false);
    const ended = terms({ dateEnded: at('2026-06-30T23:30:00Z') });
    assert.equal(termCovers(ended, july, 'UTC'), false);
    assert.equal(termCovers(ended, july, 'Europe/London'), true);
  });
});

describe('a delivery of a subscription', () => {
  // 2026-03-07 was a Saturday, 2026-03-09 a Monday.
  it('is on a delivery day of it, within its term, when it gives print', () => {
    const weekend = terms({ deliveryDays: WEEKEND });
    assert.equal(deliveredOn(weekend, date('2026-03-07'), 'UTC'), true);
    assert.equal(deliveredOn(weekend, date('2026-03-09'), 'UTC'), false);
    assert.equal(deliveredOn(terms({ resource: 'online' }), date('2026-03-07'), 'UTC'), false);
    assert.equal(deliveredOn(weekend, date('2027-01-02'), 'UTC'), false);
  });
});

describe('two spans of dates', () => {
  it('overlap when they share a date, either way round, and not when they only meet', () => {
    const span = (startDate: number, endDate: number) => ({ startDate, endDate });
    for (const [a, b, expected] of [
      [span(1, 5), span(5, 9), true],
      [span(5, 9), span(1, 5), true],
      [span(3, 3), span(1, 5), true],
      [span(1, 5), span(3, 3), true],
      [span(1, 4), span(5, 9), false],
      [span(5, 9), span(1, 4), false],
    ] as const)
      assert.equal(overlaps(a, b), expected, JSON.stringify([a, b]));
  });
});

describe('the cut-off of a dated record, where it refuses', () => {
  const open = date('2026-03-05');
  const span = (start: string, end: string) => ({ startDate: date(start), endDate: date(end) });
  const refusedAt = (pointer: string) => (error: unknown) =>
    error instanceof DomainFailure &&
    error.code === 'PAST_CUTOFF' &&
    error.problems[0]?.pointer === pointer &&
    /the first date still open to changes is 2026-03-05/.test(error.problems[0].detail);

  it('refuses a start moved before the first open date at startDate, and an end moved past at endDate', () => {
    assert.throws(
      () => requireOpen('hold', span('2026-03-06', '2026-03-10'), span('2026-03-04', '2026-03-10'), open),
      refusedAt('/data/attributes/startDate'),
    );
    assert.throws(
      () => requireOpen('hold', span('2026-03-01', '2026-03-10'), span('2026-03-01', '2026-03-03'), open),
      refusedAt('/data/attributes/endDate'),
    );
  });

  it('finds no change in dates sent as they are, however long ago they ended', () => {
    requireOpen('hold', span('2026-01-01', '2026-01-10'), span('2026-01-01', '2026-01-10'), open);
  });

  it('has nothing to check where nothing was and nothing is to be', () => {
    requireOpen('hold', undefined, undefined, open);
  });
});
