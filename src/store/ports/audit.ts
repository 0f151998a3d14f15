/**
 * The port for the audit trail, which every other kind writes in the transaction of its change
 * (the trail is also the outbox of events and webhooks); here it is read.
 */
import type { AuditEvent } from '../../domain/audit.js';

export interface AuditQuery {
  /** Only entries after this one, in id order (before it, when descending). */
  afterId?: string;
  /** Newest first. */
  descending?: boolean;
  limit: number;
  actor?: string;
  resourceType?: string;
  resourceId?: string;
  userId?: string;
  /** Only entries that are events of these types. */
  eventTypes?: readonly string[];
}

export interface AuditStore {
  list(query: AuditQuery): Promise<AuditEvent[]>;
}
