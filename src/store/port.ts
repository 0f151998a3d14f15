/**
 * The store port: everything the service asks of a database, in the domain's terms, one port
 * per kind of record (in ports/), composed into the `Store` that callers use. The SQLite and
 * PostgreSQL adapters implement every port, one file per kind, and one contract suite tests both.
 *
 * A method answers `undefined` (or `false`) when the record it names does not exist; it throws a
 * domain failure (EMAIL_TAKEN, PRECONDITION_FAILED) when a rule refuses the write, and
 * `StoreUnavailable` when the database does not answer. Every write records who made it in the
 * audit trail, in the same transaction as the change itself.
 */
import type { AuditStore } from './ports/audit.js';
import type { CredentialStore } from './ports/credentials.js';
import type { IdempotencyStore } from './ports/idempotency.js';
import type { RetentionStore } from './ports/retention.js';
import type { SubscriptionStore } from './ports/subscriptions.js';
import type { UserStore } from './ports/users.js';
import type { WebhookStore } from './ports/webhooks.js';

export type * from './ports/audit.js';
export type * from './ports/credentials.js';
export type * from './ports/idempotency.js';
export type * from './ports/retention.js';
export type * from './ports/subscriptions.js';
export type * from './ports/users.js';
export type * from './ports/versions.js';
export type * from './ports/webhooks.js';

/** The database itself: whether it answers, how its pool is used, and closing it. */
export interface DatabaseLifecycle {
  /** Resolves when the database answers; rejects when it does not. */
  ping(): Promise<void>;
  /** Connection pool use, where the adapter has a pool. */
  poolStats?(): PoolStats;
  close(): Promise<void>;
}

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

export type Store = UserStore &
  SubscriptionStore &
  CredentialStore &
  AuditStore &
  IdempotencyStore &
  WebhookStore &
  RetentionStore &
  DatabaseLifecycle;
