/**
 * Retention as every adapter runs it: each statement removes rows from a window of the oldest
 * `limit` rows of its table (by primary key, in the order they were written), so it reads at
 * most `limit` rows however large the table, and holds its locks that briefly.
 */
import { sql, type Sql } from './builder.js';

export function pruneIdempotencyKeys(before: number, limit: number): Sql {
  return sql`DELETE FROM idempotency_keys WHERE (scope, key) IN (
    SELECT scope, key FROM idempotency_keys WHERE created_at < ${before} ORDER BY created_at LIMIT ${limit})`;
}

export function pruneWebhookDeliveries(before: number, limit: number): Sql {
  return sql`DELETE FROM webhook_deliveries WHERE id IN (
    SELECT id FROM (SELECT id, state, created_at FROM webhook_deliveries ORDER BY id LIMIT ${limit}) oldest
    WHERE state <> 'pending' AND created_at < ${before})`;
}

/** `before` as the dialect keeps audit instants: epoch seconds (SQLite), or a timestamp (PostgreSQL). */
export function pruneAuditLog(before: number | Date, limit: number): Sql {
  return sql`DELETE FROM audit_log WHERE id IN (
    SELECT id FROM (SELECT id, occurred_at FROM audit_log ORDER BY id LIMIT ${limit}) oldest
    WHERE occurred_at < ${before} AND NOT EXISTS (
      SELECT 1 FROM webhook_deliveries d WHERE d.event_id = oldest.id AND d.state = 'pending'))`;
}
