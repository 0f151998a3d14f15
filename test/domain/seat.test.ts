import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainFailure } from '../../src/domain/failures.js';
import {
  lowersSeats,
  requireSeat,
  requireSeatsGiven,
  toSeatAttributes,
  type SeatContext,
} from '../../src/domain/seat.js';

const context = (overrides: Partial<SeatContext> = {}): SeatContext => ({
  licence: { id: '9', license: 'site', seats: 3 },
  given: 0,
  holderExists: true,
  holderSeated: false,
  ...overrides,
});
const code = (work: () => void) => {
  try {
    work();
    return undefined;
  } catch (error) {
    assert.ok(error instanceof DomainFailure);
    return error.code;
  }
};

describe('requireSeat', () => {
  it('gives seats up to the licence’s number, and refuses the one beyond', () => {
    assert.equal(
      code(() => requireSeat(context({ given: 0 }), '5')),
      undefined,
    );
    assert.equal(
      code(() => requireSeat(context({ given: 2 }), '5')),
      undefined,
    );
    assert.equal(
      code(() => requireSeat(context({ given: 3 }), '5')),
      'SEATS_EXHAUSTED',
    );
  });

  it('refuses a licence without seats or not a site licence before anything else', () => {
    const none = { licence: { id: '9', license: 'site' as const, seats: null }, holderExists: false };
    assert.equal(
      code(() => requireSeat(context(none), '5')),
      'NO_SEATS',
    );
    const individual = { licence: { id: '9', license: 'individual' as const, seats: null } };
    assert.equal(
      code(() => requireSeat(context(individual), '5')),
      'NO_SEATS',
    );
    // Seats on a licence that is not a site licence give nothing, whatever its number says.
    const numbered = { licence: { id: '9', license: 'individual' as const, seats: 3 } };
    assert.equal(
      code(() => requireSeat(context(numbered), '5')),
      'NO_SEATS',
    );
  });

  it('names the holder who does not exist at the relationship', () => {
    assert.throws(
      () => requireSeat(context({ holderExists: false }), '5'),
      (error: unknown) => {
        assert.ok(error instanceof DomainFailure);
        assert.deepEqual(error.problems, [
          { pointer: '/data/relationships/user/data/id', detail: 'user 5 does not exist' },
        ]);
        return true;
      },
    );
  });

  it('refuses a reader who does not exist, then one seated already, before counting', () => {
    assert.equal(
      code(() => requireSeat(context({ holderExists: false, given: 3 }), '5')),
      'UNKNOWN_REFERENCE',
    );
    assert.equal(
      code(() => requireSeat(context({ holderSeated: true, given: 3 }), '5')),
      'SEAT_TAKEN',
    );
  });
});

describe('requireSeatsGiven and lowersSeats', () => {
  it('lets seats go down to those given, not below, and counts only when a change lowers them', () => {
    assert.equal(
      code(() => requireSeatsGiven(2, 2)),
      undefined,
    );
    assert.equal(
      code(() => requireSeatsGiven(1, 2)),
      'SEATS_GIVEN',
    );
    assert.equal(
      code(() => requireSeatsGiven(null, 1)),
      'SEATS_GIVEN',
    );
    assert.equal(
      code(() => requireSeatsGiven(null, 0)),
      undefined,
    );
    assert.equal(lowersSeats(3, 2), true);
    assert.equal(lowersSeats(3, null), true);
    assert.equal(lowersSeats(3, 3), false);
    assert.equal(lowersSeats(3, 4), false);
    assert.equal(lowersSeats(null, 4), false);
    assert.equal(lowersSeats(null, null), false);
    assert.equal(lowersSeats(1, null), true);
  });
});

describe('toSeatAttributes', () => {
  it('shows when the seat was given', () => {
    const seat = { id: '1', userId: '2', subscriptionId: '3', holderId: '4', createdAt: 1_767_225_600 };
    assert.deepEqual(toSeatAttributes(seat), { createdAt: '2026-01-01T00:00:00+00:00' });
  });
});
