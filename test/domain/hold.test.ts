import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EVERY_DAY, maskOf } from '../../src/domain/delivery-days.js';
import { DomainFailure } from '../../src/domain/failures.js';
import {
  holdStatus,
  plannedHold,
  requireAllowance,
  spanRuleProblems,
  toHoldAttributes,
  withdrawnHold,
  type StoredHold,
} from '../../src/domain/hold.js';
import { DEFAULT_PRINT_SETTINGS, requireOpen, type PrintTerms } from '../../src/domain/print.js';
import { parseDate } from '../../src/domain/publication.js';
import { printTerms as terms } from '../support/print-terms.js';

const date = (text: string) => parseDate(text) as number;
const at = (iso: string) => Date.parse(iso) / 1000;
const WEEKEND = maskOf(['saturday', 'sunday']);
const span = (start: string, end: string) => ({ startDate: date(start), endDate: date(end) });
const refusedWith = (code: string) => (error: unknown) => error instanceof DomainFailure && error.code === code;

const hold = (values: Partial<StoredHold>): StoredHold => ({
  id: '1',
  userId: '1',
  subscriptionId: '7',
  startDate: date('2026-03-02'),
  endDate: date('2026-03-08'),
  compensation: 'extend',
  deliveriesMissed: 7,
  extendedDays: 7,
  withdrawn: false,
  version: 1,
  ...values,
});

const FIRST_OPEN = date('2026-03-01');

describe('the hold allowance', () => {
  it('lets a subscription hold exactly its allowance in a year, and not one delivery day more', () => {
    const others = [span('2026-01-05', '2026-01-18')];
    // 14 + 21 = 35 delivery days on every day: at the allowance.
    requireAllowance(others, span('2026-06-01', '2026-06-21'), EVERY_DAY, 35);
    assert.throws(
      () => requireAllowance(others, span('2026-06-01', '2026-06-22'), EVERY_DAY, 35),
      refusedWith('HOLD_ALLOWANCE_EXCEEDED'),
    );
  });

  it('counts delivery days only: five weeks of a weekend paper hold ten', () => {
    requireAllowance([], span('2026-03-02', '2026-04-05'), WEEKEND, 10);
    assert.throws(
      () => requireAllowance([], span('2026-03-02', '2026-04-05'), WEEKEND, 9),
      refusedWith('HOLD_ALLOWANCE_EXCEEDED'),
    );
  });

  it('counts each calendar year apart: a hold over new year draws on both', () => {
    const others = [span('2026-12-01', '2026-12-28')];
    // 28 held in 2026; 29 December to 3 January adds 3 to 2026 (31 in all) and 3 to 2027.
    requireAllowance(others, span('2026-12-29', '2027-01-03'), EVERY_DAY, 31);
    assert.throws(
      () => requireAllowance(others, span('2026-12-29', '2027-01-03'), EVERY_DAY, 30),
      (error: unknown) => {
        assert.ok(error instanceof DomainFailure);
        assert.match(error.problems[0]?.detail ?? '', /in 2026/);
        return true;
      },
    );
  });

  it('refuses a hold of ten years', () => {
    assert.throws(
      () => requireAllowance([], span('2027-01-01', '2036-12-31'), EVERY_DAY, 35),
      refusedWith('HOLD_ALLOWANCE_EXCEEDED'),
    );
  });
});

