/**
 * The port for the seats of site licences. Every call names the licence's owner and the licence,
 * so a seat is reachable only under its licence, and on Citus a seat's statements route to its
 * owner's shard; each seat is also kept as a key of its holder's (on the holder's shard there),
 * which the holder's access check reads (ports/site-licences.ts). A seat is given inside the
 * store's transaction with the licence locked, its rules (domain/seat.ts) reading the seats
 * given: of many asking for the last seat at once, exactly one gets it.
 */
import type { AuditContext } from '../../domain/audit.js';
import type { StoredSeat } from '../../domain/seat.js';

/** A page of a licence's seats, by id. */
export interface SeatPageQuery {
  afterId?: string;
  limit: number;
}

export interface SeatStore {
  /**
   * Gives the reader `holderId` a seat of the licence, or throws the refusal (NO_SEATS,
   * UNKNOWN_REFERENCE, SEAT_TAKEN, SEATS_EXHAUSTED); undefined when the owner has no such subscription.
   */
  create(
    userId: string,
    subscriptionId: string,
    holderId: string,
    audit: AuditContext,
  ): Promise<StoredSeat | undefined>;
  /** A page of the licence's seats; undefined when the owner has no such subscription. */
  list(userId: string, subscriptionId: string, query: SeatPageQuery): Promise<StoredSeat[] | undefined>;
  get(userId: string, subscriptionId: string, id: string): Promise<StoredSeat | undefined>;
  /** Takes the seat back (its holder's key with it); false when there is no such seat. */
  delete(userId: string, subscriptionId: string, id: string, audit: AuditContext): Promise<boolean>;
  /** A page of the seats the reader holds, on anyone's licences, by seat id (their holder's keys alone). */
  listHeld(holderId: string, query: SeatPageQuery): Promise<HeldSeat[]>;
}

/** A seat as its holder's key names it: the seat, its licence and the licence's owner. */
export interface HeldSeat {
  id: string;
  ownerId: string;
  subscriptionId: string;
}
