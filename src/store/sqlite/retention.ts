/**
 * Retention on SQLite: each batch is a transaction of its own, a few milliseconds long.
 */
import type { RetentionStore } from '../port.js';
import { pruneAuditLog, pruneIdempotencyKeys, pruneWebhookDeliveries } from '../sql/retention.js';
import type { SqliteDatabase } from './database.js';

export function sqliteRetention(database: SqliteDatabase): RetentionStore {
  return {
    async pruneIdempotencyKeys(before, limit) {
      return database.changes(pruneIdempotencyKeys(before, limit));
    },
    async pruneWebhookDeliveries(before, limit) {
      return database.changes(pruneWebhookDeliveries(before, limit));
    },
    async pruneAuditLog(before, limit) {
      return database.changes(pruneAuditLog(before, limit));
    },
  };
}