describe('a hold planned', () => {
  it('counts the delivery days it holds and moves the term on by as many', () => {
    const plan = plannedHold(
      undefined,
      { startDate: '2026-03-02', endDate: '2026-03-15' },
      { terms: terms({ deliveryDays: WEEKEND }), others: [] },
      DEFAULT_PRINT_SETTINGS,
      FIRST_OPEN,
    );
    assert.equal(plan.values.deliveriesMissed, 4);
    assert.equal(plan.values.compensation, 'extend');
    // Last covered Thursday 31 December 2026: four weekend days more end on Sunday 10 January 2027.
    assert.equal(plan.dateEnded, at('2027-01-11T00:00:00Z'));
    assert.equal(plan.values.extendedDays, 10);
  });

  it('leaves the term with credit or donate, and an open-ended term always', () => {
    for (const compensation of ['credit', 'donate'] as const) {
      const plan = plannedHold(
        undefined,
        { startDate: '2026-03-02', endDate: '2026-03-03', compensation },
        { terms: terms(), others: [] },
        DEFAULT_PRINT_SETTINGS,
        FIRST_OPEN,
      );
      assert.deepEqual(
        [plan.dateEnded, plan.values.extendedDays, plan.values.deliveriesMissed],
        [at('2027-01-01T00:00:00Z'), 0, 2],
      );
    }
    const open = plannedHold(
      undefined,
      { startDate: '2026-03-02', endDate: '2026-03-03' },
      { terms: terms({ dateEnded: null }), others: [] },
      DEFAULT_PRINT_SETTINGS,
      FIRST_OPEN,
    );
    assert.equal(open.dateEnded, null);
  });

  it('ended early, gives back the days it no longer holds', () => {
    const current = hold({});
    const moved = at('2027-01-08T00:00:00Z');
    const plan = plannedHold(
      current,
      { endDate: '2026-03-04' },
      { terms: terms({ dateEnded: moved }), others: [current] },
      DEFAULT_PRINT_SETTINGS,
      date('2026-03-04'),
    );
    assert.equal(plan.values.deliveriesMissed, 3);
    assert.equal(plan.dateEnded, at('2027-01-04T00:00:00Z'));
  });

  it('withdrawn, gives back every day it moved the term', () => {
    assert.equal(
      withdrawnHold(hold({}), at('2027-01-08T00:00:00Z'), DEFAULT_PRINT_SETTINGS, FIRST_OPEN),
      at('2027-01-01T00:00:00Z'),
    );
  });

  it('is refused on a subscription that gives no print, even by its product', () => {
    const plan = (t: PrintTerms) =>
      plannedHold(
        undefined,
        { startDate: '2026-03-02', endDate: '2026-03-03' },
        { terms: t, others: [] },
        DEFAULT_PRINT_SETTINGS,
        FIRST_OPEN,
      );
    assert.throws(() => plan(terms({ resource: 'online' })), refusedWith('NOT_PRINT'));
    assert.throws(() => plan(terms({ resource: null, productResource: 'online' })), refusedWith('NOT_PRINT'));
    plan(terms({ resource: null, productResource: 'print-online' }));
  });

  it('is refused where it overlaps another, by a single day, and not beside it', () => {
    const others = [hold({ id: '9' })];
    const plan = (startDate: string, endDate: string) =>
      plannedHold(undefined, { startDate, endDate }, { terms: terms(), others }, DEFAULT_PRINT_SETTINGS, FIRST_OPEN);
    assert.throws(() => plan('2026-03-08', '2026-03-09'), refusedWith('HOLD_OVERLAP'));
    assert.throws(() => plan('2026-03-01', '2026-03-02'), refusedWith('HOLD_OVERLAP'));
    plan('2026-03-09', '2026-03-10');
  });

  /** `current` changed by `sent` on `firstOpen`, its subscription's term ending at `dateEnded`. */
  const change = (
    current: StoredHold,
    sent: Parameters<typeof plannedHold>[1],
    options: { firstOpen?: number; dateEnded?: number | null; allowance?: number } = {},
  ) =>
    plannedHold(
      current,
      sent,
      {
        terms: terms({ dateEnded: options.dateEnded === undefined ? at('2027-01-08T00:00:00Z') : options.dateEnded }),
        others: [current],
      },
      { ...DEFAULT_PRINT_SETTINGS, holdAllowanceDays: options.allowance ?? DEFAULT_PRINT_SETTINGS.holdAllowanceDays },
      options.firstOpen ?? FIRST_OPEN,
    );

  it('changed in one date, keeps the other, and refuses an end before its start but not on it', () => {
    const current = hold({});
    assert.deepEqual(
      [
        change(current, { startDate: '2026-03-05' }).values.startDate,
        change(current, { startDate: '2026-03-05' }).values.endDate,
      ],
      [date('2026-03-05'), date('2026-03-08')],
    );
    assert.equal(change(current, { endDate: '2026-03-04' }).values.startDate, date('2026-03-02'));
    assert.equal(change(current, { startDate: '2026-03-08' }).values.deliveriesMissed, 1);
    assert.throws(
      () => change(current, { startDate: '2026-03-09' }),
      (error: unknown) =>
        error instanceof DomainFailure &&
        error.code === 'INVALID_ATTRIBUTE' &&
        error.problems[0]?.pointer === '/data/attributes/endDate' &&
        /before startDate/.test(error.problems[0].detail),
    );
  });

  it('counted against the allowance without its own days as they were', () => {
    // Seven days held, made nine: nine against an allowance of ten, not sixteen.
    assert.equal(change(hold({}), { endDate: '2026-03-10' }, { allowance: 10 }).values.deliveriesMissed, 9);
    assert.throws(
      () => change(hold({}), { endDate: '2026-03-12' }, { allowance: 10 }),
      refusedWith('HOLD_ALLOWANCE_EXCEEDED'),
    );
    // Another hold's days count: three of them and these nine are over ten.
    const current = hold({});
    assert.throws(
      () =>
        plannedHold(
          current,
          { endDate: '2026-03-10' },
          { terms: terms(), others: [current, hold({ id: '2', ...span('2026-04-01', '2026-04-03') })] },
          { ...DEFAULT_PRINT_SETTINGS, holdAllowanceDays: 10 },
          FIRST_OPEN,
        ),
      refusedWith('HOLD_ALLOWANCE_EXCEEDED'),
    );
  });

  it('changes its compensation up to its first day, not once started', () => {
    const current = hold({});
    const credited = change(current, { compensation: 'credit' }, { firstOpen: date('2026-03-02') });
    // Credited, the term no longer moves: the seven days it moved are given back.
    assert.deepEqual([credited.values.compensation, credited.dateEnded], ['credit', at('2027-01-01T00:00:00Z')]);
    assert.throws(
      () => change(current, { compensation: 'credit' }, { firstOpen: date('2026-03-03') }),
      (error: unknown) =>
        error instanceof DomainFailure &&
        error.code === 'ALREADY_STARTED' &&
        /the hold has started/.test(error.message),
    );
    assert.throws(
      () => change(current, { startDate: '2026-03-05' }, { firstOpen: date('2026-03-03') }),
      (error: unknown) => error instanceof DomainFailure && /the hold has started/.test(error.message),
    );
    // The same compensation sent again is no change.
    change(current, { compensation: 'extend', endDate: '2026-03-09' }, { firstOpen: date('2026-03-03') });
  });

  it('past its cut-off, names the hold', () => {
    assert.throws(
      () => withdrawnHold(hold({}), null, DEFAULT_PRINT_SETTINGS, date('2026-03-03')),
      (error: unknown) => error instanceof DomainFailure && /the hold has started/.test(error.message),
    );
  });

  it('leaves an open-ended term open when changed or withdrawn', () => {
    assert.equal(change(hold({}), { endDate: '2026-03-04' }, { dateEnded: null }).dateEnded, null);
    assert.equal(withdrawnHold(hold({}), null, DEFAULT_PRINT_SETTINGS, FIRST_OPEN), null);
  });

  it('that would move the term past the year 9999 is refused at its compensation', () => {
    assert.throws(
      () => change(hold({ extendedDays: 0 }), { endDate: '2026-03-09' }, { dateEnded: at('9999-12-31T23:59:59Z') }),
      (error: unknown) =>
        error instanceof DomainFailure && error.problems[0]?.pointer === '/data/attributes/compensation',
    );
  });

  it('cannot change once withdrawn', () => {
    assert.throws(
      () =>
        plannedHold(
          hold({ withdrawn: true }),
          { endDate: '2026-03-05' },
          { terms: terms(), others: [] },
          DEFAULT_PRINT_SETTINGS,
          FIRST_OPEN,
        ),
      refusedWith('HOLD_WITHDRAWN'),
    );
  });
});

