/**
 * The store port: everything the service asks of a database, in the domain's terms. The
 * SQLite and PostgreSQL adapters implement it, and one contract suite tests both.
 *
 * A method answers `undefined` (or `false`) when the user or subscription it names does not
 * exist; a duplicate email is the `emailTaken` ApiError. Every write records who made it in the
 * audit trail, in the same transaction as the change itself. Every subscription call names its user,
 * so a subscription is reachable only under its own user, and in a sharded PostgreSQL every such
 * query routes to the one shard that holds the user.
 */
import type { ApiKey, Scope, StoredApiKey } from '../domain/api-key.js';
import type { AuditContext, AuditEvent } from '../domain/audit.js';
import type { StoredSubscription, SubscriptionValues } from '../domain/subscription.js';
import type { UserFields } from '../domain/user.js';
import type { DeliveryState, Webhook, WebhookDelivery } from '../domain/webhooks.js';
import type { EventType } from '../domain/events.js';

export interface StoredUser {
  id: string;
  email: string;
  fields: UserFields;
  newsletters: string[];
  /** Goes up by one with every change: the resource's ETag. */
  version: number;
}

/**
 * A write's precondition (If-Match): the versions it may change. Undefined: any. A write whose
 * resource exists at another version throws the 412 `preconditionFailed` ApiError and changes nothing.
 */
export type IfVersion = readonly number[] | undefined;

export interface NewUser {
  email: string;
  passwordHash: string | null;
  fields: UserFields;
  newsletters: readonly string[];
}

export interface UserChanges {
  email?: string;
  passwordHash?: string | null;
  fields: UserFields;
  addNewsletters: readonly string[];
  removeNewsletters: readonly string[];
}

export type EmailFilter = { address: string } | { domain: string };

export interface UserListQuery {
  email?: EmailFilter;
  circulationNumber?: string;
  /** Only users with a greater id: an index seek, however deep the page. */
  afterId?: string;
  /** Users to skip first: a scan as long as the offset. */
  offset: number;
  limit: number;
  /** Newest first (and `afterId` then means a smaller id). */
  descending?: boolean;
}

export interface NewApiKey {
  name: string;
  scopes: readonly Scope[];
  rateLimit: number | null;
  secretHash: Buffer;
}

export interface AuditQuery {
  /** Only entries after this one, in id order. */
  afterId?: string;
  limit: number;
  actor?: string;
  resourceType?: string;
  resourceId?: string;
  userId?: string;
  /** Only entries of these (resource type, action) pairs. */
  kinds?: readonly { resourceType: string; action: string }[];
}

export interface ImportedUser {
  user: NewUser;
  subscriptions: readonly SubscriptionValues[];
}

export interface NewWebhook {
  url: string;
  events: readonly EventType[];
  secretSalt: string;
}

export interface WebhookChanges {
  url?: string;
  events?: readonly EventType[];
}

export interface DeliveryQuery {
  /** Only deliveries after this one, in id order. */
  afterId?: string;
  limit: number;
  state?: DeliveryState;
}

/** A delivery handed to one dispatcher, with what it needs to send it. */
export interface ClaimedDelivery {
  delivery: WebhookDelivery;
  url: string;
  secretSalt: string;
  event: AuditEvent;
}

/** How an attempt ended: delivered, failed for good, or pending again from `nextAttemptAt`. */
export interface DeliveryOutcome {
  state: DeliveryState;
  /** Epoch milliseconds, as every instant of a delivery. */
  at: number;
  nextAttemptAt: number | null;
  status: number | null;
  error: string | null;
}

/** A response kept for an idempotency key, to answer its retries with. */
export interface KeptResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Where a request with an idempotency key stands. */
export type IdempotencyState =
  { state: 'new' } | { state: 'replay'; response: KeptResponse } | { state: 'in-progress' } | { state: 'mismatch' };

export interface Store {
  createUser(user: NewUser, audit: AuditContext): Promise<StoredUser>;
  /**
   * Inserts many users with their subscriptions in one transaction (all or none), for bulk
   * loads; answers the new ids in order. Records the audit trail when `audit` is given.
   */
  importUsers(batch: readonly ImportedUser[], audit: AuditContext | null): Promise<string[]>;
  getUser(id: string): Promise<StoredUser | undefined>;
  /** The ids of the users with these emails (matched without regard to case), by lower-cased email. */
  userIdsByEmail(emails: readonly string[]): Promise<Map<string, string>>;
  listUsers(query: UserListQuery): Promise<StoredUser[]>;
  updateUser(id: string, changes: UserChanges, audit: AuditContext, ifVersion?: IfVersion): Promise<boolean>;
  /** Erases the user with their subscriptions and newsletter links. */
  deleteUser(id: string, audit: AuditContext, ifVersion?: IfVersion): Promise<boolean>;

