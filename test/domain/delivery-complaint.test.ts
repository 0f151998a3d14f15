import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  isRepeat,
  plannedComplaint,
  toDeliveryComplaintAttributes,
  type ComplaintContext,
} from '../../src/domain/delivery-complaint.js';
import { maskOf } from '../../src/domain/delivery-days.js';
import { DomainFailure } from '../../src/domain/failures.js';
import { DEFAULT_PRINT_SETTINGS } from '../../src/domain/print.js';
import { parseDate } from '../../src/domain/publication.js';
import { printTerms as terms } from '../support/print-terms.js';

const date = (text: string) => parseDate(text) as number;
const at = (iso: string) => Date.parse(iso) / 1000;
const TODAY = date('2026-03-10');
const FIRST_OPEN = date('2026-03-11');

const context = (values: Partial<ComplaintContext> = {}): ComplaintContext => ({
  terms: terms(),
  holds: [],
  others: [],
  ...values,
});

const plan = (deliveryDate: string, values: Partial<ComplaintContext> = {}, remedy?: 'redeliver' | 'extend' | 'none') =>
  plannedComplaint(
    { deliveryDate, reason: 'wet', ...(remedy ? { remedy } : {}) },
    context(values),
    DEFAULT_PRINT_SETTINGS,
    TODAY,
    FIRST_OPEN,
  );

/** Refused as not a delivery, at deliveryDate, with a detail that says why. */
const notADelivery = (why: RegExp) => (error: unknown) =>
  error instanceof DomainFailure &&
  error.code === 'NOT_A_DELIVERY' &&
  error.problems[0]?.pointer === '/data/attributes/deliveryDate' &&
  why.test(error.problems[0]?.detail ?? '');

describe('a complaint planned', () => {
  it('takes a delivery of today or before, recorded with no remedy by default', () => {
    assert.deepEqual(plan('2026-03-10'), {
      values: { deliveryDate: TODAY, reason: 'wet', remedy: 'none', repeat: false, redeliveryDate: null },
      dateEnded: at('2027-01-01T00:00:00Z'),
    });
    plan('2026-01-01');
  });

  it('refuses a date in the future, outside the term, not a delivery day, or held', () => {
    assert.throws(() => plan('2026-03-11'), notADelivery(/future/));
    assert.throws(() => plan('2025-12-31'), notADelivery(/term/));
    assert.throws(
      () => plan('2026-03-05', { terms: terms({ dateEnded: at('2026-03-05T00:00:00Z') }) }),
      notADelivery(/term/),
    );
    plan('2026-03-04', { terms: terms({ dateEnded: at('2026-03-05T00:00:00Z') }) });
    // 2026-03-09 was a Monday; the paper comes at weekends.
    assert.throws(
      () => plan('2026-03-09', { terms: terms({ deliveryDays: maskOf(['saturday', 'sunday']) }) }),
      notADelivery(/delivery days/),
    );
    plan('2026-03-08', { terms: terms({ deliveryDays: maskOf(['saturday', 'sunday']) }) });
    const holds = [{ startDate: date('2026-03-03'), endDate: date('2026-03-05') }];
    for (const held of ['2026-03-03', '2026-03-05']) assert.throws(() => plan(held, { holds }), notADelivery(/held/));
    plan('2026-03-06', { holds });
    plan('2026-03-02', { holds });
  });

  it('takes a delivery COMPLAINT_MAX_AGE_DAYS ago and refuses the day before it; with 0, any of the term', () => {
    const aged = (deliveryDate: string, complaintMaxAgeDays: number) =>
      plannedComplaint(
        { deliveryDate, reason: 'missed' },
        context(),
        { ...DEFAULT_PRINT_SETTINGS, complaintMaxAgeDays },
        TODAY,
        FIRST_OPEN,
      );
    // TODAY is 10 March: 30 days before is 8 February.
    aged('2026-02-08', 30);
    aged('2026-03-10', 30);
    assert.throws(
      () => aged('2026-02-07', 30),
      (error: unknown) =>
        error instanceof DomainFailure &&
        error.code === 'INVALID_ATTRIBUTE' &&
        error.problems[0]?.pointer === '/data/attributes/deliveryDate' &&
        /more than 30 days ago/.test(error.problems[0]?.detail ?? ''),
    );
    aged('2026-01-01', 0);
  });

  it('refuses a subscription that gives no print with NOT_PRINT', () => {
    assert.throws(
      () => plan('2026-03-10', { terms: terms({ resource: 'online' }) }),
      (error: unknown) => error instanceof DomainFailure && error.code === 'NOT_PRINT',
    );
  });

  it('refuses a second complaint of the same date with COMPLAINT_EXISTS', () => {
    assert.throws(
      () => plan('2026-03-09', { others: [{ id: '4', deliveryDate: date('2026-03-09') }] }),
      (error: unknown) =>
        error instanceof DomainFailure && error.code === 'COMPLAINT_EXISTS' && /4/.test(error.message),
    );
  });

  it('extend moves the term on by one delivery day: a weekend paper ending on a Thursday, to Saturday', () => {
    const weekend = terms({ deliveryDays: maskOf(['saturday', 'sunday']) });
    const { dateEnded } = plan('2026-03-08', { terms: weekend }, 'extend');
    // Last covered Thursday 31 December 2026; the next weekend day is Saturday 2 January 2027.
    assert.equal(dateEnded, at('2027-01-03T00:00:00Z'));
    assert.equal(plan('2026-03-10', {}, 'extend').dateEnded, at('2027-01-02T00:00:00Z'));
    assert.equal(plan('2026-03-10', { terms: terms({ dateEnded: null }) }, 'extend').dateEnded, null);
  });

  it('extend past the year 9999 is refused at the remedy', () => {
    assert.throws(
      () => plan('2026-03-10', { terms: terms({ dateEnded: at('9999-12-31T23:59:59Z') }) }, 'extend'),
      (error: unknown) => error instanceof DomainFailure && error.problems[0]?.pointer === '/data/attributes/remedy',
    );
  });

  it('redeliver puts it on the first open date, whatever the days it is delivered on', () => {
    const { values, dateEnded } = plan('2026-03-10', {}, 'redeliver');
    assert.equal(values.redeliveryDate, FIRST_OPEN);
    assert.equal(dateEnded, at('2027-01-01T00:00:00Z'));
  });
});

