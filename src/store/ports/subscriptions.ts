/**
 * The port for subscriptions. Every call names the user, so a subscription is reachable only
 * under its own user, and in a sharded PostgreSQL every such query routes to the user's shard.
 */
import type { AuditContext } from '../../domain/audit.js';
import type { ActiveSubscription, SubscriptionFilter } from '../../domain/entitlement.js';
import type { StoredSubscription, SubscriptionValues } from '../../domain/subscription.js';
import type { IfVersion } from './versions.js';

/** A page of a user's subscriptions, by id. */
export interface SubscriptionPageQuery {
  /** Only subscriptions after this one (before it, when descending). */
  afterId?: string;
  limit: number;
  /** Newest first. */
  descending?: boolean;
  /** Only the subscriptions in these statuses, giving this resource, of this product. */
  filter?: SubscriptionFilter;
}

/** How many subscriptions a user holds of a product (null: of none). */
export interface SubscriptionCount {
  userId: string;
  productId: string | null;
  count: number;
}

export interface SubscriptionStore {
  create(userId: string, values: SubscriptionValues, audit: AuditContext): Promise<StoredSubscription | undefined>;
  /** A page of a user's subscriptions by id (those the filter lets through), or undefined when there is no such user. */
  list(userId: string, query: SubscriptionPageQuery): Promise<StoredSubscription[] | undefined>;
  /**
   * What a user's subscriptions active at `now` give (a subscription without a resource gives its
   * product's), in one indexed read: the paywall's question. Undefined when there is no such user.
   */
  activeOf(userId: string, now: number): Promise<ActiveSubscription[] | undefined>;
  get(userId: string, id: string): Promise<StoredSubscription | undefined>;
  /**
   * The subscriptions of several users at once, by id: each user's first `perUser` when given
   * (reading no more than that of each, for `include`), all of them otherwise (for transfer).
   */
  listOfUsers(userIds: readonly string[], perUser?: number): Promise<StoredSubscription[]>;
  /**
   * Of these users, how many subscriptions each holds of each product that `filter` lets through
   * (what a print list counts as copies), by user id; a user with none has no entry.
   */
  countsOfUsers(userIds: readonly string[], filter: SubscriptionFilter): Promise<SubscriptionCount[]>;
  /** Of these users, those with a subscription active at `at` (epoch seconds): what a search marks active. */
  usersWithActive(userIds: readonly string[], at: number): Promise<Set<string>>;
  /**
   * Applies `change` to the current values atomically: no other write to the subscription
   * comes between the read and the write. `change` may throw a failure to refuse.
   */
  update(
    userId: string,
    id: string,
    change: (current: SubscriptionValues) => SubscriptionValues,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<StoredSubscription | undefined>;
  /** Marks it expired with `dateEnded` = `now`; a subscription already expired is left as it is. */
  expire(
    userId: string,
    id: string,
    now: number,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<StoredSubscription | undefined>;
  delete(userId: string, id: string, audit: AuditContext, ifVersion?: IfVersion): Promise<boolean>;
  /**
   * Marks expired up to `limit` subscriptions whose dateEnded has passed by `now` (keeping that
   * dateEnded), each once, with an `expire` audit entry; answers how many. Safe to run from
   * several processes at once.
   */
  lapse(now: number, audit: AuditContext, limit: number): Promise<number>;
  /**
   * Forgets the start still to come of up to `limit` subscriptions whose dateStarted has passed by
   * `now` (an index hint, not an attribute: no version, no event); answers how many. Usually a
   * few each time the job runs, but as many as a publisher booked to begin on one day. Safe to
   * run from several processes at once.
   */
  clearPendingStarts(now: number, limit: number): Promise<number>;
}
