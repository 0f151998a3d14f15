/**
 * The port for retention: removing what has outlived its use, a small batch at a time, so that no
 * call holds a lock for long. Each call answers how many rows it removed; the retention job calls
 * again until one removes nothing. Safe to run from several processes at once.
 */
export interface RetentionStore {
  /** Removes up to `limit` idempotency keys claimed before `before` (epoch seconds). */
  pruneIdempotencyKeys(before: number, limit: number): Promise<number>;
  /**
   * Removes delivered and failed deliveries made before `before` (epoch milliseconds), among the
   * `limit` oldest deliveries: pending ones are never removed.
   */
  pruneWebhookDeliveries(before: number, limit: number): Promise<number>;
  /**
   * Removes audit entries (events among them) recorded before `before` (epoch seconds), among the
   * `limit` oldest, with their finished deliveries: an entry with a delivery still pending stays.
   */
  pruneAuditLog(before: number, limit: number): Promise<number>;
}
