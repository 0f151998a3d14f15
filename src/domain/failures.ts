/**
 * What the domain refuses, in its own terms: a rule a value breaks, an email another user has,
 * a record changed since the version a write named, an id that is taken, a record still referred
 * to, a reference to a record that does not exist or is inactive. Each has a stable code; the HTTP
 * layer answers it with the catalogued error of that code, the import command reports it as a
 * rejected row.
 */

/** One field-level problem found by a schema or a domain rule: where (a JSON pointer), and what. */
export interface Problem {
  pointer: string;
  detail: string;
}

export type FailureCode =
  | 'INVALID_ATTRIBUTE'
  | 'EMAIL_TAKEN'
  | 'PRECONDITION_FAILED'
  | 'ID_TAKEN'
  | 'STILL_REFERENCED'
  | 'UNKNOWN_REFERENCE'
  | 'INACTIVE_REFERENCE'
  | 'PAST_CUTOFF'
  | 'NOT_PRINT'
  | 'HOLD_OVERLAP'
  | 'HOLD_ALLOWANCE_EXCEEDED'
  | 'ALREADY_STARTED'
  | 'HOLD_WITHDRAWN'
  | 'TEMPORARY_ADDRESS_OVERLAP'
  | 'NOT_A_DELIVERY'
  | 'COMPLAINT_EXISTS'
  | 'CONSENT_SUPPRESSED'
  | 'NO_SEATS'
  | 'SEATS_EXHAUSTED'
  | 'SEAT_TAKEN'
  | 'SEATS_GIVEN';

export class DomainFailure extends Error {
  constructor(
    readonly code: FailureCode,
    readonly problems: readonly Problem[] = [],
    /** What went wrong, for a failure about the record as a whole rather than one field. */
    readonly detail?: string,
  ) {
    super(problems.length > 0 ? problems.map((p) => `${p.pointer}: ${p.detail}`).join('; ') : (detail ?? code));
    this.name = 'DomainFailure';
  }
}

export const failures = {
  /** Values that break a rule: one problem each. */
  invalid: (problems: readonly Problem[]) => new DomainFailure('INVALID_ATTRIBUTE', problems),
  /** A password given to prove who changes it that is not (or, since it was verified, no longer) the account's. */
  currentPasswordIncorrect: () =>
    new DomainFailure('INVALID_ATTRIBUTE', [{ pointer: '/data/attributes/currentPassword', detail: 'is incorrect' }]),
  emailTaken: () =>
    new DomainFailure('EMAIL_TAKEN', [{ pointer: '/data/attributes/email', detail: 'has already been taken' }]),
  /** The record is at another version than the write's precondition names. */
  preconditionFailed: () => new DomainFailure('PRECONDITION_FAILED'),
  /** A client-chosen id that another record has. */
  idTaken: (what: string, id: string) =>
    new DomainFailure('ID_TAKEN', [{ pointer: '/data/id', detail: `${what} ${id} already exists` }]),
  /** A record others still name, which cannot go before they stop. */
  stillReferenced: (what: string, id: string, count: number, referrers: string) =>
    new DomainFailure('STILL_REFERENCED', [], `${what} ${id} is still referred to by ${count} ${referrers}`),
  /** References to records that do not exist (with strict references). */
  unknownReference: (problems: readonly Problem[]) => new DomainFailure('UNKNOWN_REFERENCE', problems),
  /** References that would newly attach inactive records. */
  inactiveReference: (problems: readonly Problem[]) => new DomainFailure('INACTIVE_REFERENCE', problems),

  // Print circulation: what a date's cut-off, a subscription's deliveries and the allowance refuse.
  /** A change to a publication date whose changes have closed. */
  pastCutoff: (pointer: string, firstOpen: string) =>
    new DomainFailure('PAST_CUTOFF', [
      { pointer, detail: `is past its cut-off: the first date still open to changes is ${firstOpen}` },
    ]),
  /** A hold or complaint on a subscription that gives no print edition. */
  notPrint: (subscriptionId: string) =>
    new DomainFailure('NOT_PRINT', [], `subscription ${subscriptionId} gives no print edition: nothing is delivered`),
  holdOverlap: (otherId: string) =>
    new DomainFailure('HOLD_OVERLAP', [
      { pointer: '/data/attributes/startDate', detail: `overlaps hold ${otherId} of this subscription` },
    ]),
  holdAllowanceExceeded: (year: number, held: number, allowance: number) =>
    new DomainFailure('HOLD_ALLOWANCE_EXCEEDED', [
      {
        pointer: '/data/attributes/endDate',
        detail: `would hold ${held} delivery days in ${year}, more than the ${allowance} a year allowed`,
      },
    ]),
  /** A record whose dates have begun (or whose first date is past its cut-off): it can only be ended early. */
  alreadyStarted: (what: string) =>
    new DomainFailure(
      'ALREADY_STARTED',
      [],
      `the ${what} has started, or its first date is past its cut-off: change its endDate to end it early`,
    ),
  holdWithdrawn: () => new DomainFailure('HOLD_WITHDRAWN', [], 'the hold has been withdrawn: it cannot change'),
  temporaryAddressOverlap: (otherId: string) =>
    new DomainFailure('TEMPORARY_ADDRESS_OVERLAP', [
      { pointer: '/data/attributes/startDate', detail: `overlaps temporary address ${otherId} of this user` },
    ]),
  notADelivery: (why: string) =>
    new DomainFailure('NOT_A_DELIVERY', [{ pointer: '/data/attributes/deliveryDate', detail: why }]),
  complaintExists: (otherId: string) =>
    new DomainFailure('COMPLAINT_EXISTS', [
      { pointer: '/data/attributes/deliveryDate', detail: `has a complaint already (${otherId})` },
    ]),

  // Newsletter consent (domain/consent.ts).
  /** Newsletters a reader is kept off (bounced, complained) until they confirm again. */
  consentSuppressed: (problems: readonly Problem[]) => new DomainFailure('CONSENT_SUPPRESSED', problems),

  // Seats of site licences (domain/seat.ts).
  /** A seat asked of a subscription that is not a site licence with seats. */
  noSeats: (subscriptionId: string) =>
    new DomainFailure('NO_SEATS', [], `subscription ${subscriptionId} is not a site licence with seats`),
  seatsExhausted: (seats: number) =>
    new DomainFailure('SEATS_EXHAUSTED', [], `the licence has given all of its ${seats} seats`),
  seatTaken: (holderId: string) =>
    new DomainFailure('SEAT_TAKEN', [
      { pointer: '/data/relationships/user/data/id', detail: `user ${holderId} holds a seat of this licence already` },
    ]),
  /** A change of a licence's seats below those it has given. */
  seatsGiven: (given: number) =>
    new DomainFailure('SEATS_GIVEN', [
      {
        pointer: '/data/attributes/seats',
        detail: `cannot be fewer than the ${given} seats the licence has given: delete seats first`,
      },
    ]),
} as const;
