/**
 * Users as every adapter keeps them: how profile fields map onto columns (`address.postalCode`
 * is kept in `address_postal_code`, derived so that the schema stays the one list of fields),
 * how rows read back, and the filters and paging of the list, written once for both dialects.
 */
import { newsletterPointer, type Reference } from '../../domain/catalogue.js';
import { GIVING, type ActiveSubscriptionFilter } from '../../domain/entitlement.js';
import type { SearchRange } from '../../domain/search.js';
import type { Resource } from '../../domain/subscription.js';
import { USER_FIELDS, USER_JSON_FIELDS, type UserFields } from '../../domain/user.js';
import type { ImportedUser, StoredUser, UserListQuery } from '../port.js';
import { join, raw, sql, where, type Dialect, type Sql } from './builder.js';
import { array, instantValue, seconds, type Row } from './rows.js';
import {
  filterConditions,
  givesCondition,
  productsGiving,
  productGrant,
  startedGrant,
  startedProduct,
  statusCondition,
} from './subscriptions.js';

export function columnOf(field: string): string {
  return field.replace('.', '_').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

export const USER_COLUMNS: readonly string[] = USER_FIELDS.map(columnOf);

const JSON_FIELDS = new Set(USER_JSON_FIELDS);

/** Each field with its column, worked out once: rows are read by the hundred per request. */
const FIELD_COLUMNS = USER_FIELDS.map((field) => ({ field, column: columnOf(field), json: JSON_FIELDS.has(field) }));

/** A column value as a store writes it: JSON documents as text. */
export function toColumnValue(field: string, value: unknown): unknown {
  return JSON_FIELDS.has(field) && value != null ? JSON.stringify(value) : (value ?? null);
}

/** The profile fields of a row read with `USER_COLUMNS`. */
export function fieldsOfRow(row: Row): UserFields {
  const fields: UserFields = {};
  for (const { field, column, json } of FIELD_COLUMNS) {
    const value = row[column] ?? null;
    fields[field] = json && typeof value === 'string' ? JSON.parse(value) : value;
  }
  return fields;
}

/** The profile fields of a row read as an array, the fields from `start` on in `USER_COLUMNS` order. */
export function fieldsOfValues(values: readonly unknown[], start: number): UserFields {
  const fields: UserFields = {};
  for (let i = 0; i < FIELD_COLUMNS.length; i += 1) {
    const { field, json } = FIELD_COLUMNS[i]!;
    const value = values[start + i] ?? null;
    fields[field] = json && typeof value === 'string' ? JSON.parse(value) : value;
  }
  return fields;
}

export function toStoredUser(row: Row): StoredUser {
  return {
    id: String(row.id),
    email: row.email as string,
    fields: fieldsOfRow(row),
    newsletters: array(row.newsletters),
    lastSignInAt: row.last_sign_in_at == null ? null : seconds(row.last_sign_in_at),
    version: Number(row.version),
  };
}

/** The `index`-th newsletter a request adds a user to, as a reference. */
export function joining(id: string, index: number): Reference {
  return { id, pointer: newsletterPointer(index) };
}

/** The newsletters of an imported user, pointing into the record as a file holds it. */
export function importedNewsletters({ user }: ImportedUser): Reference[] {
  return user.newsletters.map((id, index) => ({ id, pointer: `/newsletters/${index}` }));
}

/** The products of an imported user's subscriptions, pointing into the record as a file holds it. */
export function importedProducts({ subscriptions }: ImportedUser): Reference[] {
  return subscriptions.flatMap((s, index) =>
    s.productId === null ? [] : [{ id: s.productId, pointer: `/subscriptions/${index}/product` }],
  );
}

/** The index a page of the user list is read from: that of one of its filters (see `userPageIds`). */
type PageSource = 'search' | 'users' | 'product' | 'newsletter' | 'resource' | 'subscriptions';

function pageSource(query: UserListQuery): PageSource {
  const active = query.activeSubscription;
  if (query.search !== undefined) return 'search';
  if (query.email !== undefined || query.circulationNumber !== undefined || (!query.newsletter && !active)) {
    return 'users';
  }
  if (active?.product !== undefined) return 'product';
  if (query.newsletter !== undefined) return 'newsletter';
  if (active?.resource !== undefined) return 'resource';
  return 'subscriptions';
}

/**
 * What the adapter reads before a page of users, and passes to `userPageIds`: the ids of the
 * products giving the resource that a page by resource seeks one by one. None for any other page.
 */
export function productsOfPage(query: UserListQuery): Sql | undefined {
  const resource = query.activeSubscription?.resource;
  // In id order, so that the first PRODUCT_SEEKS are the same from page to page.
  return pageSource(query) === 'resource' ? sql`${productsGiving(resource as Resource)} ORDER BY id` : undefined;
}

/**
 * The ids of a page of the user list, filtered, in order: the adapters read the page's rows for
 * these ids only, since OFFSET would otherwise compute every column of each row it skips.
 *
 * The page is read from the index of one filter, in user order from `afterId` (a seek however
 * deep the page), and the other filters are checked of each user it yields: the email and
 * circulation number first (a handful of users each), then a product, a newsletter, a resource
 * given, any active subscription at all. `products` are the ids `productsOfPage` read.
 */
export function userPageIds(query: UserListQuery, dialect: Dialect, products: readonly string[]): Sql {
  const active = query.activeSubscription as ActiveSubscriptionFilter;
  switch (pageSource(query)) {
    case 'search':
      return bySearch(query, query.search as SearchRange, dialect);
    case 'users':
      return byUsers(query, dialect);
    case 'product':
      return byProduct(query, active, dialect);
    case 'newsletter':
      return byNewsletter(query, dialect);
    case 'resource':
      return byResource(query, active, products, dialect);
    case 'subscriptions':
      return bySubscriptions(query, active, dialect);
  }
}

/**
 * The rows of a page of users, `columns` of each: the page's ids first (`userPageIds`), then each
 * row by its key. SQLite reads `IN (SELECT …)` by the key as it is. On PostgreSQL the ids are an
 * array the key is searched by: `IN` left the join to the planner, which hashed the page and
 * scanned every user to probe it wherever the table looked small enough (at 10,000 users, all of
 * them for a page of 101: 4.8 ms against 0.85).
 */
export function usersOfPage(query: UserListQuery, columns: Sql, dialect: Dialect, products: readonly string[]): Sql {
  const ofPage = raw(dialect === 'postgres' ? 'id = ANY (ARRAY(SELECT id FROM page))' : 'id IN (SELECT id FROM page)');
  return sql`WITH page AS (${userPageIds(query, dialect, products)}) SELECT ${columns} FROM users
    WHERE ${ofPage} ORDER BY id ${userOrder(query)}`;
}

export function userOrder(query: UserListQuery): Sql {
  return raw(query.descending ? 'DESC' : 'ASC');
}

/** `column` beyond the cursor, in the direction of the list. */
function beyond(query: UserListQuery, column: string): Sql[] {
  if (query.afterId === undefined) return [];
  return [sql`${raw(column)} ${raw(query.descending ? '<' : '>')} ${query.afterId}`];
}

function page(query: UserListQuery, column: string): Sql {
  return sql`ORDER BY ${raw(column)} ${userOrder(query)} LIMIT ${query.limit} OFFSET ${query.offset}`;
}

/**
 * The user `column` is on the newsletter the query names. The probe repeats the cursor, so that a
 * planner that merges it with the page (PostgreSQL) starts both at the cursor, not at the first user.
 */
function onNewsletter(query: UserListQuery, column: string): Sql[] {
  if (query.newsletter === undefined) return [];
  const conditions = [
    sql`n.user_id = ${raw(column)}`,
    sql`n.newsletter_id = ${query.newsletter}`,
    ...beyond(query, 'n.user_id'),
  ];
  return [sql`EXISTS (SELECT 1 FROM user_newsletters n WHERE ${join(conditions, ' AND ')})`];
}

/** The conditions on a subscription `s` the filter asks for: active at its instant, of its resource and product. */
function activeConditions(active: ActiveSubscriptionFilter, dialect: Dialect): Sql[] {
  const { resource, product } = active;
  return filterConditions('s', { at: active.at, statuses: ['active'], resource, product }, dialect);
}

/** The user `column` has a subscription the filter asks for (repeating the cursor, as `onNewsletter` does). */
function hasActive(query: UserListQuery, column: string, dialect: Dialect): Sql[] {
  if (!query.activeSubscription) return [];
  const conditions = [
    sql`s.user_id = ${raw(column)}`,
    ...beyond(query, 's.user_id'),
    ...activeConditions(query.activeSubscription, dialect),
  ];
  return [sql`EXISTS (SELECT 1 FROM subscriptions s WHERE ${join(conditions, ' AND ')})`];
}

/** The conditions on the users' own columns: email, circulation number; then past the cursor, and the other filters. */
function userConditions(query: UserListQuery, dialect: Dialect): Sql[] {
  const conditions: Sql[] = [];
  if (query.email && 'address' in query.email) conditions.push(sql`email_lower = ${query.email.address.toLowerCase()}`);
  else if (query.email) conditions.push(sql`email_domain = ${query.email.domain.toLowerCase()}`);
  if (query.circulationNumber !== undefined) conditions.push(sql`circulation_number = ${query.circulationNumber}`);
  conditions.push(...beyond(query, 'id'), ...onNewsletter(query, 'users.id'), ...hasActive(query, 'users.id', dialect));
  return conditions;
}

/** From the users' own indexes (email, circulation number) or their primary key. */
function byUsers(query: UserListQuery, dialect: Dialect): Sql {
  return sql`SELECT id FROM users ${where(userConditions(query, dialect))} ${page(query, 'id')}`;
}

/**
 * From each search index (the emails', the family and given names' keys) and the circulation
 * numbers' and ids' equality, each read on its own so that no planner walks the users instead.
 * A match by equality is a seek in id order past the cursor, cut to the page with every other
 * filter applied; a range (text of SEARCH_PREFIX_MIN characters or more) is read whole, its cost
 * that of the readers whose names start so. Bounds compare in code point order, which PostgreSQL
 * is told ("C", as its indexes are built) and SQLite compares in anyway.
 */
function bySearch(query: UserListQuery, search: SearchRange, dialect: Dialect): Sql {
  const { from, to, whole, exact, id } = search;
  const email = dialect === 'postgres' ? '(email_lower COLLATE "C")' : 'email_lower';
  const others = userConditions(query, dialect);
  const seek = (condition: Sql) =>
    sql`SELECT id FROM (SELECT id FROM users ${where([condition, ...others])}
      ORDER BY id ${userOrder(query)} LIMIT ${query.offset + query.limit}) AS a`;
  const keyed = [email, 'family_key', 'given_key'].map(raw);
  const arms = [
    ...(whole
      ? keyed.map((key) => seek(sql`${key} = ${from}`))
      : keyed.map((key) => sql`SELECT id FROM users WHERE ${key} >= ${from} AND ${key} < ${to}`)),
    seek(sql`circulation_number = ${exact}`),
    ...(id === undefined ? [] : [seek(sql`id = ${id}`)]),
  ];
  return sql`SELECT id FROM users ${where([sql`id IN (${join(arms, ' UNION ALL ')})`, ...others])} ${page(query, 'id')}`;
}

/** From the newsletter's members, in user order (user_newsletters_newsletter). */
function byNewsletter(query: UserListQuery, dialect: Dialect): Sql {
  const conditions = [
    sql`m.newsletter_id = ${query.newsletter}`,
    ...beyond(query, 'm.user_id'),
    ...hasActive(query, 'm.user_id', dialect),
  ];
  return sql`SELECT m.user_id AS id FROM user_newsletters m ${where(conditions)} ${page(query, 'id')}`;
}

/** For any product, from each user's subscriptions in user order (subscriptions_user). */
function bySubscriptions(query: UserListQuery, active: ActiveSubscriptionFilter, dialect: Dialect): Sql {
  const conditions = [
    ...activeConditions(active, dialect),
    ...beyond(query, 's.user_id'),
    ...onNewsletter(query, 's.user_id'),
  ];
  return sql`SELECT DISTINCT s.user_id AS id FROM subscriptions s ${where(conditions)} ${page(query, 'id')}`;
}

/**
 * Subscriptions that have started are read apart from those with a start still to come, which
 * would otherwise be walked to find none when many are booked ahead; of those, only the few whose
 * start has come since it was last cleared (jobs/starts.ts, every minute; see migration 18).
 */
const startHasCome = (at: unknown) => sql`s.pending_start <= ${at}`;

/**
 * One arm of a merge: the users with a subscription meeting `conditions`, in user order, cut to the
 * page. An arm of a `few` rows (the starts that have come) is read by its own conditions and sorted:
 * `+s.user_id` keeps the planners from walking every subscription in user order instead.
 */
function activeArm(query: UserListQuery, conditions: Sql[], few = false): Sql {
  const user = few ? '+s.user_id' : 's.user_id';
  const all = [...conditions, ...beyond(query, user), ...onNewsletter(query, 's.user_id')];
  const cut = sql`ORDER BY ${raw(user)} ${userOrder(query)} LIMIT ${query.offset + query.limit}`;
  return sql`SELECT id FROM (SELECT DISTINCT ${raw(user)} AS id FROM subscriptions s ${where(all)} ${cut}) AS a`;
}

/** From the subscriptions of the product (subscriptions_product): those started, and those whose start has come. */
function byProduct(query: UserListQuery, active: ActiveSubscriptionFilter, dialect: Dialect): Sql {
  const conditions = activeConditions(active, dialect);
  const at = instantValue(dialect, active.at);
  const arms = [
    activeArm(query, [...conditions, sql`${startedProduct('s')} = ${active.product}`]),
    activeArm(query, [...conditions, startHasCome(at)], true),
  ];
  return sql`${join(arms, ' UNION ')} ${page(query, 'id')}`;
}

/**
 * The products a page by resource seeks one by one, at most; those past them are read in one
 * range of each, sorted. A merge of a seek for each of thousands would outgrow what a statement
 * may hold (SQLite: 500 arms) and what planning it should cost.
 */
const PRODUCT_SEEKS = 32;

/** `expression` is one of `values`, a single parameter, so the statement's text is the same for any number. */
function oneOf(expression: Sql, values: readonly string[], dialect: Dialect): Sql {
  return dialect === 'postgres'
    ? sql`${expression} = ANY (${values}::text[])`
    : sql`${expression} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
}

/**
 * From the subscriptions giving the resource that have started (subscriptions_resource): one seek
 * for each resource that gives it, and one for each of the first PRODUCT_SEEKS products that give
 * it (`productIds`, which the adapter read by `productsOfPage`) of those of its subscriptions that
 * name no resource, the rest read together; and those whose start has come
 * (subscriptions_pending_start); each cut to the page, merged in user order.
 */
function byResource(
  query: UserListQuery,
  active: ActiveSubscriptionFilter,
  productIds: readonly string[],
  dialect: Dialect,
): Sql {
  const wanted = active.resource as Resource;
  const at = instantValue(dialect, active.at);
  const isActive = statusCondition('s', 'active', at);
  const sought = [...GIVING[wanted], ...productIds.slice(0, PRODUCT_SEEKS).map(productGrant)];
  const rest = productIds.slice(PRODUCT_SEEKS).map(productGrant);
  const arms = [
    ...sought.map((grant) => activeArm(query, [sql`${startedGrant('s')} = ${grant}`, isActive])),
    ...(rest.length === 0 ? [] : [activeArm(query, [oneOf(startedGrant('s'), rest, dialect), isActive])]),
    activeArm(query, [givesCondition('s', wanted), startHasCome(at), isActive], true),
  ];
  return sql`${join(arms, ' UNION ')} ${page(query, 'id')}`;
}
