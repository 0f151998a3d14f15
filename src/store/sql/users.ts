/**
 * Users as every adapter keeps them: how profile fields map onto columns (`address.postalCode`
 * is kept in `address_postal_code`, derived so that the schema stays the one list of fields),
 * how rows read back, and the filters and paging of the list, written once for both dialects.
 */
import { newsletterPointer, type Reference } from '../../domain/catalogue.js';
import { GIVING, type ActiveSubscriptionFilter } from '../../domain/entitlement.js';
import { SIMILAR_CANDIDATES, similarity, type KeyRange, type SearchRange } from '../../domain/search.js';
import type { Resource } from '../../domain/subscription.js';
import { USER_FIELDS, USER_JSON_FIELDS, type UserFields } from '../../domain/user.js';
import type { ImportedUser, StoredUser, UserListQuery, UserPage } from '../port.js';
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
  const own = query.email !== undefined || query.circulationNumber !== undefined || query.licenceDomains !== undefined;
  if (own || (!query.newsletter && !active)) {
    return 'users';
  }
  if (active?.product !== undefined) return 'product';
  if (query.newsletter !== undefined) return 'newsletter';
  // Stryker disable next-line OptionalChaining: with no subscription filter, a page was read from users or a newsletter
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
 * deep the page). Where the other filters are checked of each user it yields (a product, a
 * newsletter, a resource given, any active subscription at all), the page is walked (`walkedPage`)
 * as far as `reach` says. `products` are the ids `productsOfPage` read.
 */
export function userPageIds(query: UserListQuery, dialect: Dialect, products: readonly string[], reach: Reach): Sql {
  const walks = walksOf(query, dialect, products);
  if (walks !== undefined) return walkedPage(query, walks, dialect, reach);
  switch (pageSource(query)) {
    case 'search':
      return bySearch(query, query.search as SearchRange, dialect);
    case 'newsletter':
      return byNewsletter(query);
    default:
      return byUsers(query, dialect);
  }
}

/**
 * How far a walked page reads (`walkedPage`): its first `limit` entries past the cursor, or every
 * entry up to and with the user `to`.
 */
export type Reach = { limit: number } | { to: string };

/**
 * The rows of a page of users, `columns` of each: the page's ids first (`userPageIds`), then each
 * row by its key. SQLite reads `IN (SELECT …)` by the key as it is. On PostgreSQL the ids are an
 * array the key is searched by: `IN` left the join to the planner, which hashed the page and
 * scanned every user to probe it wherever the table looked small enough (at 10,000 users, all of
 * them for a page of 101, several times as long as reading the page by its key).
 */
export function usersOfPage(
  query: UserListQuery,
  columns: Sql,
  dialect: Dialect,
  products: readonly string[],
  reach: Reach,
): Sql {
  const ofPage = raw(dialect === 'postgres' ? 'id = ANY (ARRAY(SELECT id FROM page))' : 'id IN (SELECT id FROM page)');
  return sql`WITH page AS (${userPageIds(query, dialect, products, reach)}) SELECT ${columns} FROM users
    WHERE ${ofPage} ORDER BY id ${userOrder(query)}`;
}

/** What `readUserPage` reads with: the adapter's reads, and what the page needs of the store. */
export interface PageReader<R> {
  dialect: Dialect;
  /** The ids `productsOfPage` read. */
  products: readonly string[];
  /** The most entries a walked page reads: PAGE_READ_LIMIT, unless the store is opened with another. */
  readLimit: number;
  /** A statement's rows. */
  rows(statement: Sql): Promise<R[]>;
  /** The id in a statement's first row, if it has one. */
  firstId(statement: Sql): Promise<string | undefined>;
  /** The id of a row `rows` read. */
  idOf(row: R): string;
  /**
   * Up to `limit` users whose names may be one typo from the text (`similarity` says which are), each
   * with the names it is matched against: read from the adapter's trigram index, never the table.
   */
  similarNames(text: string, limit: number): Promise<SimilarNames[]>;
}

/** A user that may be a similar name's, with the names it is matched against (compact keys, or keys). */
export interface SimilarNames {
  id: string;
  names: (string | null)[];
}

/**
 * Reads a page of users, `columns` of each. A full page is read by one statement. Where a walked
 * page (`walkedPage`) comes short, it is either the end of the list or as far as the read limit
 * reaches: the user at that limit is read, and the page again up to and with that user, so that
 * the page and where it stops are one statement's reading, whatever was written in between.
 */
