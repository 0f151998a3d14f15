import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainFailure } from '../../src/domain/failures.js';
import { spanStatus } from '../../src/domain/print.js';
import { parseDate } from '../../src/domain/publication.js';
import {
  MAX_COMING_TEMPORARY_ADDRESSES,
  MAX_TEMPORARY_ADDRESS_DAYS,
  plannedTemporaryAddress,
  requireDeletable,
  temporaryAddressRuleProblems,
  toTemporaryAddressAttributes,
  type StoredTemporaryAddress,
} from '../../src/domain/temporary-address.js';

const date = (text: string) => parseDate(text) as number;
const refusedWith = (code: string) => (error: unknown) => error instanceof DomainFailure && error.code === code;
/** Refused as started, the message naming a temporary address. */
const alreadyStarted = (error: unknown) =>
  error instanceof DomainFailure &&
  error.code === 'ALREADY_STARTED' &&
  /^the temporary address has started/.test(error.message);
const FIRST_OPEN = date('2026-03-01');
const ADDRESS = {
  streetAddress: '2 Shore Road',
  unitNumber: null,
  addressLocality: 'Brightsea',
  addressRegion: null,
  addressCountry: 'GB',
  postalCode: 'BS1 1AA',
};

const stored = (values: Partial<StoredTemporaryAddress>): StoredTemporaryAddress => ({
  id: '1',
  userId: '1',
  startDate: date('2026-03-10'),
  endDate: date('2026-03-20'),
  address: ADDRESS,
  version: 1,
  ...values,
});

