/**
 * The port for user records: create one or many, read, list by filter and page, change, erase.
 * A duplicate email (compared without regard to case) is the `EMAIL_TAKEN` failure.
 */
import type { AuditContext } from '../../domain/audit.js';
import type { ConsentState, MembershipSource } from '../../domain/consent.js';
import type { ActiveSubscriptionFilter } from '../../domain/entitlement.js';
import type { SearchRange } from '../../domain/search.js';
import type { SubscriptionValues } from '../../domain/subscription.js';
import type { UserFields } from '../../domain/user.js';
import type { IfVersion } from './versions.js';

export interface StoredUser {
  id: string;
  email: string;
  fields: UserFields;
  newsletters: string[];
  /** When the user last signed in, in epoch seconds; null before the first time. */
  lastSignInAt: number | null;
  /** Goes up by one with every change (a sign-in too): the resource's ETag. */
  version: number;
}

/**
 * A user as the JSON text of its resource object, rendered by the database: `type`, `id` and
 * `attributes` (every one), without `links`, which depend on the request.
 */
export interface RenderedUser {
  id: string;
  json: string;
}

export interface NewUser {
  email: string;
  passwordHash: string | null;
  fields: UserFields;
  /** Newsletters added: each a consent (`subscribed`, or `pending` under double opt-in; domain/consent.ts). */
  newsletters: readonly string[];
  /** Where the newsletters added came from: `api` unless said (an import's are always `import`). */
  newsletterSource?: MembershipSource;
}

export interface UserChanges {
  email?: string;
  passwordHash?: string | null;
  fields: UserFields;
  addNewsletters: readonly string[];
  removeNewsletters: readonly string[];
  /** Where the newsletter changes came from: `api` unless said. */
  newsletterSource?: MembershipSource;
}

export type EmailFilter = { address: string } | { domain: string };

export interface UserListQuery {
  /** Only users whose email, family or given name starts with the text, or whose circulation number or id it is. */
  search?: SearchRange;
  email?: EmailFilter;
  circulationNumber?: string;
  /** Only the members of this newsletter. */
  newsletter?: string;
  /** Only the owners of a site licence naming one of these domains (`licenceSearchKeys`). */
  licenceDomains?: readonly string[];
  /** Only users with a subscription active at an instant (giving a resource, of a product). */
  activeSubscription?: ActiveSubscriptionFilter;
  /** Only users with a greater id: an index seek, however deep the page. */
  afterId?: string;
  /** Users to skip first: a scan as long as the offset. */
  offset: number;
  limit: number;
  /** Newest first (and `afterId` then means a smaller id). */
  descending?: boolean;
}

/**
 * A page of the user list: up to `limit` users. A page read from one filter's index and checked
 * against the others reads a bounded number of entries, and may stop short of `limit` before the
 * end of the list: `readTo` then says the list goes on after that user id.
 */
export interface UserPage<T> {
  users: T[];
  readTo?: string;
  /**
   * The list is read so (from one filter's index, checked against the others): a page of it may
   * stop short, and past one that did, a page is known only by following links.next.
   */
  mayStopShort?: boolean;
}

export interface ImportedUser {
  user: NewUser;
  subscriptions: readonly SubscriptionValues[];
  /**
   * The attributes its `user.created` entry names (those the record set), when the audit trail
   * is kept; the audit context's otherwise. Each subscription's entry names those it holds a value for.
   */
  attributes?: readonly string[];
}

/** A user found by email for an import: the user, and the password hash it has (null for none). */
export interface MatchedUser {
  user: StoredUser;
  passwordHash: string | null;
  /** Their consents by newsletter, of every state: an import adds none pending already, and reports the suppressed. */
  consents: ReadonlyMap<string, ConsentState>;
}

export interface UserStore {
  /** Creates the user with a consent for each newsletter added, and their history entries and events. */
  create(user: NewUser, audit: AuditContext): Promise<StoredUser>;
  /**
   * Inserts many users with their subscriptions in one transaction (all or none), for bulk
   * loads; answers the new ids in order. Records the audit trail when `audit` is given: each
   * user's `user.created`, then each of its subscriptions' `subscription.created`. A refused
   * reference points into the record as a file holds it (`/newsletters/0`, `/subscriptions/1/product`).
   */
  import(batch: readonly ImportedUser[], audit: AuditContext | null): Promise<string[]>;
  get(id: string): Promise<StoredUser | undefined>;
  /** The users with these emails (matched without regard to case), by lower-cased email, for an import. */
  byEmail(emails: readonly string[]): Promise<Map<string, MatchedUser>>;
  list(query: UserListQuery): Promise<UserPage<StoredUser>>;
  /** The users `list` answers, in the same order, each as the JSON text of its resource object. */
  listRendered(query: UserListQuery): Promise<UserPage<RenderedUser>>;
  /**
   * Changes the user; a new password hash, or an email that differs other than in letter case,
   * also voids every password reset token of theirs in the same transaction (a token was mailed
   * to the address left). Newsletters added and removed change the consents as `membershipChanges`
   * says (CONSENT_SUPPRESSED refuses the whole write), each with its history entry and event.
   */
  update(id: string, changes: UserChanges, audit: AuditContext, ifVersion?: IfVersion): Promise<boolean>;
  /**
   * Erases the user with everything that names them: subscriptions, newsletter links and consents
   * with their history, password reset tokens, and the sign-in attempts counted for their email.
   */
  delete(id: string, audit: AuditContext, ifVersion?: IfVersion): Promise<boolean>;
}
