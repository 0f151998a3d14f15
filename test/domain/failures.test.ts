/**
 * The domain's failures on their own: each has its stable code, and says where and what in the
 * words a client is answered with (or the import command reports).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainFailure, failures } from '../../src/domain/failures.js';

const seen = (failure: DomainFailure) => ({
  code: failure.code,
  problems: failure.problems,
  detail: failure.detail,
  message: failure.message,
});

describe('DomainFailure', () => {
  it('is an Error named DomainFailure', () => {
    const failure = new DomainFailure('PRECONDITION_FAILED');
    assert.ok(failure instanceof Error);
    assert.equal(failure.name, 'DomainFailure');
  });

  it('says each problem, where and what, in its message', () => {
    const failure = new DomainFailure('INVALID_ATTRIBUTE', [
      { pointer: '/data/attributes/a', detail: 'is wrong' },
      { pointer: '/data/attributes/b', detail: 'is missing' },
    ]);
    assert.equal(failure.message, '/data/attributes/a: is wrong; /data/attributes/b: is missing');
  });

  it('says what went wrong with the whole record without problems, or its code without either', () => {
    assert.equal(new DomainFailure('STILL_REFERENCED', [], 'still named').message, 'still named');
    assert.equal(new DomainFailure('PRECONDITION_FAILED').message, 'PRECONDITION_FAILED');
    assert.deepEqual(new DomainFailure('PRECONDITION_FAILED').problems, []);
  });
});

describe('failures', () => {
  it('of values and references carry the problems they are given', () => {
    const problems = [{ pointer: '/data/attributes/x', detail: 'is wrong' }];
    assert.deepEqual(seen(failures.invalid(problems)), {
      code: 'INVALID_ATTRIBUTE',
      problems,
      detail: undefined,
      message: '/data/attributes/x: is wrong',
    });
    assert.equal(failures.unknownReference(problems).code, 'UNKNOWN_REFERENCE');
    assert.deepEqual(failures.unknownReference(problems).problems, problems);
    assert.equal(failures.inactiveReference(problems).code, 'INACTIVE_REFERENCE');
    assert.deepEqual(failures.inactiveReference(problems).problems, problems);
    assert.equal(failures.consentSuppressed(problems).code, 'CONSENT_SUPPRESSED');
    assert.deepEqual(failures.consentSuppressed(problems).problems, problems);
  });

  it('about one field name it and say what is wrong there', () => {
    const cases: [DomainFailure, string, string, string][] = [
      [failures.currentPasswordIncorrect(), 'INVALID_ATTRIBUTE', '/data/attributes/currentPassword', 'is incorrect'],
      [failures.emailTaken(), 'EMAIL_TAKEN', '/data/attributes/email', 'has already been taken'],
      [failures.idTaken('product', 'daily'), 'ID_TAKEN', '/data/id', 'product daily already exists'],
      [
        failures.pastCutoff('/data/attributes/startDate', '2026-12-01'),
        'PAST_CUTOFF',
        '/data/attributes/startDate',
        'is past its cut-off: the first date still open to changes is 2026-12-01',
      ],
      [failures.holdOverlap('5'), 'HOLD_OVERLAP', '/data/attributes/startDate', 'overlaps hold 5 of this subscription'],
      [
        failures.holdAllowanceExceeded(2026, 31, 30),
        'HOLD_ALLOWANCE_EXCEEDED',
        '/data/attributes/endDate',
        'would hold 31 delivery days in 2026, more than the 30 a year allowed',
      ],
      [
        failures.temporaryAddressOverlap('6'),
        'TEMPORARY_ADDRESS_OVERLAP',
        '/data/attributes/startDate',
        'overlaps temporary address 6 of this user',
      ],
      [failures.notADelivery('is a Sunday'), 'NOT_A_DELIVERY', '/data/attributes/deliveryDate', 'is a Sunday'],
      [
        failures.complaintExists('8'),
        'COMPLAINT_EXISTS',
        '/data/attributes/deliveryDate',
        'has a complaint already (8)',
      ],
      [
        failures.seatTaken('9'),
        'SEAT_TAKEN',
        '/data/relationships/user/data/id',
        'user 9 holds a seat of this licence already',
      ],
      [
        failures.seatsGiven(3),
        'SEATS_GIVEN',
        '/data/attributes/seats',
        'cannot be fewer than the 3 seats the licence has given: delete seats first',
      ],
    ];
    for (const [failure, code, pointer, detail] of cases) {
      assert.deepEqual(seen(failure), {
        code,
        problems: [{ pointer, detail }],
        detail: undefined,
        message: `${pointer}: ${detail}`,
      });
    }
  });

  it('about the record as a whole say what went wrong with it', () => {
    const cases: [DomainFailure, string, string][] = [
      [failures.preconditionFailed(), 'PRECONDITION_FAILED', 'PRECONDITION_FAILED'],
      [
        failures.stillReferenced('product', 'daily', 2, 'subscriptions'),
        'STILL_REFERENCED',
        'product daily is still referred to by 2 subscriptions',
      ],
      [failures.notPrint('4'), 'NOT_PRINT', 'subscription 4 gives no print edition: nothing is delivered'],
      [
        failures.alreadyStarted('hold'),
        'ALREADY_STARTED',
        'the hold has started, or its first date is past its cut-off: change its endDate to end it early',
      ],
      [failures.holdWithdrawn(), 'HOLD_WITHDRAWN', 'the hold has been withdrawn: it cannot change'],
      [failures.noSeats('4'), 'NO_SEATS', 'subscription 4 is not a site licence with seats'],
      [failures.seatsExhausted(3), 'SEATS_EXHAUSTED', 'the licence has given all of its 3 seats'],
    ];
    for (const [failure, code, message] of cases) {
      assert.equal(failure.code, code);
      assert.deepEqual(failure.problems, []);
      assert.equal(failure.message, message);
    }
  });
});
