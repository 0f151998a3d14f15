/**
 * What the service does with user records: creates one (hashing the password sent), lists them
 * (with whether each found by a search has an active subscription, and their first
 * subscriptions), reads one, changes one (answering it as it now is). The HTTP routes
 * and any other caller parse and check their inputs first; these functions do the steps.
 */
import type { AuditContext } from '../domain/audit.js';
import type { MembershipSource } from '../domain/consent.js';
import { hashPassword } from '../domain/password.js';
import { groupByUser, type StoredSubscription } from '../domain/subscription.js';
import { toUserFields, updatesNothing, type UserCreate, type UserUpdate } from '../domain/user.js';
import type { IfVersion, RenderedUser, Store, StoredUser, UserListQuery, UserPage } from '../store/port.js';
import { requireVersion } from '../store/ports/versions.js';

/** How a password or a newsletter change arrives: who it comes from, and by when a password must be hashed. */
export interface UserWriteContext {
  /** Where newsletters added or removed come from (`console` or `api`). */
  newsletterSource: MembershipSource;
  /** The instant (epoch milliseconds) by which hashing a password must be done. */
  deadline: number;
}

/** A user's first subscriptions, up to as many as were asked for, and whether they have more. */
export interface FirstSubscriptions {
  first: StoredSubscription[];
  more: boolean;
}

export async function createUser(
  store: Store,
  attributes: UserCreate,
  context: UserWriteContext,
  audit: AuditContext,
): Promise<StoredUser> {
  return store.users.create(
    {
      email: attributes.email,
      passwordHash: (await passwordHashOf(attributes, context.deadline)) ?? null,
      fields: toUserFields(attributes),
      newsletters: attributes.newsletters?.add ?? [],
      newsletterSource: context.newsletterSource,
    },
    audit,
  );
}

/** What a page of the user list asks for besides the list's own query. */
export interface UserListing {
  query: UserListQuery;
  /** The page's size (the query reads one more, to know whether another page follows). */
  size: number;
  /** Whether to say of each user whether they have a subscription active at `now` (what a search shows). */
  markActive: boolean;
  now: number;
  /**
   * Given the list as read, before anything else is read for it: throws to refuse the page (the
   * caller's paging rules, such as a page by number past where the read stopped short).
   */
  accept(list: UserPage<unknown>): void;
}

/** A page of users read, and what was read with them. */
export interface UserListPage<T> {
  /** The list as read: its users one more than the page when another follows, and where a read stopped short. */
  list: UserPage<T>;
  /** The page's users. */
  page: T[];
  /** The page's users with a subscription active at `now`, when asked for. */
  active?: Set<string>;
  /** Each user's first subscriptions, in the page's order, when asked for. */
  subscriptions?: FirstSubscriptions[];
}

/** A page of whole users, each as the JSON text of its resource object. */
export async function listRenderedUsers(store: Store, listing: UserListing): Promise<UserListPage<RenderedUser>> {
  const list = await store.users.listRendered(listing.query);
  listing.accept(list);
  const page = list.users.slice(0, listing.size);
  return { list, page, active: await activeOf(store, page, listing) };
}

/** A page of users, with the first `subscriptionsEach` subscriptions of each when given. */
export async function listUsers(
  store: Store,
  listing: UserListing,
  subscriptionsEach?: number,
): Promise<UserListPage<StoredUser>> {
  const list = await store.users.list(listing.query);
  listing.accept(list);
  const page = list.users.slice(0, listing.size);
  const active = await activeOf(store, page, listing);
  const subscriptions =
    subscriptionsEach === undefined ? undefined : await firstSubscriptionsOf(store, page, subscriptionsEach);
  return { list, page, active, subscriptions };
}

/** A user, with their first `subscriptionsEach` subscriptions when given; undefined when there is none. */
export async function readUser(
  store: Store,
  id: string,
  subscriptionsEach?: number,
): Promise<{ user: StoredUser; subscriptions?: FirstSubscriptions } | undefined> {
  const user = await store.users.get(id);
  if (!user) return undefined;
  if (subscriptionsEach === undefined) return { user };
  const [subscriptions] = await firstSubscriptionsOf(store, [user], subscriptionsEach);
  return { user, subscriptions };
}

/** What a change of a user asks for: the attributes sent, the versions it may change, whether it wants the user back. */
export interface UserChange extends UserWriteContext {
  attributes: UserUpdate;
  ifVersion: IfVersion;
  /** Whether to read the user as they now are after the change. */
  answer: boolean;
}

/**
 * Changes the user: undefined when there is none; otherwise the user as they now are, when
 * asked for, or null. A change of nothing writes nothing, and only checks the version.
 */
export async function updateUser(
  store: Store,
  id: string,
  change: UserChange,
  audit: AuditContext,
): Promise<StoredUser | null | undefined> {
  const { attributes } = change;
  if (updatesNothing(attributes)) {
    const user = await store.users.get(id);
    if (!user) return undefined;
    requireVersion(user.version, change.ifVersion);
    return change.answer ? user : null;
  }
  const found = await store.users.update(
    id,
    {
      email: attributes.email,
      passwordHash: await passwordHashOf(attributes, change.deadline),
      fields: toUserFields(attributes),
      addNewsletters: attributes.newsletters?.add ?? [],
      removeNewsletters: attributes.newsletters?.remove ?? [],
      newsletterSource: change.newsletterSource,
    },
    audit,
    change.ifVersion,
  );
  if (!found) return undefined;
  if (!change.answer) return null;
  return store.users.get(id);
}

/** The hash to store: a new password's, or one brought from another system as it is; undefined for neither. */
async function passwordHashOf({ password, passwordHash }: UserUpdate, deadline: number): Promise<string | undefined> {
  return password === undefined ? passwordHash : hashPassword(password, { deadline });
}

/** Of the page's users, those with a subscription active at `now`, when the listing asks for it. */
async function activeOf(store: Store, page: { id: string }[], listing: UserListing) {
  return listing.markActive
    ? await store.subscriptions.usersWithActive(
        page.map((user) => user.id),
        listing.now,
      )
    : undefined;
}

/** Each user's first `each` subscriptions, in the users' order: one more is read, to know whose go on beyond them. */
async function firstSubscriptionsOf(store: Store, users: StoredUser[], each: number): Promise<FirstSubscriptions[]> {
  const fetched = groupByUser(
    await store.subscriptions.listOfUsers(
      users.map((user) => user.id),
      each + 1,
    ),
  );
  return users.map((user) => {
    const all = fetched.get(user.id) ?? [];
    return { first: all.slice(0, each), more: all.length > each };
  });
}
