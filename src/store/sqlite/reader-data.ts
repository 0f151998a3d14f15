/**
 * A reader's data export's reads across their records (ports/reader-data.ts) on SQLite: a
 * page of deliveries reads its entries and their deliveries in one read transaction.
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
import type { SqliteDatabase } from './database.js';

export function sqliteReaderData(database: SqliteDatabase): ReaderDataStore {
  return {
    async listHolds(userId, query) {
      return database.all(holdsOfReaderQuery(userId, query)).map(toStoredHold);
    },

    async listDeliveryComplaints(userId, query) {
      return database.all(complaintsOfReaderQuery(userId, query)).map(toStoredComplaint);
    },

    async listWebhookDeliveries(userId, query) {
      return database.db.transaction(() => {
        const entries = database.all(entriesOfReaderQuery(userId, query));
        const first = entries[0];
        const last = entries.at(-1);
        if (!first || !last) return { deliveries: [], readTo: undefined };
        const rows = database.all(deliveriesOfEntriesQuery(userId, String(first.id), String(last.id)));
        return { deliveries: rows.map(toWebhookDelivery), readTo: String(last.id) };
      })();
    },
  };
}
