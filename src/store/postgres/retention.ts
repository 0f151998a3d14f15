/**
 * Retention on PostgreSQL: each batch is one statement.
 */
import type { RetentionStore } from '../port.js';
import { pruneAuditLog, pruneIdempotencyKeys, pruneWebhookDeliveries } from '../sql/retention.js';
import type { PostgresDatabase } from './database.js';

export function postgresRetention(database: PostgresDatabase): RetentionStore {
  return {
    async pruneIdempotencyKeys(before, limit) {
      return database.changes(pruneIdempotencyKeys(before, limit));
    },
    async pruneWebhookDeliveries(before, limit) {
      return database.changes(pruneWebhookDeliveries(before, limit));
    },
    async pruneAuditLog(before, limit) {
      return database.changes(pruneAuditLog(new Date(before * 1000), limit));
    },
  };
}
