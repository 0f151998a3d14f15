/**
 * Seats on PostgreSQL. A seat is given in one transaction that first locks the licence's row:
 * grabs of one licence's seats queue behind each other, and each counts those before it, so of
 * many asking for the last seat exactly one gets it. The seat is its owner's row (on the owner's
 * shard on Citus); its holder's key in seat_holders is written in the same transaction (on the
 * holder's shard), and every statement names the user whose shard it routes to, never a column
 * that would make Citus ask every shard: the seats of an erased holder are found from their
 * keys, the keys of a deleted licence from its seats.
 */
import type pg from 'pg';
import type { AuditContext } from '../../domain/audit.js';
import { requireSeat } from '../../domain/seat.js';
import type { SeatStore } from '../port.js';
import type { Row } from '../sql/rows.js';
import {
  SEAT_COLUMNS,
  seatContextQuery,
  seatQuery,
  seatsHeldQuery,
  seatsQuery,
  toHeldSeat,
  toStoredSeat,
} from '../sql/seats.js';
import { auditInsert, rowsOn, type PostgresDatabase } from './database.js';
import { SEAT_HOLDERS_CHANNEL, type KeptSet } from './licensed-domains.js';

/** The seats a licence has given ($1 its owner, $2 it): counted when a change would lower its seats. */
export const SEATS_GIVEN = 'SELECT count(*) AS n FROM seats WHERE user_id = $1 AND subscription_id = $2';

export function postgresSeats(database: PostgresDatabase, holders: KeptSet): SeatStore {
  return {
    async create(userId, subscriptionId, holderId, audit) {
      let given = false;
      try {
        return await database.transaction(async (client) => {
          const locked = await client.query('SELECT 1 FROM subscriptions WHERE user_id = $1 AND id = $2 FOR UPDATE', [
            userId,
            subscriptionId,
          ]);
          if (locked.rowCount === 0) return undefined;
          const [licence] = (await rowsOn(client, seatContextQuery(userId, subscriptionId, holderId))) as Row[];
          const holder = await client.query('SELECT 1 FROM users WHERE id = $1', [holderId]);
          requireSeat(
            {
              licence: {
                id: subscriptionId,
                license: licence?.license as never,
                seats: (licence?.seats ?? null) as number | null,
              },
              given: Number(licence?.given),
              holderExists: (holder.rowCount ?? 0) > 0,
              holderSeated: Number(licence?.seated) > 0,
            },
            holderId,
          );
          const params: unknown[] = [userId, subscriptionId, holderId];
          const record = auditInsert(params, audit, {
            action: 'create',
            resourceType: 'seats',
            userIdColumn: 'user_id',
            from: 'n',
          });
          const { rows } = await client.query(
            `WITH n AS (
               INSERT INTO seats (user_id, subscription_id, holder_id) VALUES ($1, $2, $3) RETURNING ${SEAT_COLUMNS}
             ), a AS (${record})
             SELECT * FROM n`,
            params,
          );
          const seat = toStoredSeat(rows[0] as Row);
          await client.query(
            'INSERT INTO seat_holders (user_id, owner_id, subscription_id, seat_id) VALUES ($1, $2, $3, $4)',
            [holderId, userId, subscriptionId, seat.id],
          );
          await client.query(`NOTIFY ${SEAT_HOLDERS_CHANNEL}`);
          given = true;
          return seat;
        });
      } finally {
        // Even when the commit's answer was lost: the seat may have been given.
        if (given) holders.added();
      }
    },

    async list(userId, subscriptionId, query) {
      const found = await database.rows('SELECT 1 FROM subscriptions WHERE user_id = $1 AND id = $2', [
        userId,
        subscriptionId,
      ]);
      if (found.length === 0) return undefined;
      return (await database.rows(seatsQuery(userId, subscriptionId, query))).map(toStoredSeat);
    },

    async get(userId, subscriptionId, id) {
      const [row] = await database.rows(seatQuery(userId, subscriptionId, id));
      return row && toStoredSeat(row);
    },

    async delete(userId, subscriptionId, id, audit) {
      return database.transaction(async (client) => {
        const params: unknown[] = [userId, subscriptionId, id];
        const record = auditInsert(params, audit, {
          action: 'delete',
          resourceType: 'seats',
          userIdColumn: 'user_id',
          from: 'd',
        });
        const { rows } = await client.query(
          `WITH d AS (
             DELETE FROM seats WHERE user_id = $1 AND subscription_id = $2 AND id = $3 RETURNING id, user_id, holder_id
           ), a AS (${record})
           SELECT holder_id FROM d`,
          params,
        );
        const [seat] = rows as Row[];
        if (!seat) return false;
        await client.query('DELETE FROM seat_holders WHERE user_id = $1 AND owner_id = $2 AND subscription_id = $3', [
          seat.holder_id,
          userId,
          subscriptionId,
        ]);
        return true;
      });
    },

    async listHeld(holderId, query) {
      return (await database.rows(seatsHeldQuery(holderId, query))).map(toHeldSeat);
    },
  };
}

/**
 * Removes, on a deletion's connection, the holders' keys of a licence's seats (the seats cascade
 * with the licence): found from the seats, so that each key is deleted on its holder's shard.
 */
export async function forgetSeatsOfLicence(client: pg.ClientBase, userId: string, subscriptionId: string) {
  const { rows } = await client.query<{ holder_id: string }>(
    'SELECT holder_id FROM seats WHERE user_id = $1 AND subscription_id = $2',
    [userId, subscriptionId],
  );
  if (rows.length === 0) return;
  await client.query(
    'DELETE FROM seat_holders WHERE user_id = ANY($1::bigint[]) AND owner_id = $2 AND subscription_id = $3',
    [rows.map((r) => r.holder_id), userId, subscriptionId],
  );
}

/**
 * Removes, on an erasure's connection, what the user's own keys and seats do not take with them
 * by cascade: the seats they hold (rows of their licences' owners, found from their keys; each a
 * seat.deleted of its owner's, so the institution learns the seat is free) and the keys of the
 * readers holding seats of their licences (found from those seats).
 */
export async function forgetSeatsOfUser(client: pg.ClientBase, userId: string, audit: AuditContext) {
  const held = await client.query<{ owner_id: string; seat_id: string }>(
    'SELECT owner_id, seat_id FROM seat_holders WHERE user_id = $1',
    [userId],
  );
  // One statement an owner: on Citus each routes to the owner's shard, where its audit entry goes.
  for (const owner of new Set(held.rows.map((r) => r.owner_id))) {
    const seatIds = held.rows.filter((r) => r.owner_id === owner).map((r) => r.seat_id);
    const params: unknown[] = [owner, seatIds, userId];
    const record = auditInsert(params, audit, {
      action: 'delete',
      resourceType: 'seats',
      userIdColumn: 'user_id',
      from: 'd',
    });
    await client.query(
      `WITH d AS (
         DELETE FROM seats WHERE user_id = $1 AND id = ANY($2::bigint[]) AND holder_id = $3 RETURNING id, user_id
       ), a AS (${record})
       SELECT count(*) FROM d`,
      params,
    );
  }
  const given = await client.query<{ holder_id: string }>('SELECT DISTINCT holder_id FROM seats WHERE user_id = $1', [
    userId,
  ]);
  if (given.rows.length > 0) {
    await client.query('DELETE FROM seat_holders WHERE user_id = ANY($1::bigint[]) AND owner_id = $2', [
      given.rows.map((r) => r.holder_id),
      userId,
    ]);
  }
}