describe('the cut-off of a dated record', () => {
  const open = date('2026-03-05');
  it('lets a new one start on the first open date, not the day before', () => {
    requireOpen('hold', undefined, span('2026-03-05', '2026-03-06'), open);
    assert.throws(
      () => requireOpen('hold', undefined, span('2026-03-04', '2026-03-06'), open),
      refusedWith('PAST_CUTOFF'),
    );
  });

  it('once started, lets only its end move among open dates', () => {
    const started = span('2026-03-01', '2026-03-10');
    requireOpen('hold', started, span('2026-03-01', '2026-03-04'), open);
    assert.throws(
      () => requireOpen('hold', started, span('2026-03-01', '2026-03-03'), open),
      refusedWith('PAST_CUTOFF'),
    );
    assert.throws(
      () => requireOpen('hold', started, span('2026-03-02', '2026-03-10'), open),
      refusedWith('ALREADY_STARTED'),
    );
    assert.throws(() => requireOpen('hold', started, undefined, open), refusedWith('ALREADY_STARTED'));
  });

  it('before it starts, lets it go or move to any open date', () => {
    const coming = span('2026-03-06', '2026-03-10');
    requireOpen('hold', coming, undefined, open);
    requireOpen('hold', coming, span('2026-03-05', '2026-03-05'), open);
    assert.throws(
      () => requireOpen('hold', coming, span('2026-03-04', '2026-03-10'), open),
      refusedWith('PAST_CUTOFF'),
    );
  });
});

