/**
 * Seats on SQLite. A seat is given in one immediate transaction: no other process writes between
 * the count of the seats given and the new one, so of many asking for the last seat one gets it.
 * The seat's holder key (seat_holders) is written with it; the foreign keys take both away with
 * the licence, its owner or its holder.
 */
import { requireSeat, type StoredSeat } from '../../domain/seat.js';
import type { SeatStore } from '../port.js';
import { seatContextQuery, seatQuery, seatsHeldQuery, seatsQuery, toHeldSeat, toStoredSeat } from '../sql/seats.js';
import type { SqliteDatabase } from './database.js';
import { sqliteSeatHolders } from './licensed-domains.js';

export function sqliteSeats(database: SqliteDatabase): SeatStore {
  const { db } = database;
  const holders = sqliteSeatHolders(database);
  const userExists = db.prepare('SELECT 1 FROM users WHERE id = ?').pluck();
  const insert = db.prepare('INSERT INTO seats (user_id, subscription_id, holder_id) VALUES (?, ?, ?) RETURNING id');
  const insertKey = db.prepare(
    'INSERT INTO seat_holders (user_id, owner_id, subscription_id, seat_id) VALUES (?, ?, ?, ?)',
  );
  const remove = db.prepare('DELETE FROM seats WHERE user_id = ? AND subscription_id = ? AND id = ?');
  const licenceExists = db.prepare('SELECT 1 FROM subscriptions WHERE user_id = ? AND id = ?').pluck();

  const one = (userId: string, subscriptionId: string, id: string): StoredSeat | undefined => {
    const [row] = database.all(seatQuery(userId, subscriptionId, id));
    return row && toStoredSeat(row);
  };

  return {
    async create(userId, subscriptionId, holderId, audit) {
      return db
        .transaction(() => {
          const [licence] = database.all(seatContextQuery(userId, subscriptionId, holderId));
          if (!licence) return undefined;
          requireSeat(
            {
              licence: { id: subscriptionId, license: licence.license as never, seats: licence.seats as number | null },
              given: Number(licence.given),
              holderExists: userExists.get(holderId) !== undefined,
              holderSeated: Number(licence.seated) > 0,
            },
            holderId,
          );
          const { id } = insert.get(userId, subscriptionId, holderId) as { id: number };
          insertKey.run(holderId, userId, subscriptionId, id);
          database.record(audit, { action: 'create', resourceType: 'seats', resourceId: String(id), userId });
          // Within the transaction, which nothing else on this connection can read between.
          holders.added();
          return one(userId, subscriptionId, String(id));
        })
        .immediate();
    },

    async list(userId, subscriptionId, query) {
      return db.transaction(() => {
        if (licenceExists.get(userId, subscriptionId) === undefined) return undefined;
        return database.all(seatsQuery(userId, subscriptionId, query)).map(toStoredSeat);
      })();
    },

    async get(userId, subscriptionId, id) {
      return one(userId, subscriptionId, id);
    },

    async delete(userId, subscriptionId, id, audit) {
      return db
        .transaction(() => {
          // The holder's key goes with the seat (seat_holders' foreign key).
          if (remove.run(userId, subscriptionId, id).changes === 0) return false;
          database.record(audit, { action: 'delete', resourceType: 'seats', resourceId: id, userId });
          return true;
        })
        .immediate();
    },

    async listHeld(holderId, query) {
      return database.all(seatsHeldQuery(holderId, query)).map(toHeldSeat);
    },
  };
}