  createSubscription(
    userId: string,
    values: SubscriptionValues,
    audit: AuditContext,
  ): Promise<StoredSubscription | undefined>;
  /** All of a user's subscriptions by id, or undefined when there is no such user. */
  listSubscriptions(userId: string): Promise<StoredSubscription[] | undefined>;
  getSubscription(userId: string, id: string): Promise<StoredSubscription | undefined>;
  /** The subscriptions of several users at once (for `include`), by id. */
  listSubscriptionsOfUsers(userIds: readonly string[]): Promise<StoredSubscription[]>;
  /**
   * Applies `change` to the current values atomically: no other write to the subscription
   * comes between the read and the write. `change` may throw an ApiError to refuse.
   */
  updateSubscription(
    userId: string,
    id: string,
    change: (current: SubscriptionValues) => SubscriptionValues,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<StoredSubscription | undefined>;
  /** Marks it expired with `dateEnded` = `now`; a subscription already expired is left as it is. */
  expireSubscription(
    userId: string,
    id: string,
    now: number,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<StoredSubscription | undefined>;
  deleteSubscription(userId: string, id: string, audit: AuditContext, ifVersion?: IfVersion): Promise<boolean>;
  /**
   * Marks expired up to `limit` subscriptions whose dateEnded has passed by `now` (keeping that
   * dateEnded), each once, with an `expire` audit entry; answers how many. Safe to run from
   * several processes at once.
   */
  lapseSubscriptions(now: number, audit: AuditContext, limit: number): Promise<number>;

  createApiKey(key: NewApiKey, audit: AuditContext): Promise<ApiKey>;
  /** Creates the key only when there is no credential at all, atomically across processes. */
  createFirstApiKey(key: NewApiKey): Promise<ApiKey | undefined>;
  /** The credential with its secret hash, revoked or not: what authentication reads. */
  getApiKey(id: string): Promise<StoredApiKey | undefined>;
  listApiKeys(): Promise<ApiKey[]>;
  /** Revokes it from `now` on; a key already revoked keeps its first revocation time. */
  revokeApiKey(id: string, now: number, audit: AuditContext, ifVersion?: IfVersion): Promise<ApiKey | undefined>;

  listAuditEvents(query: AuditQuery): Promise<AuditEvent[]>;

  /**
   * Claims an idempotency key (per scope, e.g. a credential) for a request with this fingerprint,
   * atomically across processes. A claim left unfinished for `staleAfter` seconds (its process
   * died) may be taken over; keys older than `keepFor` seconds are forgotten.
   */
  claimIdempotencyKey(
    scope: string,
    key: string,
    fingerprint: string,
    now: number,
    limits: { staleAfter: number; keepFor: number },
  ): Promise<IdempotencyState>;
  /** Keeps the response of a claimed key, or (null) releases the claim so a retry runs anew. */
  finishIdempotencyKey(scope: string, key: string, response: KeptResponse | null): Promise<void>;

  createWebhook(webhook: NewWebhook, audit: AuditContext): Promise<Webhook>;
  getWebhook(id: string): Promise<Webhook | undefined>;
  listWebhooks(): Promise<Webhook[]>;
  updateWebhook(
    id: string,
    changes: WebhookChanges,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<Webhook | undefined>;
  /** Removes it with its deliveries, pending ones included. */
  deleteWebhook(id: string, audit: AuditContext, ifVersion?: IfVersion): Promise<boolean>;
  /** A webhook's deliveries by id, or undefined when there is no such webhook. */
  listWebhookDeliveries(webhookId: string, query: DeliveryQuery): Promise<WebhookDelivery[] | undefined>;
  /**
   * Hands up to `limit` due deliveries to the caller for `leaseMs`, counting an attempt for each;
   * safe to call from several processes at once: no delivery is handed to two callers while its
   * lease runs. Only the oldest pending delivery of each (webhook, user) is due, so each endpoint
   * gets the events of a user in order. A lease that runs out (its process died) makes the
   * delivery due again.
   */
  claimWebhookDeliveries(now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]>;
  /**
   * Records how a claimed delivery's attempt ended, if the delivery is still at the version its
   * claim gave it (else another dispatcher or a redelivery has it now: answers false, records
   * nothing). A retry's wait holds back the later deliveries of the same user too.
   */
  finishWebhookDelivery(id: string, claimedVersion: number, outcome: DeliveryOutcome): Promise<boolean>;
  getWebhookDelivery(webhookId: string, id: string): Promise<WebhookDelivery | undefined>;
  /** Makes a delivered or failed delivery pending again, due at `now`; undefined when there is none such. */
  redeliverWebhookDelivery(webhookId: string, id: string, now: number): Promise<WebhookDelivery | undefined>;

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
