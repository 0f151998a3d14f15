/**
 * The store port: everything the service asks of a database, in the domain's terms, one port
 * per kind of record (in ports/), composed into the `Store` that callers use: one member per
 * port, named after its file (`store.users.list(…)`, `store.subscriptions.expire(…)`), and the
 * database's own lifecycle (`ping`, `close`, …) at the top. The SQLite and PostgreSQL adapters
 * implement every port, one file per kind (a port may take two: the site licences' reader
 * sources), and one contract suite tests both.
 *
 * A method answers `undefined` (or `false`) when the record it names does not exist; it throws a
 * domain failure (EMAIL_TAKEN, PRECONDITION_FAILED, …) when a rule refuses the write, and
 * `StoreUnavailable` when the database does not answer. Every write records who made it in the
 * audit trail, in the same transaction as the change itself.
 *
 * A write that names products or newsletters (a subscription's product, a user's newsletters)
 * registers those it does not know in its own transaction (name = id), or, when the store is
 * opened with strict references, refuses them (UNKNOWN_REFERENCE); an inactive one is never newly
 * attached (INACTIVE_REFERENCE). The database's foreign keys hold either way.
 */
import type { AuditStore } from './ports/audit.js';
import type { ConsentStore } from './ports/consents.js';
import type { DeliveryStore } from './ports/deliveries.js';
import type { DeliveryComplaintStore } from './ports/delivery-complaints.js';
import type { HoldStore } from './ports/holds.js';
import type { LicenceUsageStore } from './ports/licence-usage.js';
import type { SeatStore } from './ports/seats.js';
import type { TemporaryAddressStore } from './ports/temporary-addresses.js';
import type { CredentialStore } from './ports/credentials.js';
import type { IdempotencyStore } from './ports/idempotency.js';
import type { PasswordResetStore } from './ports/password-resets.js';
import type { PrivacyRequestStore } from './ports/privacy-requests.js';
import type { ReaderDataStore } from './ports/reader-data.js';
import type { SignInStore } from './ports/sign-ins.js';
import type { SiteLicenceStore } from './ports/site-licences.js';
import type { StaffStore } from './ports/staff.js';
import type { NewsletterStore } from './ports/newsletters.js';
import type { ProductStore } from './ports/products.js';
import type { ReportStore } from './ports/reports.js';
import type { RetentionStore } from './ports/retention.js';
import type { SubscriptionStore } from './ports/subscriptions.js';
import type { UserStore } from './ports/users.js';
import type { WebhookStore } from './ports/webhooks.js';

export type * from './ports/audit.js';
export type * from './ports/catalogue.js';
export type * from './ports/consents.js';
export type * from './ports/credentials.js';
export type * from './ports/deliveries.js';
export type * from './ports/delivery-complaints.js';
export type * from './ports/holds.js';
export type * from './ports/idempotency.js';
export type * from './ports/licence-usage.js';
export type * from './ports/password-resets.js';
export type * from './ports/privacy-requests.js';
export type * from './ports/reader-data.js';
export type * from './ports/sign-ins.js';
export type * from './ports/site-licences.js';
export type * from './ports/staff.js';
export type * from './ports/newsletters.js';
export type * from './ports/products.js';
export type * from './ports/reports.js';
export type * from './ports/retention.js';
export type * from './ports/seats.js';
export type * from './ports/subscriptions.js';
export type * from './ports/temporary-addresses.js';
export type * from './ports/users.js';
export type * from './ports/versions.js';
export type * from './ports/webhooks.js';

/** The database itself: whether it answers, how its pool is used, and closing it. */
export interface DatabaseLifecycle {
  /** Resolves when the database answers; rejects when it does not. */
  ping(): Promise<void>;
  /** Connection pool use, where the adapter has a pool. */
  poolStats?(): PoolStats;
  /**
   * Where the database is a file this process has open (SQLite): copies it online into the file
   * at `path` (made beforehand, empty), over the connection the store uses, so that its own
   * writes between two steps go into the copy rather than start it again.
   */
  copyInto?(path: string, options?: CopyOptions): Promise<void>;
  close(): Promise<void>;
}

/** How an online copy proceeds. */
export interface CopyOptions {
  /** Pages copied in one go, between which other work runs; all of them when unset. */
  pagesPerStep?: number;
  /** Ends the copy at the next step, rejecting with the signal's reason. */
  signal?: AbortSignal;
}

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

/** The ports, each under the name of its file in camelCase, and the database's lifecycle. */
export interface Store extends DatabaseLifecycle {
  readonly users: UserStore;
  readonly subscriptions: SubscriptionStore;
  readonly siteLicences: SiteLicenceStore;
  readonly seats: SeatStore;
  readonly licenceUsage: LicenceUsageStore;
  readonly holds: HoldStore;
  readonly temporaryAddresses: TemporaryAddressStore;
  readonly deliveryComplaints: DeliveryComplaintStore;
  readonly consents: ConsentStore;
  readonly deliveries: DeliveryStore;
  readonly credentials: CredentialStore;
  readonly audit: AuditStore;
  readonly idempotency: IdempotencyStore;
  readonly webhooks: WebhookStore;
  readonly signIns: SignInStore;
  readonly passwordResets: PasswordResetStore;
  readonly privacyRequests: PrivacyRequestStore;
  readonly readerData: ReaderDataStore;
  readonly staff: StaffStore;
  readonly products: ProductStore;
  readonly newsletters: NewsletterStore;
  readonly retention: RetentionStore;
  readonly reports: ReportStore;
}

/** How a store treats references to products and newsletters it does not know, and how far a page reads. */
export interface StoreOptions {
  /** Refuse them (UNKNOWN_REFERENCE), rather than register them on first use. */
  strictReferences?: boolean;
  /**
   * The most index entries a page of users read from one filter's index and checked against the
   * others reads before it stops short (`UserPage.readTo`); 10,000 by default.
   */
  pageReadLimit?: number;
  /**
   * Whether opening may lay out a new database where there is none (true unless told): false
   * throws `NoDatabase` instead, and makes no file.
   */
  create?: boolean;
}