describe('a temporary address planned', () => {
  it('keeps every address field, null where none was sent', () => {
    const values = plannedTemporaryAddress(
      undefined,
      { startDate: '2026-03-01', endDate: '2026-03-01', address: { postalCode: 'X1' } },
      [],
      FIRST_OPEN,
    );
    assert.deepEqual(values, {
      startDate: FIRST_OPEN,
      endDate: FIRST_OPEN,
      address: {
        streetAddress: null,
        unitNumber: null,
        addressLocality: null,
        addressRegion: null,
        addressCountry: null,
        postalCode: 'X1',
      },
    });
  });

  it('starts on the first open date, and not the day before (PAST_CUTOFF at startDate)', () => {
    assert.throws(
      () =>
        plannedTemporaryAddress(
          undefined,
          { startDate: '2026-02-28', endDate: '2026-03-05', address: ADDRESS },
          [],
          FIRST_OPEN,
        ),
      (error: unknown) =>
        error instanceof DomainFailure &&
        error.code === 'PAST_CUTOFF' &&
        error.problems[0]?.pointer === '/data/attributes/startDate',
    );
  });

  it(`covers at most ${MAX_TEMPORARY_ADDRESS_DAYS} dates, both ends included`, () => {
    const start = '2026-03-01';
    const last = '2027-03-01'; // 366 dates from 2026-03-01.
    assert.equal(date(last) - date(start) + 1, MAX_TEMPORARY_ADDRESS_DAYS);
    plannedTemporaryAddress(undefined, { startDate: start, endDate: last, address: ADDRESS }, [], FIRST_OPEN);
    assert.throws(
      () =>
        plannedTemporaryAddress(
          undefined,
          { startDate: start, endDate: '2027-03-02', address: ADDRESS },
          [],
          FIRST_OPEN,
        ),
      (error: unknown) =>
        error instanceof DomainFailure &&
        error.code === 'INVALID_ATTRIBUTE' &&
        error.problems[0]?.pointer === '/data/attributes/endDate' &&
        error.problems[0].detail === 'must be at most 366 dates from startDate, both included',
    );
  });

  it('refuses one overlapping another by a day, and takes one beside it', () => {
    const other = stored({ id: '9' });
    assert.throws(
      () =>
        plannedTemporaryAddress(
          undefined,
          { startDate: '2026-03-20', endDate: '2026-03-25', address: ADDRESS },
          [other],
          FIRST_OPEN,
        ),
      (error: unknown) =>
        error instanceof DomainFailure && error.code === 'TEMPORARY_ADDRESS_OVERLAP' && /9/.test(error.message),
    );
    plannedTemporaryAddress(
      undefined,
      { startDate: '2026-03-21', endDate: '2026-03-25', address: ADDRESS },
      [other],
      FIRST_OPEN,
    );
    plannedTemporaryAddress(
      undefined,
      { startDate: '2026-03-01', endDate: '2026-03-09', address: ADDRESS },
      [other],
      FIRST_OPEN,
    );
  });

  it(`refuses a reader's ${MAX_COMING_TEMPORARY_ADDRESSES + 1}th that has not ended, whatever ended before, and takes the ${MAX_COMING_TEMPORARY_ADDRESSES}th`, () => {
    // One-day addresses from 1 April on, and as many that ended before the first open date.
    const coming = (n: number) =>
      Array.from({ length: n }, (_, i) =>
        stored({ id: `c${i}`, startDate: date('2026-04-01') + i, endDate: date('2026-04-01') + i }),
      );
    const ended = Array.from({ length: 30 }, (_, i) =>
      stored({ id: `e${i}`, startDate: date('2026-01-01') + i, endDate: date('2026-01-01') + i }),
    );
    const next = { startDate: '2026-06-01', endDate: '2026-06-02', address: ADDRESS };
    plannedTemporaryAddress(undefined, next, [...ended, ...coming(MAX_COMING_TEMPORARY_ADDRESSES - 1)], FIRST_OPEN);
    assert.throws(
      () => plannedTemporaryAddress(undefined, next, [...ended, ...coming(MAX_COMING_TEMPORARY_ADDRESSES)], FIRST_OPEN),
      (error: unknown) =>
        error instanceof DomainFailure &&
        error.code === 'INVALID_ATTRIBUTE' &&
        error.problems[0]?.pointer === '/data' &&
        error.problems[0].detail === 'the reader has 20 temporary addresses that have not ended, the most there may be',
    );
    // A change of one of them is no new one.
    const all = coming(MAX_COMING_TEMPORARY_ADDRESSES);
    plannedTemporaryAddress(all[0], { endDate: '2026-04-01' }, all, FIRST_OPEN);
  });

  it('counts one whose last date is the first open date as not ended, and one that ended the day before as ended', () => {
    const coming = Array.from({ length: MAX_COMING_TEMPORARY_ADDRESSES - 1 }, (_, i) =>
      stored({ id: `c${i}`, startDate: date('2026-04-01') + i, endDate: date('2026-04-01') + i }),
    );
    const endingOn = (endDate: number) => stored({ id: 'last', startDate: date('2026-02-01'), endDate });
    const next = { startDate: '2026-06-01', endDate: '2026-06-02', address: ADDRESS };
    plannedTemporaryAddress(undefined, next, [...coming, endingOn(FIRST_OPEN - 1)], FIRST_OPEN);
    assert.throws(
      () => plannedTemporaryAddress(undefined, next, [...coming, endingOn(FIRST_OPEN)], FIRST_OPEN),
      refusedWith('INVALID_ATTRIBUTE'),
    );
  });

  it('changed, does not clash with itself', () => {
    const current = stored({});
    const values = plannedTemporaryAddress(current, { endDate: '2026-03-22' }, [current], FIRST_OPEN);
    assert.equal(values.endDate, date('2026-03-22'));
    assert.deepEqual(values.address, ADDRESS);
    const moved = plannedTemporaryAddress(current, { startDate: '2026-03-12' }, [current], FIRST_OPEN);
    assert.deepEqual([moved.startDate, moved.endDate], [date('2026-03-12'), date('2026-03-20')]);
  });

  it('changes its address up to its first date, the first open one included', () => {
    const current = stored({ startDate: FIRST_OPEN, endDate: date('2026-03-20') });
    const other = { ...ADDRESS, postalCode: 'OTHER' };
    assert.deepEqual(plannedTemporaryAddress(current, { address: other }, [current], FIRST_OPEN).address, {
      ...other,
    });
  });

  it('once started, keeps its start and address, and its end moves among open dates only', () => {
    const current = stored({ startDate: date('2026-02-20'), endDate: date('2026-03-20') });
    assert.throws(
      () => plannedTemporaryAddress(current, { startDate: '2026-03-05' }, [current], FIRST_OPEN),
      alreadyStarted,
    );
    assert.throws(
      () => plannedTemporaryAddress(current, { address: { ...ADDRESS, postalCode: 'OTHER' } }, [current], FIRST_OPEN),
      alreadyStarted,
    );
    // The same address sent again changes nothing, so it is no change of a started one.
    plannedTemporaryAddress(current, { address: ADDRESS, endDate: '2026-03-01' }, [current], FIRST_OPEN);
    // Ended early: the last date delivered there may be the day before the first open one.
    assert.equal(
      plannedTemporaryAddress(current, { endDate: '2026-02-28' }, [current], FIRST_OPEN).endDate,
      date('2026-02-28'),
    );
    assert.throws(
      () => plannedTemporaryAddress(current, { endDate: '2026-02-27' }, [current], FIRST_OPEN),
      refusedWith('PAST_CUTOFF'),
    );
  });

  it('refuses an end before the start that a change would make', () => {
    const current = stored({});
    assert.throws(
      () => plannedTemporaryAddress(current, { endDate: '2026-03-09' }, [current], FIRST_OPEN),
      refusedWith('INVALID_ATTRIBUTE'),
    );
  });
});