describe('the dates a hold is sent with', () => {
  it('must not end before they start, and may end on the day they start', () => {
    assert.deepEqual(spanRuleProblems({ startDate: '2026-03-05', endDate: '2026-03-04' }), [
      { pointer: '/data/attributes/endDate', detail: 'must not be before startDate' },
    ]);
    assert.deepEqual(spanRuleProblems({ startDate: '2026-03-05', endDate: '2026-03-05' }), []);
    assert.deepEqual(spanRuleProblems({ startDate: '2026-03-05', endDate: '2026-03-06' }), []);
  });

  it('are left to their own checks when one is missing, not a string, or not a date', () => {
    for (const sent of [
      null,
      'dates',
      { endDate: '2026-03-04' },
      { startDate: '2026-03-05' },
      { startDate: 20260305, endDate: '2026-03-04' },
      { startDate: '2026-03-05', endDate: 20260304 },
      // An array of one date would read as that date's text: not a string, it is the schema's to refuse.
      { startDate: ['2026-03-05'], endDate: '2026-03-04' },
      { startDate: '2026-03-05', endDate: ['2026-03-04'] },
      { startDate: 'soon', endDate: '2026-03-04' },
      { startDate: '2026-03-05', endDate: 'later' },
    ]) {
      assert.deepEqual(spanRuleProblems(sent), [], JSON.stringify(sent));
    }
  });
});

describe("a hold's attributes", () => {
  it('give its dates as dates, how it is made good, what it missed, and its status on the day', () => {
    assert.deepEqual(toHoldAttributes(hold({ compensation: 'donate', deliveriesMissed: 5 }), date('2026-03-09')), {
      startDate: '2026-03-02',
      endDate: '2026-03-08',
      compensation: 'donate',
      deliveriesMissed: 5,
      status: 'ended',
    });
  });
});

describe("a hold's status", () => {
  const h = hold({});
  it('is scheduled before its start, active through its end date, ended after, withdrawn once withdrawn', () => {
    assert.equal(holdStatus(h, date('2026-03-01')), 'scheduled');
    assert.equal(holdStatus(h, date('2026-03-02')), 'active');
    assert.equal(holdStatus(h, date('2026-03-08')), 'active');
    assert.equal(holdStatus(h, date('2026-03-09')), 'ended');
    assert.equal(holdStatus({ ...h, withdrawn: true }, date('2026-03-05')), 'withdrawn');
  });
});
