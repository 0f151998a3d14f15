/**
 * The store port: everything the service asks of a database, in the domain's terms. The
 * SQLite and PostgreSQL adapters implement it, and one contract suite tests both.
 *
 * A method answers `undefined` (or `false`) when the user or subscription it names does not
 * exist; a duplicate email is the `emailTaken` ApiError. Every subscription call names its user,
 * so a subscription is reachable only under its own user, and in a sharded PostgreSQL every such
 * query routes to the one shard that holds the user.
 */
import type { StoredSubscription, SubscriptionValues } from '../domain/subscription.js';
import type { UserFields } from '../domain/user.js';

export interface StoredUser {
  id: string;
  email: string;
  fields: UserFields;
  newsletters: string[];
}

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
  offset: number;
  limit: number;
}

export interface Store {
  createUser(user: NewUser): Promise<StoredUser>;
  getUser(id: string): Promise<StoredUser | undefined>;
  listUsers(query: UserListQuery): Promise<StoredUser[]>;
  updateUser(id: string, changes: UserChanges): Promise<boolean>;
  /** Erases the user with their subscriptions and newsletter links. */
  deleteUser(id: string): Promise<boolean>;

  createSubscription(userId: string, values: SubscriptionValues): Promise<StoredSubscription | undefined>;
  /** All of a user's subscriptions by id, or undefined when there is no such user. */
  listSubscriptions(userId: string): Promise<StoredSubscription[] | undefined>;
  getSubscription(userId: string, id: string): Promise<StoredSubscription | undefined>;
  /**
   * Applies `change` to the current values atomically: no other write to the subscription
   * comes between the read and the write. `change` may throw an ApiError to refuse.
   */
  updateSubscription(
    userId: string,
    id: string,
    change: (current: SubscriptionValues) => SubscriptionValues,
  ): Promise<StoredSubscription | undefined>;
  /** Marks it expired with `dateEnded` = `now`; a subscription already expired is left as it is. */
  expireSubscription(userId: string, id: string, now: number): Promise<StoredSubscription | undefined>;
  deleteSubscription(userId: string, id: string): Promise<boolean>;

  close(): Promise<void>;
}
