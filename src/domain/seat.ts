/**
 * Seats: the readers a site licence's owner names, each given what the licence gives others
 * (online, never print) while it is active. A licence has `seats` of them at most; the owner gives
 * and takes them back, and a reader may leave (their seat deleted). A seat is its owner's record,
 * found from its holder by a key of the holder's (store/ports/seats.ts).
 *
 * Decisions where the interface leaves a choice:
 * - A seat names a reader who exists (else 422 UNKNOWN_REFERENCE at the relationship), once per
 *   licence (409 SEAT_TAKEN), on a site licence with seats (else 422 NO_SEATS); one more than
 *   `seats` is 422 SEATS_EXHAUSTED. These are checked with the licence locked, so of many asking
 *   for the last seat at once exactly one gets it.
 * - Lowering `seats` below the seats given, or dropping them (null, or another licence), is
 *   refused (422 SEATS_GIVEN at seats): the licence never names fewer seats than it has given, so
 *   nobody loses access by a change of numbers; the owner deletes the seats to be taken back first.
 * - A seat on a licence not active (scheduled, ended, expired) is kept and gives nothing until the
 *   licence is active again.
 */
import { Type, type Static } from '@sinclair/typebox';
import { formatInstant } from './dates.js';
import { failures } from './failures.js';
import type { License } from './subscription.js';

export const SEATS = 'seats';

/** Where a seat's holder is named in the document that gives it. */
export const SEAT_HOLDER_POINTER = '/data/relationships/user/data/id';

export const SeatAttributes = Type.Object({
  createdAt: Type.String({ format: 'date-time', description: 'Read-only: when the seat was given.' }),
});

export interface StoredSeat {
  id: string;
  /** The licence's owner. */
  userId: string;
  subscriptionId: string;
  /** The reader given the seat. */
  holderId: string;
  createdAt: number;
}

export function toSeatAttributes(seat: StoredSeat): Static<typeof SeatAttributes> {
  return { createdAt: formatInstant(seat.createdAt) };
}

/** What a seat is given against, read with the licence locked. */
export interface SeatContext {
  licence: { id: string; license: License | null; seats: number | null };
  /** How many seats the licence has given. */
  given: number;
  holderExists: boolean;
  /** Whether the holder has a seat of this licence already. */
  holderSeated: boolean;
}

/** Refuses a seat the licence cannot give, saying why; in the order a client can act on. */
export function requireSeat(context: SeatContext, holderId: string): void {
  const { licence, given } = context;
  if (licence.license !== 'site' || licence.seats === null) throw failures.noSeats(licence.id);
  if (!context.holderExists) {
    throw failures.unknownReference([{ pointer: SEAT_HOLDER_POINTER, detail: `user ${holderId} does not exist` }]);
  }
  if (context.holderSeated) throw failures.seatTaken(holderId);
  if (given >= licence.seats) throw failures.seatsExhausted(licence.seats);
}

/**
 * Refuses a change of a licence that would leave it fewer seats than it has given (`given`, read
 * with it locked); `seats` is what the change leaves (null for none, as for another licence).
 */
export function requireSeatsGiven(seats: number | null, given: number): void {
  if (given > (seats ?? 0)) throw failures.seatsGiven(given);
}

/** Whether a change of a licence's seats from `before` to `after` may leave it fewer than given: only then are they counted. */
export function lowersSeats(before: number | null, after: number | null): boolean {
  if (before === null) return false;
  // Stryker disable next-line ConditionalExpression: null < before too, for every seats a licence may have (1 or more)
  if (after === null) return true;
  return after < before;
}