describe('a repeat complaint', () => {
  const day = date('2026-03-20');
  it('follows another for a date up to 14 days before, not 15, and not one after', () => {
    assert.equal(isRepeat([{ deliveryDate: day - 14 }], day, 14), true);
    assert.equal(isRepeat([{ deliveryDate: day - 1 }], day, 14), true);
    assert.equal(isRepeat([{ deliveryDate: day - 15 }], day, 14), false);
    assert.equal(isRepeat([{ deliveryDate: day + 1 }], day, 14), false);
    // One of the same date is no earlier complaint (a second of a date is refused as existing).
    assert.equal(isRepeat([{ deliveryDate: day }], day, 14), false);
    assert.equal(isRepeat([], day, 14), false);
  });

  it('is worked out with REPEAT_COMPLAINT_DAYS', () => {
    const others = [{ id: '1', deliveryDate: date('2026-03-01') }];
    assert.equal(plan('2026-03-10', { others }).values.repeat, true);
    const narrow = plannedComplaint(
      { deliveryDate: '2026-03-10', reason: 'late' },
      context({ others }),
      { ...DEFAULT_PRINT_SETTINGS, repeatComplaintDays: 8 },
      TODAY,
      FIRST_OPEN,
    );
    assert.equal(narrow.values.repeat, false);
  });
});

describe("a complaint's attributes", () => {
  const complaint = {
    id: '3',
    userId: '1',
    subscriptionId: '7',
    deliveryDate: date('2026-03-09'),
    reason: 'damaged' as const,
    remedy: 'redeliver' as const,
    repeat: true,
    redeliveryDate: FIRST_OPEN,
  };

  it('give its dates as dates, with what was done about it', () => {
    assert.deepEqual(toDeliveryComplaintAttributes(complaint), {
      deliveryDate: '2026-03-09',
      reason: 'damaged',
      remedy: 'redeliver',
      repeat: true,
      redeliveryDate: '2026-03-11',
    });
  });

  it('give no redelivery date unless redelivered', () => {
    const attributes = toDeliveryComplaintAttributes({ ...complaint, remedy: 'none', redeliveryDate: null });
    assert.equal(attributes.redeliveryDate, null);
  });
});
