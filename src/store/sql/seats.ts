/**
 * Seats as every adapter keeps them (migration 33): the seat, its owner's record in `seats`, and
 * the same seat as its holder's key in `seat_holders`; how a row reads back, the reads of a
 * licence's seats, and the holder's read of the licences their seats are of.
 */
import type { StoredSeat } from '../../domain/seat.js';
import type { HeldSeat } from '../ports/seats.js';
import { raw, sql, where, type Sql } from './builder.js';
import { seconds, type Row } from './rows.js';
import { LICENCE_COLUMNS } from './site-licences.js';
import { statusCondition } from './subscriptions.js';

export const SEAT_COLUMNS = 'id, user_id, subscription_id, holder_id, created_at';

export function toStoredSeat(row: Row): StoredSeat {
  return {
    id: String(row.id),
    userId: String(row.user_id),
    subscriptionId: String(row.subscription_id),
    holderId: String(row.holder_id),
    createdAt: seconds(row.created_at),
  };
}

/** A page of a licence's seats in id order. */
export function seatsQuery(userId: string, subscriptionId: string, query: { afterId?: string; limit: number }): Sql {
  const conditions = [sql`user_id = ${userId} AND subscription_id = ${subscriptionId}`];
  if (query.afterId !== undefined) conditions.push(sql`id > ${query.afterId}`);
  return sql`SELECT ${raw(SEAT_COLUMNS)} FROM seats ${where(conditions)} ORDER BY id LIMIT ${query.limit}`;
}

/** A page of the seats a reader holds, by seat id, from their keys alone (the holder's shard on Citus). */
export function seatsHeldQuery(holderId: string, query: { afterId?: string; limit: number }): Sql {
  const conditions = [sql`user_id = ${holderId}`];
  if (query.afterId !== undefined) conditions.push(sql`seat_id > ${query.afterId}`);
  return sql`SELECT seat_id, owner_id, subscription_id FROM seat_holders ${where(conditions)}
    ORDER BY seat_id LIMIT ${query.limit}`;
}

export function toHeldSeat(row: Row): HeldSeat {
  return { id: String(row.seat_id), ownerId: String(row.owner_id), subscriptionId: String(row.subscription_id) };
}

export function seatQuery(userId: string, subscriptionId: string, id: string): Sql {
  return sql`SELECT ${raw(SEAT_COLUMNS)} FROM seats WHERE user_id = ${userId} AND subscription_id = ${subscriptionId}
    AND id = ${id}`;
}

/** What a seat is given against, read with the licence (locked on PostgreSQL beforehand): its terms, the seats given, whether the holder exists and is seated. */
export function seatContextQuery(userId: string, subscriptionId: string, holderId: string): Sql {
  return sql`SELECT s.id, s.license, s.seats,
      (SELECT count(*) FROM seats g WHERE g.user_id = s.user_id AND g.subscription_id = s.id) AS given,
      (SELECT count(*) FROM seats g WHERE g.user_id = s.user_id AND g.subscription_id = s.id
        AND g.holder_id = ${holderId}) AS seated
    FROM subscriptions s WHERE s.user_id = ${userId} AND s.id = ${subscriptionId}`;
}

/** The seats a licence has given: counted when a change would lower its seats. */
export function seatsGivenQuery(userId: string, subscriptionId: string): Sql {
  return sql`SELECT count(*) AS n FROM seats WHERE user_id = ${userId} AND subscription_id = ${subscriptionId}`;
}

/**
 * The licences active at `at` of which the reader holds a seat: their seat keys, on their shard,
 * joined to the licences (on a single server; Citus reads the keys, then the licences apart).
 */
export function licencesOfSeatHolder(holder: unknown, at: unknown): Sql {
  return sql`SELECT ${LICENCE_COLUMNS} FROM seat_holders h
    JOIN subscriptions s ON s.user_id = h.owner_id AND s.id = h.subscription_id
    WHERE h.user_id = ${holder} AND ${statusCondition('s', 'active', at)}`;
}

/** The licences of which the reader holds a seat, as (user, subscription): Citus's first read, on the holder's shard. */
export const SEAT_KEYS_OF_HOLDER = 'SELECT owner_id AS user_id, subscription_id FROM seat_holders WHERE user_id = $1';

/** Every reader holding a seat: what a process keeps so that a reader holding none costs no read. */
export const SEAT_HOLDERS = 'SELECT DISTINCT user_id FROM seat_holders';
