/**
 * Subscriptions as every adapter keeps them: their columns, how a row reads back, and the
 * conditions of their status and of what they give, written once for both dialects. The status
 * conditions say in SQL what `subscriptionStatus` says in the domain (a contract test holds them
 * to each other); every instant is a parameter, so an index answers "active at t" for any t.
 */
import { nowInSeconds } from '../../domain/dates.js';
import { GIVING, type ActiveSubscription, type SubscriptionFilter } from '../../domain/entitlement.js';
import type { License, Resource, StoredSubscription, SubscriptionStatus } from '../../domain/subscription.js';
import type { SubscriptionCount, SubscriptionPageQuery } from '../port.js';
import { join, raw, sql, type Dialect, type Sql } from './builder.js';
import { boolean, instantValue, seconds, type Row } from './rows.js';

export const SUBSCRIPTION_COLUMNS = `id, user_id, date_started, date_ended, external_identifier, license, resource,
  trial, expired, product_id, delivery_days, ip_ranges, email_domains, seats, version`;

/** The same columns of the table named `alias` in a join. */
export function subscriptionColumnsOf(alias: string): string {
  return SUBSCRIPTION_COLUMNS.split(',')
    .map((c) => `${alias}.${c.trim()}`)
    .join(', ');
}

export function toStoredSubscription(row: Row): StoredSubscription {
  return {
    id: String(row.id),
    userId: String(row.user_id),
    dateStarted: seconds(row.date_started),
    dateEnded: row.date_ended === null ? null : seconds(row.date_ended),
    externalIdentifier: row.external_identifier as string | null,
    license: row.license as License | null,
    resource: row.resource as Resource | null,
    trial: boolean(row.trial),
    expired: boolean(row.expired),
    productId: row.product_id as string | null,
    deliveryDays: row.delivery_days === null || row.delivery_days === undefined ? null : Number(row.delivery_days),
    ipRanges: listOf(row.ip_ranges),
    emailDomains: listOf(row.email_domains),
    seats: row.seats === null || row.seats === undefined ? null : Number(row.seats),
    version: Number(row.version),
  };
}

/** A site licence's ranges or domains as kept: JSON text, null for none. */
export function listText(values: readonly string[]): string | null {
  return values.length === 0 ? null : JSON.stringify(values);
}

function listOf(text: unknown): string[] {
  return typeof text === 'string' ? (JSON.parse(text) as string[]) : [];
}

/** The subscriptions (`alias`) in a status at `at`, an instant as the dialect takes it. */
export function statusCondition(alias: string, status: SubscriptionStatus, at: unknown): Sql {
  const a = raw(alias);
  switch (status) {
    case 'scheduled':
      return sql`${a}.expired = false AND ${a}.date_started > ${at}`;
    case 'active':
      return sql`${a}.expired = false AND ${a}.date_started <= ${at} AND (${a}.date_ended IS NULL OR ${a}.date_ended > ${at})`;
    case 'ended':
      return sql`${a}.expired = false AND ${a}.date_started <= ${at} AND ${a}.date_ended <= ${at}`;
    case 'expired':
      return sql`${a}.expired = true`;
  }
}

/**
 * The subscription's start while it is still to come at `now`, else null: what every write keeps
 * in pending_start beside dateStarted (see migration 18), an index hint cleared once the start
 * has come (jobs/starts.ts).
 */
export function pendingStart(dateStarted: number, now: number = nowInSeconds()): number | null {
  return dateStarted > now ? dateStarted : null;
}

/**
 * Keys of the subscriptions that have started, null while their start is to come (pending_start,
 * above), written exactly as migration 23 indexes them, for a planner matches an index's
 * expression by its text. Held equal, each is a seek in user order, where "has started" on its
 * own is not an equality. `startedGrant`: the resource a subscription names, or else what its
 * product gives, keyed `productGrant(id)` (no resource starts with '/').
 */
export function startedGrant(alias: string): Sql {
  const a = raw(alias);
  return sql`CASE WHEN ${a}.pending_start IS NULL THEN coalesce(${a}.resource, '/' || ${a}.product_id) END`;
}

export function productGrant(productId: string): string {
  return `/${productId}`;
}

/** The product a started subscription is of (see `startedGrant`). */
export function startedProduct(alias: string): Sql {
  const a = raw(alias);
  return sql`CASE WHEN ${a}.pending_start IS NULL THEN ${a}.product_id END`;
}

/** Resources as SQL literals: values of a fixed list, never a client's text. */
export function literals(resources: readonly Resource[]): Sql {
  return raw(resources.map((r) => `'${r}'`).join(', '));
}

/** The products whose subscriptions give `wanted` when they name no resource of their own. */
export function productsGiving(wanted: Resource): Sql {
  return sql`SELECT id FROM products WHERE resource IN (${literals(GIVING[wanted])})`;
}

/** The subscriptions (`alias`) that give `wanted`: by their own resource, or else by their product's. */
export function givesCondition(alias: string, wanted: Resource): Sql {
  const a = raw(alias);
  return sql`(${a}.resource IN (${literals(GIVING[wanted])})
    OR (${a}.resource IS NULL AND ${a}.product_id IN (${productsGiving(wanted)})))`;
}

/** The print-giving resources as SQL literals. */
export const PRINT_LITERALS = literals(GIVING.print).render('sqlite').text;

/**
 * What a written subscription's `gives_print` mark is (migration 38), given the SQL of its
 * resource and product: its own resource's answer, else its product's, else false. The product is
 * one probe of its key, read in the write's transaction; on SQLite, one marking its subscriptions
 * as giving print counts as giving it (see sqlite/products.ts).
 */