export async function readUserPage<R>(query: UserListQuery, columns: Sql, reader: PageReader<R>): Promise<UserPage<R>> {
  const { dialect, products, readLimit, rows, firstId } = reader;
  const first = await rows(usersOfPage(query, columns, dialect, products, { limit: readLimit }));
  const walks = walksOf(query, dialect, products);
  if (walks === undefined) return { users: await withSimilar(query, columns, reader, first) };
  if (first.length >= query.limit) return { users: first, mayStopShort: true };
  const readTo = await firstId(walkLimit(query, walks, dialect, readLimit));
  const reach = readTo === undefined ? { limit: readLimit } : { to: readTo };
  const users = await rows(usersOfPage(query, columns, dialect, products, reach));
  return { users, mayStopShort: true, ...(users.length < query.limit && readTo !== undefined ? { readTo } : {}) };
}

/**
 * A search's page with readers whose name is one typo from the text after those it matches: only
 * on the first page of a search with no other filter, and only where the matches leave room on it
 * (they are all there is, there being no next page), so that paging through the matches by
 * `page[after]` is as it was. The last place of the page stays empty, as the page's one more than
 * its size (`limit`) says whether a next page exists: similar names have none.
 */
async function withSimilar<R>(query: UserListQuery, columns: Sql, reader: PageReader<R>, first: R[]): Promise<R[]> {
  const text = query.search?.similar;
  const room = query.limit - 1 - first.length;
  if (text === undefined || room <= 0 || query.afterId !== undefined || query.offset !== 0) return first;
  if (query.email || query.circulationNumber !== undefined || query.newsletter !== undefined) return first;
  if (query.licenceDomains !== undefined) return first;
  if (query.activeSubscription) return first;
  const matched = new Set(first.map(reader.idOf));
  const ranked = new Map<string, number>();
  for (const { id, names } of await reader.similarNames(text, SIMILAR_CANDIDATES)) {
    const rank = Math.max(...names.map((name) => similarity(text, name) ?? 0));
    if (rank > 0 && !matched.has(id)) ranked.set(id, rank);
  }
  // Closest first; of names as close, in id order.
  const ids = [...ranked]
    .sort(([a, x], [b, y]) => y - x || Number(a) - Number(b))
    .slice(0, room)
    .map(([id]) => id);
  if (ids.length === 0) return first;
  const order = join(
    ids.map((id, i) => sql`WHEN ${Number(id)} THEN ${i}`),
    ' ',
  );
  const similar = await reader.rows(
    sql`SELECT ${columns} FROM users WHERE id IN (${join(
      ids.map((id) => sql`${Number(id)}`),
      ', ',
    )}) ORDER BY CASE id ${order} END`,
  );
  return [...first, ...similar];
}

export function userOrder(query: UserListQuery): Sql {
  return raw(query.descending ? 'DESC' : 'ASC');
}

/** `column` beyond the cursor, in the direction of the list. */
function beyond(query: UserListQuery, column: string): Sql[] {
  if (query.afterId === undefined) return [];
  return [sql`${raw(column)} ${raw(query.descending ? '<' : '>')} ${userKey(query.afterId)}`];
}

/**
 * A user id as a value to compare with a column of user ids: a number, since SQLite compares a
 * text with an expression of no type (`+s.user_id`) as greater than every number, which paged a
 * walk of the starts that had come backwards and round in a loop.
 */
const userKey = (id: string) => Number(id);

function page(query: UserListQuery, column: string): Sql {
  return sql`ORDER BY ${raw(column)} ${userOrder(query)} LIMIT ${query.limit} OFFSET ${query.offset}`;
}

/**
 * Ends a probe of the user (`onNewsletter`, `hasActive`), made `perEntry` of a walk (`walksOf`).
 * PostgreSQL would rather read every member of a newsletter past the cursor into a hash to check
 * the few hundred entries of a page, a read that grows with the newsletter: an OFFSET keeps it one
 * seek each. Anywhere else (a search) the probes stay a join for it to plan: made one by one, they
 * checked every user in id order (for a search with a newsletter no one is on).
 */
const probeEnd = (dialect: Dialect, perEntry: boolean) => raw(perEntry && dialect === 'postgres' ? ' OFFSET 0' : '');

/**
 * The user `column` is on the newsletter the query names. The probe repeats the cursor, so that a
 * planner that merges it with the page (PostgreSQL) starts both at the cursor, not at the first user.
 */
