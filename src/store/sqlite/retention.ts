/**
 * Retention on SQLite: each batch is a transaction of its own, a few milliseconds long.
 */
import type { RetentionStore } from '../port.js';
import type { Sql } from '../sql/builder.js';
import { pruneAuditLog, pruneIdempotencyKeys, pruneWebhookDeliveries } from '../sql/retention.js';
import type { SqliteDatabase } from './database.js';

export function sqliteRetention(database: SqliteDatabase): RetentionStore {
  const run = (query: Sql): number => {
    const { statement, values } = database.statement(query);
    return statement.run(...values).changes;
  };
  return {
    async pruneIdempotencyKeys(before, limit) {
      return run(pruneIdempotencyKeys(before, limit));
    },
    async pruneWebhookDeliveries(before, limit) {
      return run(pruneWebhookDeliveries(before, limit));
    },
    async pruneAuditLog(before, limit) {
      return run(pruneAuditLog(before, limit));
    },
  };
}