export function givesPrintValue(resource: string, productId: string, dialect: Dialect): string {
  const marking = dialect === 'sqlite' ? ' OR marking_print > 0' : '';
  return `coalesce(${resource} IN (${PRINT_LITERALS}),
    (SELECT resource IN (${PRINT_LITERALS})${marking} FROM products WHERE id = ${productId}), false)`;
}

/**
 * The mark of a subscription rewritten whole: kept when its resource and product stay as they
 * were (a product's change of what it gives rewrites the marks itself, and a rewrite under way
 * is seen by a statement waiting on the row), else worked out afresh (see givesPrintValue).
 */
export function givesPrintOnUpdate(resource: string, productId: string, dialect: Dialect): string {
  const same = dialect === 'sqlite' ? 'IS' : 'IS NOT DISTINCT FROM';
  return `CASE WHEN resource ${same} ${resource} AND product_id ${same} ${productId} THEN gives_print
    ELSE ${givesPrintValue(resource, productId, dialect)} END`;
}

/** The conditions of a filter on the subscriptions `alias`. */
export function filterConditions(alias: string, filter: SubscriptionFilter, dialect: Dialect): Sql[] {
  const at = instantValue(dialect, filter.at);
  const conditions: Sql[] = [];
  if (filter.statuses) {
    const any = filter.statuses.map((status) => sql`(${statusCondition(alias, status, at)})`);
    conditions.push(sql`(${join(any, ' OR ')})`);
  }
  if (filter.resource !== undefined) conditions.push(givesCondition(alias, filter.resource));
  if (filter.product !== undefined) conditions.push(sql`${raw(alias)}.product_id = ${filter.product}`);
  return conditions;
}

/**
 * Of the users `ids`, those with a subscription active at `at`: each user's subscriptions read by
 * their key (user_id leads every index of them), so that a page of users costs a seek each.
 */
export function activeUsersQuery(ids: readonly string[], at: number, dialect: Dialect): Sql {
  const users = join(
    ids.map((id) => sql`${Number(id)}`),
    ', ',
  );
  const active = filterConditions('s', { at, statuses: ['active'] }, dialect);
  return sql`SELECT DISTINCT s.user_id AS id FROM subscriptions s WHERE s.user_id IN (${users})
    AND ${join(active, ' AND ')}`;
}

/**
 * Of the users `ids`, how many subscriptions each holds of each product (null: of none) that the
 * filter lets through, by user: each user's subscriptions read by their key, as above.
 */
export function subscriptionCountsQuery(ids: readonly string[], filter: SubscriptionFilter, dialect: Dialect): Sql {
  const users = join(
    ids.map((id) => sql`${Number(id)}`),
    ', ',
  );
  const conditions = [sql`s.user_id IN (${users})`, ...filterConditions('s', filter, dialect)];
  return sql`SELECT s.user_id, s.product_id, count(*) AS count FROM subscriptions s
    WHERE ${join(conditions, ' AND ')} GROUP BY s.user_id, s.product_id ORDER BY s.user_id`;
}

/** A row of `subscriptionCountsQuery`. */
export function toSubscriptionCount(row: Row): SubscriptionCount {
  return { userId: String(row.user_id), productId: row.product_id as string | null, count: Number(row.count) };
}

/**
 * A page of one user's subscriptions (those the filter lets through) in id order, after (or,
 * descending, before) `afterId`: a seek on the user's (user_id, id) key.
 */
export function subscriptionPage(userId: string, query: SubscriptionPageQuery, dialect: Dialect): Sql {
  const conditions: Sql[] = [sql`s.user_id = ${userId}`];
  if (query.afterId !== undefined) conditions.push(sql`s.id ${raw(query.descending ? '<' : '>')} ${query.afterId}`);
  if (query.filter) conditions.push(...filterConditions('s', query.filter, dialect));
  return sql`SELECT ${raw(subscriptionColumnsOf('s'))} FROM subscriptions s WHERE ${join(conditions, ' AND ')}
    ORDER BY s.id ${raw(query.descending ? 'DESC' : 'ASC')} LIMIT ${query.limit}`;
}

/**
 * What one user's subscriptions active at `at` give (their own resource, or else their product's,
 * read by the product's key), read by the user's key alone. `user` and `at` are values, or
 * placeholders (`raw('@at')`) for a statement prepared once; `from` is the table, or a narrower
 * read of it. No row does not tell a user without active subscriptions from no user. With
 * `ownResource`, each subscription's resource is its own (null where its product's applies), for
 * a caller that reads the products apart.
 */
export function activeSubscriptionsOfUser(
  user: unknown,
  at: unknown,
  { from = raw('subscriptions'), ownResource = false }: { from?: Sql; ownResource?: boolean } = {},
): Sql {
  const resource = ownResource
    ? raw('s.resource')
    : raw('coalesce(s.resource, (SELECT p.resource FROM products p WHERE p.id = s.product_id))');
  return sql`SELECT s.id, s.product_id, s.date_ended, ${resource} AS resource
    FROM ${from} s WHERE s.user_id = ${user} AND ${statusCondition('s', 'active', at)}`;
}

/** A row of a query of active subscriptions: what access needs of one. */
export function toActiveSubscription(row: Row): ActiveSubscription {
  return {
    id: String(row.id),
    productId: row.product_id as string | null,
    resource: row.resource as Resource | null,
    dateEnded: row.date_ended === null ? null : seconds(row.date_ended),
  };
}