function onNewsletter(query: UserListQuery, column: string, dialect: Dialect, perEntry: boolean): Sql[] {
  if (query.newsletter === undefined) return [];
  const conditions = [
    sql`n.user_id = ${raw(column)}`,
    sql`n.newsletter_id = ${query.newsletter}`,
    ...beyond(query, 'n.user_id'),
  ];
  return [
    sql`EXISTS (SELECT 1 FROM user_newsletters n WHERE ${join(conditions, ' AND ')}${probeEnd(dialect, perEntry)})`,
  ];
}

/** The conditions on a subscription `s` the filter asks for: active at its instant, of its resource and product. */
function activeConditions(active: ActiveSubscriptionFilter, dialect: Dialect): Sql[] {
  const { resource, product } = active;
  return filterConditions('s', { at: active.at, statuses: ['active'], resource, product }, dialect);
}

/** The user `column` has a subscription the filter asks for (repeating the cursor, as `onNewsletter` does). */
function hasActive(query: UserListQuery, column: string, dialect: Dialect, perEntry: boolean): Sql[] {
  if (!query.activeSubscription) return [];
  const conditions = [
    sql`s.user_id = ${raw(column)}`,
    ...beyond(query, 's.user_id'),
    ...activeConditions(query.activeSubscription, dialect),
  ];
  return [sql`EXISTS (SELECT 1 FROM subscriptions s WHERE ${join(conditions, ' AND ')}${probeEnd(dialect, perEntry)})`];
}

/**
 * The conditions on the users' own keys: email, circulation number, and the licences they own by
 * domain, whose owners are read from the domains' primary key (few: those of the licences naming
 * them), each then a probe of the users' own.
 */
function ownConditions(query: UserListQuery): Sql[] {
  const conditions: Sql[] = [];
  if (query.email && 'address' in query.email) conditions.push(sql`email_lower = ${query.email.address.toLowerCase()}`);
  else if (query.email) conditions.push(sql`email_domain = ${query.email.domain.toLowerCase()}`);
  if (query.circulationNumber !== undefined) conditions.push(sql`circulation_number = ${query.circulationNumber}`);
  if (query.licenceDomains !== undefined) {
    const domains = join(
      query.licenceDomains.map((domain) => sql`${domain}`),
      ', ',
    );
    conditions.push(sql`id IN (SELECT d.user_id FROM site_domains d WHERE d.domain IN (${domains}))`);
  }
  return conditions;
}

