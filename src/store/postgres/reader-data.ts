/**
 * A reader's data export's reads across their records (ports/reader-data.ts) on PostgreSQL. A
 * page of deliveries is two reads, its entries' ids and then their deliveries: an entry's
 * deliveries made between the two are in the second, which is all the page promises.
 */
import type { ReaderDataStore } from '../port.js';
import { toStoredComplaint } from '../sql/delivery-complaints.js';
import { toStoredHold } from '../sql/holds.js';
import { toWebhookDelivery } from '../sql/webhooks.js';
import {
  complaintsOfReaderQuery,
  deliveriesOfEntriesQuery,
  entriesOfReaderQuery,
  holdsOfReaderQuery,
} from '../sql/reader-data.js';
import type { PostgresDatabase } from './database.js';

export function postgresReaderData(database: PostgresDatabase): ReaderDataStore {
  return {
    async listHolds(userId, query) {
      return (await database.rows(holdsOfReaderQuery(userId, query))).map(toStoredHold);
    },

    async listDeliveryComplaints(userId, query) {
      return (await database.rows(complaintsOfReaderQuery(userId, query))).map(toStoredComplaint);
    },

    async listWebhookDeliveries(userId, query) {
      const entries = await database.rows(entriesOfReaderQuery(userId, query));
      const first = entries[0];
      const last = entries.at(-1);
      if (!first || !last) return { deliveries: [], readTo: undefined };
      const rows = await database.rows(deliveriesOfEntriesQuery(userId, String(first.id), String(last.id)));
      return { deliveries: rows.map(toWebhookDelivery), readTo: String(last.id) };
    },
  };
}
