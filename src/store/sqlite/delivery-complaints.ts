/**
 * Delivery complaints on SQLite. A complaint is made in one immediate transaction: no other
 * process writes between the read of the subscription, its holds and complaints and the write.
 */
import type { DeliveryComplaintStore } from '../port.js';
import { complaintQuery, complaintsQuery, toStoredComplaint } from '../sql/delivery-complaints.js';
import { holdsQuery, toStoredHold } from '../sql/holds.js';
import type { SqliteDatabase } from './database.js';
import { sqlitePrintTerms } from './holds.js';

export function sqliteDeliveryComplaints(database: SqliteDatabase): DeliveryComplaintStore {
  const { db } = database;
  const { moveTerm, termsOf } = sqlitePrintTerms(database);
  const insert = db.prepare(`
    INSERT INTO delivery_complaints (user_id, subscription_id, delivery_date, reason, remedy, is_repeat, redelivery_date)
    VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`);

  const one = (userId: string, subscriptionId: string, id: string) => {
    const [row] = database.all(complaintQuery(userId, subscriptionId, id));
    return row && toStoredComplaint(row);
  };

  return {
    async create(userId, subscriptionId, plan, audit) {
      return db
        .transaction(() => {
          const terms = termsOf(userId, subscriptionId);
          if (!terms) return undefined;
          const holds = database.all(holdsQuery(userId, subscriptionId, { withdrawn: false })).map(toStoredHold);
          const others = database.all(complaintsQuery(userId, subscriptionId)).map(toStoredComplaint);
          const { values, dateEnded } = plan({ terms, holds, others });
          const { id } = insert.get(
            userId,
            subscriptionId,
            values.deliveryDate,
            values.reason,
            values.remedy,
            values.repeat ? 1 : 0,
            values.redeliveryDate,
          ) as { id: number };
          database.record(audit, {
            action: 'create',
            resourceType: 'delivery-complaints',
            resourceId: String(id),
            userId,
          });
          moveTerm(userId, terms, dateEnded, audit);
          return one(userId, subscriptionId, String(id));
        })
        .immediate();
    },

    async list(userId, subscriptionId, query) {
      return db.transaction(() => {
        if (!termsOf(userId, subscriptionId)) return undefined;
        return database.all(complaintsQuery(userId, subscriptionId, query)).map(toStoredComplaint);
      })();
    },

    async get(userId, subscriptionId, id) {
      return one(userId, subscriptionId, id);
    },
  };
}