describe('deleting a temporary address', () => {
  it('is allowed before its first date closes, and refused (ALREADY_STARTED) from then on', () => {
    requireDeletable(stored({ startDate: FIRST_OPEN }), FIRST_OPEN);
    assert.throws(() => requireDeletable(stored({ startDate: FIRST_OPEN - 1 }), FIRST_OPEN), alreadyStarted);
  });
});

describe("a temporary address's rules", () => {
  it('refuse a blank address, an end before the start, and a long region in the US', () => {
    assert.deepEqual(
      temporaryAddressRuleProblems({
        startDate: '2026-03-02',
        endDate: '2026-03-01',
        address: { addressCountry: 'US', addressRegion: 'Oregon' },
      }).map((p) => p.pointer),
      ['/data/attributes/address/addressRegion', '/data/attributes/endDate'],
    );
    assert.deepEqual(
      temporaryAddressRuleProblems({ startDate: '2026-03-02', endDate: '2026-03-01', address: ADDRESS }),
      [{ pointer: '/data/attributes/endDate', detail: 'must not be before startDate' }],
    );
    assert.deepEqual(
      temporaryAddressRuleProblems({ startDate: '2026-03-01', endDate: '2027-03-02', address: ADDRESS }),
      [{ pointer: '/data/attributes/endDate', detail: 'must be at most 366 dates from startDate, both included' }],
    );
    assert.deepEqual(
      temporaryAddressRuleProblems({ startDate: '2026-03-01', endDate: '2027-03-01', address: ADDRESS }),
      [],
    );
    assert.deepEqual(
      temporaryAddressRuleProblems({ startDate: '2026-03-01', endDate: '2026-03-01', address: { postalCode: '  ' } }),
      [{ pointer: '/data/attributes/address', detail: "can't be blank" }],
    );
    assert.deepEqual(
      temporaryAddressRuleProblems({ startDate: '2026-03-01', endDate: '2026-03-01', address: { postalCode: 'X' } }),
      [],
    );
  });
});

describe("a temporary address's rules, for what the schema refuses", () => {
  it('find nothing in what is not an object, nor in dates that are not both strings', () => {
    for (const sent of [null, 'dates', ['2026-03-02']]) assert.deepEqual(temporaryAddressRuleProblems(sent), []);
    for (const sent of [
      { startDate: '2026-03-02' },
      { endDate: '2026-03-01' },
      { startDate: 'soon', endDate: '2026-03-01' },
      // An array of one date would read as that date's text: not a string, it is the schema's to refuse.
      { startDate: ['2026-03-02'], endDate: '2026-03-01' },
      { startDate: '2026-03-02', endDate: ['2026-03-01'] },
      { startDate: ['2026-03-02'], endDate: ['2026-03-01'] },
    ]) {
      assert.deepEqual(temporaryAddressRuleProblems({ ...sent, address: ADDRESS }), [], JSON.stringify(sent));
    }
  });
});

describe("a temporary address's attributes", () => {
  it('give its dates as dates, the whole address, and its status on the day', () => {
    const address = { ...ADDRESS, unitNumber: 'Flat 2' };
    const value = stored({ address });
    const attributes = toTemporaryAddressAttributes(value, date('2026-03-20'));
    assert.deepEqual(attributes, {
      startDate: '2026-03-10',
      endDate: '2026-03-20',
      address,
      status: 'active',
    });
    // A copy: the attributes written out never change the record kept.
    assert.notEqual(attributes.address, value.address);
  });
});

describe("a dated record's status (a temporary address's, a hold's not withdrawn)", () => {
  it('is scheduled before its start, active through its end, ended after', () => {
    const span = { startDate: 10, endDate: 12 };
    assert.deepEqual(
      [9, 10, 12, 13].map((today) => spanStatus(span, today)),
      ['scheduled', 'active', 'active', 'ended'],
    );
  });
});
