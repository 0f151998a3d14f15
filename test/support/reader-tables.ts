/**
 * Every table that names a reader (a `user_id` column, or an email), with how erasing the reader
 * reaches it: the erasure tests of every store (test/store/erasure.test.ts, and on Citus
 * test/store/citus-erasure.test.ts) read this one list.
 */
import type { StoreKind } from './stores.js';

/**
 * How an erasure reaches a table: it is the reader's row, a foreign key cascades, the erasure
 * deletes the rows of the reader's email or those that name their id (where no foreign key can
 * reach: a reference table on Citus cannot refer to a sharded one), or it is kept (and why).
 */
export type Reach = 'the reader' | 'cascade' | 'by email' | 'by user id' | `kept: ${string}`;

export const READER_TABLES: Record<string, Reach> = {
  users: 'the reader',
  user_newsletters: 'cascade',
  newsletter_consents: 'cascade',
  newsletter_consent_changes: 'cascade',
  subscriptions: 'cascade',
  holds: 'cascade',
  temporary_addresses: 'cascade',
  delivery_complaints: 'cascade',
  // The print runs of the next dates kept (migration 40): a reader's deliveries, with their address.
  kept_deliveries: 'cascade',
  // The keys of a reader's site licences (migration 31): reference tables on Citus.
  site_ranges: 'by user id',
  site_domains: 'by user id',
  // A seat (migration 33) cascades with its licence's owner (user_id); its holder's key
  // (seat_holders.user_id) with its holder, and the erasure of either deletes the other's row.
  seats: 'cascade',
  seat_holders: 'cascade',
  // A licence's usage by month (migration 34), its owner's.
  licence_usage: 'cascade',
  idempotency_keys: 'cascade',
  password_reset_tokens: 'cascade',
  // Attempts are counted by email, whether or not a reader has it; the erasure forgets the reader's.
  sign_in_attempts: 'by email',
  // PostgreSQL only: the lookup that keeps emails unique across Citus shards.
  user_emails: 'by email',
  // The publisher's record of a reader's privacy request outlives them: the erasure clears its user_id and notes.
  privacy_requests: 'by user id',
  audit_log: `kept: ids and the names of attributes, never a value (of a consent change, its states and source:
    words of domain/consent.ts); the trail of who changed what, and the user.deleted event that tells other
    systems to erase the reader too (pruned after AUDIT_RETENTION_DAYS)`,
  staff: "kept: the publisher's staff, not readers; an email here is a staff member's own",
  webhook_deliveries: 'kept: ids only, the deliveries of the events above (pruned after DELIVERY_RETENTION_DAYS)',
};

/** Tables SQLite has no need of. */
const POSTGRES_ONLY = new Set(['user_emails']);
/** Tables a Citus cluster has and leaves empty: it keeps no print run. */
const EMPTY_ON_CITUS = new Set(['kept_deliveries']);

/** Whether a store of `kind` keeps readers' data in `table`. */
export function holdsReaders(kind: StoreKind, table: string): boolean {
  if (kind === 'SQLite') return !POSTGRES_ONLY.has(table);
  return kind === 'PostgreSQL' || !EMPTY_ON_CITUS.has(table);
}

/** The column and value that name the reader in a table the erasure reaches. */
export function readerKey(table: string, reach: Reach, userId: string, email: string): [string, string] {
  if (reach === 'by email') return ['email_lower', email.toLowerCase()];
  return [table === 'users' ? 'id' : 'user_id', userId];
}
