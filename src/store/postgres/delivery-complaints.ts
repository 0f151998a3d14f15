/**
 * Delivery complaints on PostgreSQL. A complaint is made in one transaction that first locks the
 * subscription's row, so two complaints for one date queue and the second sees the first. Every
 * statement names the user, so on Citus the transaction stays on the user's shard.
 */
import type { DeliveryComplaintStore } from '../port.js';
import { COMPLAINT_COLUMNS, complaintQuery, complaintsQuery, toStoredComplaint } from '../sql/delivery-complaints.js';
import { holdsQuery, toStoredHold } from '../sql/holds.js';
import { printTermsQuery } from '../sql/print.js';
import type { Row } from '../sql/rows.js';
import { auditInsert, rowsOn, type PostgresDatabase } from './database.js';
import { postgresPrintTerms } from './holds.js';

export function postgresDeliveryComplaints(database: PostgresDatabase): DeliveryComplaintStore {
  const { moveTerm, lockedTerms } = postgresPrintTerms();

  return {
    async create(userId, subscriptionId, plan, audit) {
      return database.transaction(async (client) => {
        const terms = await lockedTerms(client, userId, subscriptionId);
        if (!terms) return undefined;
        const holds = (await rowsOn(client, holdsQuery(userId, subscriptionId, { withdrawn: false }))).map(
          toStoredHold,
        );
        const others = (await rowsOn(client, complaintsQuery(userId, subscriptionId))).map(toStoredComplaint);
        const { values, dateEnded } = plan({ terms, holds, others });
        const params: unknown[] = [
          userId,
          subscriptionId,
          values.deliveryDate,
          values.reason,
          values.remedy,
          values.repeat,
          values.redeliveryDate,
        ];
        const record = auditInsert(params, audit, {
          action: 'create',
          resourceType: 'delivery-complaints',
          userIdColumn: 'user_id',
          from: 'c',
        });
        const { rows } = await client.query(
          `WITH c AS (
             INSERT INTO delivery_complaints (user_id, subscription_id, delivery_date, reason, remedy, is_repeat,
               redelivery_date)
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COMPLAINT_COLUMNS}
           ), a AS (${record})
           SELECT * FROM c`,
          params,
        );
        await moveTerm(client, userId, terms, dateEnded, audit);
        return toStoredComplaint(rows[0] as Row);
      });
    },

    async list(userId, subscriptionId, query) {
      const [terms] = await database.rows(printTermsQuery(userId, subscriptionId));
      if (!terms) return undefined;
      return (await database.rows(complaintsQuery(userId, subscriptionId, query))).map(toStoredComplaint);
    },

    async get(userId, subscriptionId, id) {
      const [row] = await database.rows(complaintQuery(userId, subscriptionId, id));
      return row && toStoredComplaint(row);
    },
  };
}