/** The users' own conditions, past the cursor, and the other filters. */
function userConditions(query: UserListQuery, dialect: Dialect): Sql[] {
  return [
    ...ownConditions(query),
    ...beyond(query, 'id'),
    ...onNewsletter(query, 'users.id', dialect, false),
    ...hasActive(query, 'users.id', dialect, false),
  ];
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
 * is told ("C", as its indexes are built) and SQLite compares in anyway. The text without its
 * apostrophes and the like is matched against the compact keys likewise, and a text of several
 * words against the names by each word (`wordArms`).
 */
function bySearch(query: UserListQuery, search: SearchRange, dialect: Dialect): Sql {
  const { exact, id, compact, words } = search;
  const email = dialect === 'postgres' ? '(email_lower COLLATE "C")' : 'email_lower';
  const others = userConditions(query, dialect);
  const seek = (condition: Sql) =>
    sql`SELECT id FROM (SELECT id FROM users ${where([condition, ...others])}
      ORDER BY id ${userOrder(query)} LIMIT ${query.offset + query.limit}) AS a`;
  /** The users a condition on keys in `range` selects: a seek in id order for a key whole, else the range read whole. */
  const arm = (range: KeyRange, condition: Sql) =>
    range.whole ? seek(condition) : sql`SELECT id FROM users WHERE ${condition}`;
  const arms = [
    ...[email, 'family_key', 'given_key'].map((key) => arm(search, inRange(raw(key), search))),
    ...(compact === undefined ? [] : COMPACT_KEYS.map((key) => arm(compact, inRange(key, compact)))),
    ...(words === undefined ? [] : wordArms(words, arm)),
    seek(sql`circulation_number = ${exact}`),
    ...(id === undefined ? [] : [seek(sql`id = ${id}`)]),
  ];
  return sql`SELECT id FROM users ${where([sql`id IN (${join(arms, ' UNION ALL ')})`, ...others])} ${page(query, 'id')}`;
}

const COMPACT_KEYS = ['family_compact', 'given_compact'].map(raw);
const NAME_KEYS = [raw('family_key'), raw('given_key'), ...COMPACT_KEYS];

/** `key` in the range: equal to it whole, or at or after its start and before its end. */
function inRange(key: Sql, range: KeyRange): Sql {
  return range.whole ? sql`${key} = ${range.from}` : sql`${key} >= ${range.from} AND ${key} < ${range.to}`;
}

/**
 * The users whose names each word starts (a name's key, or its compact key): read by the longest
 * word, the fewest names, from each name's index, each checked for every word.
 */
function wordArms(words: readonly KeyRange[], arm: (range: KeyRange, condition: Sql) => Sql): Sql[] {
  const longest = words.reduce((a, b) => (Array.from(b.from).length > Array.from(a.from).length ? b : a));
  const every = words.map(
    (word) =>
      sql`(${join(
        NAME_KEYS.map((key) => sql`(${inRange(key, word)})`),
        ' OR ',
      )})`,
  );
  return NAME_KEYS.map((key) => arm(longest, join([inRange(key, longest), ...every], ' AND ')));
}

/** From the newsletter's members, in user order (user_newsletters_newsletter), where no other filter applies. */
function byNewsletter(query: UserListQuery): Sql {
  const conditions = [sql`m.newsletter_id = ${query.newsletter}`, ...beyond(query, 'm.user_id')];
  return sql`SELECT m.user_id AS id FROM user_newsletters m ${where(conditions)} ${page(query, 'id')}`;
}

/**
 * The most index entries a walked page reads by default (`walkedPage`): where few of the entries it walks
 * meet the other filters, or none (the members of a newsletter for those with an active print
 * subscription, a product's subscriptions for a resource it does not give), the walk would
 * otherwise go on to the end of the index, a read that grows with the table, during which SQLite
 * answers no other request. 10,000 entries are a few milliseconds.
 */
export const PAGE_READ_LIMIT = 10_000;

/**
 * An index a page is walked in: the rows of `from` that `key` selects past the cursor, in
 * `user` order, each kept when it meets every `residual` condition.
 */
interface Walk {
  from: string;
  user: string;
  key: Sql[];
  residual: Sql[];
}

/** The walks of a page whose source index is checked against other filters; none where each entry is a user of the page. */
function walksOf(query: UserListQuery, dialect: Dialect, products: readonly string[]): Walk[] | undefined {
  const active = query.activeSubscription as ActiveSubscriptionFilter;
  switch (pageSource(query)) {
    case 'users': {
      const residual = [
        ...onNewsletter(query, 'users.id', dialect, true),
        ...hasActive(query, 'users.id', dialect, true),
      ];
      return residual.length === 0 ? undefined : [{ from: 'users', user: 'id', key: ownConditions(query), residual }];
    }
    case 'newsletter':
      if (query.activeSubscription === undefined) return undefined;
      return [
        {
          from: 'user_newsletters m',
          user: 'm.user_id',
          key: [sql`m.newsletter_id = ${query.newsletter}`],
          residual: hasActive(query, 'm.user_id', dialect, true),
        },
      ];
    case 'product':
      return productWalks(query, active, dialect);
    case 'resource':
      return resourceWalks(query, active, products, dialect);
    case 'subscriptions':
      // For any product: every subscription, in user order (subscriptions_user).
      return [
        {
          from: 'subscriptions s',
          user: 's.user_id',
          key: [],
          residual: [
            ...activeConditions(active, dialect),
            // Stryker disable next-line StringLiteral,BooleanLiteral: a page with a newsletter is read from it, not here
            ...onNewsletter(query, 's.user_id', dialect, true),
          ],
        },
      ];
    // Stryker disable next-line ConditionalExpression: past the last case, the function returns undefined all the same
    default:
      return undefined;
  }
}

/** What a statement reads of the walks: their first `limit` entries past `offset`, `checked` or not, up to `readTo`. */
interface WalkRead {
  checked: boolean;
  limit: number;
  offset?: number;
  readTo?: string;
}

// Stryker disable next-line StringLiteral: every walk has a residual condition (walksOf), so none is never written
const NO_CONDITION = raw('TRUE');

/**
 * The walks' entries in user order, each as `id` and, `checked`, whether it meets the residual
 * conditions (`ok`). The walks are merged, each a seek in user order (a walk of `+s.user_id` is
 * read by its own key and sorted: its rows are few). PostgreSQL plans a merge cut as a whole by its
 * size: it sorted all of a product's subscriptions to find the first 10,000, so each walk there is
 * cut on its own, which it reads by a seek.
 */
function walkEntries(query: UserListQuery, walks: readonly Walk[], dialect: Dialect, read: WalkRead): Sql {
  const { checked, limit, offset = 0, readTo } = read;
  const order = userOrder(query);
  const upTo = (user: string) =>
    readTo === undefined ? [] : [sql`${raw(user)} ${raw(query.descending ? '>=' : '<=')} ${userKey(readTo)}`];
  const arms = walks.map(({ from, user, key, residual }) => {
    const ok = checked ? sql`, (${join(residual, ' AND ', NO_CONDITION)}) AS ok` : raw('');
    const arm = sql`SELECT ${raw(user)} AS id${ok} FROM ${raw(from)} ${where([...key, ...beyond(query, user), ...upTo(user)])}`;
    if (dialect === 'sqlite') return arm;
    return sql`SELECT * FROM (${arm} ORDER BY ${raw(user)} ${order} LIMIT ${limit + offset}) AS a`;
  });
  return sql`${join(arms, ' UNION ALL ')} ORDER BY id ${order} LIMIT ${limit} OFFSET ${offset}`;
}

/**
 * A page of the users whose entries in the walks meet the residual conditions, of those `reach`
 * says: a page may come short before the end of the list (`readUserPage`). Up to a user the walks
 * are still cut by a LIMIT, one that cuts nothing: without one, SQLite merges the residual
 * conditions into the walks' own and reads the starts that have come by a product's index, every
 * subscription of the product.
 */
function walkedPage(query: UserListQuery, walks: readonly Walk[], dialect: Dialect, reach: Reach): Sql {
  const read: WalkRead =
    'to' in reach
      ? { checked: true, limit: Number.MAX_SAFE_INTEGER, readTo: reach.to }
      : { checked: true, limit: reach.limit };
  return sql`SELECT DISTINCT id FROM (${walkEntries(query, walks, dialect, read)}) AS w WHERE ok ${page(query, 'id')}`;
}

/** The user of the walks' entry at `readLimit` past the cursor, where there is one. */
function walkLimit(query: UserListQuery, walks: readonly Walk[], dialect: Dialect, readLimit: number): Sql {
  return walkEntries(query, walks, dialect, { checked: false, limit: 1, offset: readLimit - 1 });
}

/**
 * Subscriptions that have started are read apart from those with a start still to come, which
 * would otherwise be walked to find none when many are booked ahead; of those, only the few whose
 * start has come since it was last cleared (jobs/starts.ts, every minute; see migration 18).
 */
const startHasCome = (at: unknown) => sql`s.pending_start <= ${at}`;

/**
 * The few subscriptions whose start has come since it was last cleared, read by that key alone
 * (subscriptions_pending_start) and sorted: `+s.user_id` keeps the planners from walking every
 * subscription in user order instead, and the other conditions from reading a product's.
 */
function startsCome(at: unknown, residual: Sql[]): Walk {
  return { from: 'subscriptions s', user: '+s.user_id', key: [startHasCome(at)], residual };
}

/** From the subscriptions of the product (subscriptions_product): those started, and those whose start has come. */
function productWalks(query: UserListQuery, active: ActiveSubscriptionFilter, dialect: Dialect): Walk[] {
  const residual = [...activeConditions(active, dialect), ...onNewsletter(query, 's.user_id', dialect, true)];
  const key = [
    sql`s.product_id = ${active.product}`,
    sql`${startedProduct('s')} = ${active.product}`,
    raw('s.expired = false'),
  ];
  return [
    { from: 'subscriptions s', user: 's.user_id', key, residual },
    startsCome(instantValue(dialect, active.at), residual),
  ];
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
 * name no resource, the rest read together; and those whose start has come.
 */
function resourceWalks(
  query: UserListQuery,
  active: ActiveSubscriptionFilter,
  productIds: readonly string[],
  dialect: Dialect,
): Walk[] {
  const wanted = active.resource as Resource;
  const at = instantValue(dialect, active.at);
  const residual = [
    statusCondition('s', 'active', at),
    // Stryker disable next-line StringLiteral,BooleanLiteral: a page with a newsletter is read from it, not here
    ...onNewsletter(query, 's.user_id', dialect, true),
  ];
  const started = (grant: Sql): Walk => ({
    from: 'subscriptions s',
    user: 's.user_id',
    key: [grant, raw('s.expired = false')],
    residual,
  });
  const sought = [...GIVING[wanted], ...productIds.slice(0, PRODUCT_SEEKS).map(productGrant)];
  const rest = productIds.slice(PRODUCT_SEEKS).map(productGrant);
  return [
    ...sought.map((grant) => started(sql`${startedGrant('s')} = ${grant}`)),
    ...(rest.length === 0 ? [] : [started(oneOf(startedGrant('s'), rest, dialect))]),
    startsCome(at, [givesCondition('s', wanted), ...residual]),
  ];
}
