/**
 * Retention on PostgreSQL: each batch is one statement.
 */
import type { RetentionStore } from '../port.js';
import type { Sql } from '../sql/builder.js';
import { pruneAuditLog, pruneIdempotencyKeys, pruneWebhookDeliveries } from '../sql/retention.js';
import type { PostgresDatabase } from './database.js';

export function postgresRetention(database: PostgresDatabase): RetentionStore {
  const run = async (query: Sql): Promise<number> => {
    const { text, values } = query.render('postgres');
    return (await database.pool.query(text, values)).rowCount ?? 0;
  };
  return {
    async pruneIdempotencyKeys(before, limit) {
      return run(pruneIdempotencyKeys(before, limit));
    },
    async pruneWebhookDeliveries(before, limit) {
      return run(pruneWebhookDeliveries(before, limit));
    },
    async pruneAuditLog(before, limit) {
      return run(pruneAuditLog(new Date(before * 1000), limit));
    },
  };
}
