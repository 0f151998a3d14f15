/**
 * Retention: what has outlived its use goes, a small batch at a time with a pause for requests
 * in between, so that no batch holds a lock for long. Run by `circulation prune`, or every
 * RETENTION_INTERVAL_SECONDS by a serving process (any number of processes may do so at once).
 */
import type { Store } from '../store/port.js';
import { inBatches } from './batches.js';

const HOUR_MS = 3600 * 1000;
const DAY_MS = 24 * HOUR_MS;

export interface RetentionSettings {
  /** How long an idempotency key (and the response it keeps) lives. */
  idempotencyHours: number;
  /** How long a delivered or failed webhook delivery is kept; 0 for ever. */
  deliveryDays: number;
  /** How long an audit entry (an event among them) is kept; 0 for ever. */
  auditDays: number;
}

export interface Pruned {
  idempotencyKeys: number;
  deliveries: number;
  auditEntries: number;
}

/** Removes everything past its retention at `now` (epoch milliseconds); answers how much. */
export async function pruneExpired(store: Store, settings: RetentionSettings, now = Date.now()): Promise<Pruned> {
  const seconds = (ms: number) => Math.floor(ms / 1000);
  return {
    idempotencyKeys: await inBatches((limit) =>
      store.retention.pruneIdempotencyKeys(seconds(now - settings.idempotencyHours * HOUR_MS), limit),
    ),
    deliveries:
      settings.deliveryDays === 0
        ? 0
        : await inBatches((limit) =>
            store.retention.pruneWebhookDeliveries(now - settings.deliveryDays * DAY_MS, limit),
          ),
    auditEntries:
      settings.auditDays === 0
        ? 0
        : await inBatches((limit) => store.retention.pruneAuditLog(seconds(now - settings.auditDays * DAY_MS), limit)),
  };
}
