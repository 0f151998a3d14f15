/**
 * Subscriptions on PostgreSQL. Every statement is keyed by user id, so it stays on one shard
 * under Citus.
 */
import { requireVersion } from '../ports/versions.js';
import type pg from 'pg';
import type { AuditContext } from '../../domain/audit.js';
import { PRODUCT_POINTER } from '../../domain/catalogue.js';
import type { SubscriptionFilter } from '../../domain/entitlement.js';
import { lowersSeats, requireSeatsGiven } from '../../domain/seat.js';
import type { StoredSubscription, SubscriptionValues } from '../../domain/subscription.js';
import type { IfVersion, SubscriptionPageQuery, SubscriptionStore } from '../port.js';
import { raw, sql } from '../sql/builder.js';
import { instantValue, type Row } from '../sql/rows.js';
import {
  activeSubscriptionsOfUser,
  activeUsersQuery,
  givesPrintOnUpdate,
  givesPrintValue,
  listText,
  pendingStart,
  SUBSCRIPTION_COLUMNS,
  subscriptionCountsQuery,
  subscriptionPage,
  toActiveSubscription,
  toStoredSubscription,
  toSubscriptionCount,
} from '../sql/subscriptions.js';
import { auditInsert, versionCondition, violates, type PostgresDatabase } from './database.js';
import type { KnownUsers } from './known-users.js';
import type { ProductResources } from './product-resources.js';
import type { PostgresReferences } from './references.js';
import { siteKeysChange, writesSiteKeys } from '../sql/site-licences.js';
import type { KeptSiteKeys } from './licensed-domains.js';
import { forgetSeatsOfLicence, SEATS_GIVEN } from './seats.js';
import { DELETE_SUBSCRIPTION_SITE_KEYS, insertSiteKeys, writeSiteKeys } from './site-licences.js';

const SUBSCRIPTION_SELECT = `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions`;

/** The first $2 subscriptions of each of the users $1, read through the primary key (user_id, id) for each user alone. */
export const FIRST_SUBSCRIPTIONS_OF_USERS = `SELECT s.* FROM unnest($1::bigint[]) AS u(id)
  CROSS JOIN LATERAL (${SUBSCRIPTION_SELECT} WHERE user_id = u.id ORDER BY id LIMIT $2) s
  ORDER BY s.id`;

/**
 * The same on Citus, which cannot push a lateral join down to the shards: numbered within each
 * user (the distribution column), so each shard numbers its own users' rows.
 */
export const FIRST_SUBSCRIPTIONS_OF_USERS_CITUS = `SELECT ${SUBSCRIPTION_COLUMNS} FROM (
    SELECT *, row_number() OVER (PARTITION BY user_id ORDER BY id) AS n FROM subscriptions
    WHERE user_id = ANY($1::bigint[])) s
  WHERE n <= $2 ORDER BY id`;

/**
 * The subscriptions of the user $1, with the columns the access check needs, read apart (OFFSET 0
 * keeps the dates out of that read): a plan made without statistics, kept for a prepared
 * statement's life, otherwise ANDed the user's key with a bitmap of every subscription not yet
 * ended, most of the table. Each column more would be copied for every subscription of the user.
 */
export const USERS_SUBSCRIPTIONS = raw(`(SELECT id, user_id, expired, date_started, date_ended, resource, product_id
    FROM subscriptions WHERE user_id = $1 OFFSET 0)`);

/**
 * The access check's statement: the subscriptions of the user $1 active at $2, each with its own
 * resource (its product's is applied after, from what product-resources.ts keeps), and nothing
 * else. Whether a user without one exists is asked apart, of what known-users.ts keeps: in this
 * statement, as a subquery run only when no row came, the users' table and key were still locked
 * and made ready on every call, which cost the server more than the subscriptions alone (measured
 * with pgbench). It still costs the server a little more than one subscription read by its key,
 * walking the user's subscriptions where that reads one. The text is built once, each value one
 * placeholder.
 */
const ACTIVE_SUBSCRIPTIONS = activeSubscriptionsOfUser(raw('$1'), raw('$2'), {
  from: USERS_SUBSCRIPTIONS,
  ownResource: true,
}).render('postgres').text;

/**
 * The same on Citus, where the user's worker plans each statement with its values, so no plan
 * made before statistics outlives them there and the subscriptions need no fence of their own;
 * its fast path routes a statement of one table without planning a join.
 */
const ACTIVE_SUBSCRIPTIONS_CITUS = activeSubscriptionsOfUser(raw('$1'), raw('$2'), { ownResource: true }).render(
  'postgres',
).text;

/**
 * Whether an update keeping the product reads what the subscription gives from it afresh (see
 * givesPrintOnUpdate): when it stops naming a resource of its own.
 */
function takesProductsResource(current: SubscriptionValues, next: SubscriptionValues): boolean {
  return next.productId !== null && next.resource === null && current.resource !== null;
}

/** Active subscriptions read with their own resources, each given its product's where it names none. */
export async function withProductResources(rows: Row[], products: ProductResources) {
  const byProduct = rows.filter((row) => row.resource === null && row.product_id !== null);
  if (byProduct.length > 0) {
    const given = await products.of(byProduct.map((row) => row.product_id as string));
    for (const row of byProduct) row.resource = given.get(row.product_id as string) ?? null;
  }
  return rows.map(toActiveSubscription);
}

export function postgresSubscriptions(
  database: PostgresDatabase,
  references: PostgresReferences,
  products: ProductResources,
  users: KnownUsers,
  /** Told when a write adds a licence's keys (its domains, its ranges); none where nothing keeps them. */
  keptKeys?: KeptSiteKeys,
): SubscriptionStore {
  /** Registers or refuses the product a write newly names (see references.ts), on the write's connection. */
  async function attachProduct(client: pg.PoolClient, productId: string | null, audit: AuditContext) {
    if (productId !== null)
      await references.attach(client, 'products', [{ id: productId, pointer: PRODUCT_POINTER }], audit);
  }

  async function createSubscription(
    userId: string,
    values: SubscriptionValues,
    audit: AuditContext,
  ): Promise<StoredSubscription | undefined> {
    const params = subscriptionParams(userId, values);
    const record = auditInsert(params, audit, {
      action: 'create',
      resourceType: 'subscriptions',
      userIdColumn: 'user_id',
      from: 's',
    });
    const insert = `WITH s AS (
        INSERT INTO subscriptions (user_id, date_started, pending_start, date_ended, external_identifier, license,
          resource, trial, product_id, delivery_days, ip_ranges, email_domains, seats, gives_print)
        SELECT $1::bigint, $2::timestamptz, $9::timestamptz, $3::timestamptz, $4::text, $5::text, $6::text,
          $7::boolean, $8::text, $10::integer, $11::text, $12::text, $13::integer, ${givesPrintValue('$6::text', '$8::text', 'postgres')}
        WHERE EXISTS (SELECT 1 FROM users WHERE id = $1::bigint)
        RETURNING ${SUBSCRIPTION_COLUMNS}
      ), a AS (${record})
      SELECT * FROM s`;
    const addsKeys = writesSiteKeys(values);
    try {
      // Without a product or a licence's keys, one statement; with them, the product is made sure
      // of first and the keys written after, in the same transaction.
      const siteKeys = siteKeysChange(undefined, values);
      const [row] =
        values.productId === null && !siteKeys
          ? await database.rows(insert, params)
          : await database.transaction(async (client) => {
              const user = await client.query('SELECT 1 FROM users WHERE id = $1 FOR KEY SHARE', [userId]);
              if (user.rowCount === 0) return [];
              await attachProduct(client, values.productId, audit);
              const rows = (await client.query(insert, params)).rows as Row[];
              const created = rows[0];
              if (siteKeys && created) await insertSiteKeys(client, [{ userId, id: String(created.id), ...values }]);
              return rows;
            });
      return row && toStoredSubscription(row);
    } catch (error) {
      // The user was erased between the check and the insert.
      if (violates(error, '23503', 'subscriptions_user_id_fkey')) return undefined;
      throw error;
    } finally {
      // Even when the commit's answer was lost: the keys may have been written.
      if (addsKeys) keptKeys?.added();
    }
  }

  async function listSubscriptions(userId: string, query: SubscriptionPageQuery) {
    // The user's row comes first, so that "no such user" and "no subscriptions" differ.
    const rows = await database.rows(
      sql`SELECT u.id AS owner, s.* FROM users u
          LEFT JOIN LATERAL (${subscriptionPage(userId, query, 'postgres')}) s ON true
          WHERE u.id = ${userId}`,
    );
    if (rows.length === 0) return undefined;
    return rows.filter((r) => r.id !== null).map(toStoredSubscription);
  }

  async function activeSubscriptionsOf(userId: string, now: number) {
    const at = instantValue('postgres', now);
    const rows = await (database.citus
      ? database.preparedRows('citus-active-subscriptions', ACTIVE_SUBSCRIPTIONS_CITUS, [userId, at])
      : database.preparedRows('active-subscriptions', ACTIVE_SUBSCRIPTIONS, [userId, at]));
    // A subscription's user exists (its foreign key): only a user with none active is asked after.
    if (rows.length === 0) return (await users.exists(userId)) ? [] : undefined;
    return withProductResources(rows, products);
  }

  async function listSubscriptionsOfUsers(userIds: readonly string[], perUser?: number) {
    const rows =
      perUser === undefined
        ? await database.rows(`${SUBSCRIPTION_SELECT} WHERE user_id = ANY($1::bigint[]) ORDER BY id`, [userIds])
        : await database.rows(database.citus ? FIRST_SUBSCRIPTIONS_OF_USERS_CITUS : FIRST_SUBSCRIPTIONS_OF_USERS, [
            userIds,
            perUser,
          ]);
    return rows.map(toStoredSubscription);
  }

  async function subscriptionCountsOfUsers(userIds: readonly string[], filter: SubscriptionFilter) {
    if (userIds.length === 0) return [];
    return (await database.rows(subscriptionCountsQuery(userIds, filter, 'postgres'))).map(toSubscriptionCount);
  }

  async function usersWithActiveSubscriptions(userIds: readonly string[], at: number): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    return new Set((await database.rows(activeUsersQuery(userIds, at, 'postgres'))).map((row) => String(row.id)));
  }

  async function getSubscription(userId: string, id: string): Promise<StoredSubscription | undefined> {
    const [row] = await database.preparedRows('subscription', `${SUBSCRIPTION_SELECT} WHERE user_id = $1 AND id = $2`, [
      userId,
      id,
    ]);
    return row && toStoredSubscription(row);
  }

  async function updateSubscription(
    userId: string,
    id: string,
    change: (current: SubscriptionValues) => SubscriptionValues,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<StoredSubscription | undefined> {
    let addsKeys = false;
    try {
      return await database.transaction(async (client) => {
        const { rows } = await client.query(`${SUBSCRIPTION_SELECT} WHERE user_id = $1 AND id = $2 FOR UPDATE`, [
          userId,
          id,
        ]);
        if (rows.length === 0) return undefined;
        const current = toStoredSubscription(rows[0] as Row);
        requireVersion(current.version, ifVersion);
        const next = change(current);
        if (lowersSeats(current.seats, next.seats)) {
          const given = await client.query(SEATS_GIVEN, [userId, id]);
          requireSeatsGiven(next.seats, Number(given.rows[0]?.n));
        }
        if (next.productId !== current.productId) await attachProduct(client, next.productId, audit);
        // Held as naming it holds it: a product's change of what it gives waits for this write, and it for the change.
        else if (takesProductsResource(current, next))
          await references.hold(client, 'products', [next.productId as string]);
        const params = [...subscriptionParams(userId, next), id];
        const record = auditInsert(params, audit, {
          action: 'update',
          resourceType: 'subscriptions',
          userIdColumn: 'user_id',
          from: 's',
        });
        const updated = await client.query(
          `WITH s AS (
           UPDATE subscriptions SET date_started = $2, pending_start = $9, date_ended = $3, external_identifier = $4, license = $5,
             resource = $6, trial = $7, product_id = $8, delivery_days = $10, ip_ranges = $11, email_domains = $12,
             seats = $13, gives_print = ${givesPrintOnUpdate('$6::text', '$8::text', 'postgres')},
             version = version + 1, updated_at = now()
           WHERE user_id = $1 AND id = $14
           RETURNING ${SUBSCRIPTION_COLUMNS}
         ), a AS (${record})
         SELECT * FROM s`,
          params,
        );
        if (siteKeysChange(current, next)) {
          addsKeys = writesSiteKeys(next);
          await writeSiteKeys(client, userId, id, next);
        }
        return toStoredSubscription(updated.rows[0] as Row);
      });
    } finally {
      // Even when the commit's answer was lost: the keys may have been written.
      if (addsKeys) keptKeys?.added();
    }
  }

  async function expireSubscription(
    userId: string,
    id: string,
    now: number,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<StoredSubscription | undefined> {
    const params: unknown[] = [userId, id, new Date(now * 1000)];
    const condition = versionCondition(params, ifVersion);
    const record = auditInsert(params, audit, {
      action: 'expire',
      resourceType: 'subscriptions',
      userIdColumn: 'user_id',
      from: 'e',
    });
    // One statement; without a precondition an expired subscription is simply left as it is,
    // with one it must also be at a named version (checked below when nothing was expired).
    const [row] = await database.rows(
      `WITH target AS (
         SELECT user_id, id FROM subscriptions WHERE user_id = $1 AND id = $2 ${condition} FOR UPDATE
       ), e AS (
         UPDATE subscriptions s SET expired = true, date_ended = $3, version = s.version + 1, updated_at = now()
         FROM target WHERE s.user_id = $1 AND s.id = $2 AND s.user_id = target.user_id AND s.id = target.id
           AND NOT s.expired
         RETURNING s.id, s.user_id
       ), a AS (${record})
       SELECT count(*)::int AS matched FROM target`,
      params,
    );
    if (Number(row?.matched ?? 0) === 0) {
      await database.refusedOrMissing('subscriptions', 'user_id = $1 AND id = $2', [userId, id], ifVersion);
      if (ifVersion === undefined) return undefined;
    }
    return getSubscription(userId, id);
  }

  async function deleteSubscription(userId: string, id: string, audit: AuditContext, ifVersion?: IfVersion) {
    // The licence's seats cascade with it; their holders' keys (on the holders' shards) go first.
    return database.transaction(async (client) => {
      await forgetSeatsOfLicence(client, userId, id);
      return database.deleteRow({
        table: 'subscriptions',
        where: 'user_id = $1 AND id = $2',
        keys: [userId, id],
        userIdColumn: 'user_id',
        audit,
        ifVersion,
        dependents: DELETE_SUBSCRIPTION_SITE_KEYS,
        on: client,
      });
    });
  }

  async function lapseSubscriptions(now: number, audit: AuditContext, limit: number): Promise<number> {
    const params: unknown[] = [new Date(now * 1000), limit];
    const record = auditInsert(params, audit, {
      action: 'expire',
      resourceType: 'subscriptions',
      userIdColumn: 'user_id',
      from: 'l',
    });
    // SKIP LOCKED: processes lapsing at once take different subscriptions. Citus cannot lock rows
    // of several shards in a SELECT, so there a second process waits on the first one's row locks
    // instead, and `NOT s.expired`, checked again once they are released, leaves those rows to it:
    // either way a subscription lapses once, with one event.
    const rows = await database.rows(
      `WITH due AS (
         SELECT user_id, id FROM subscriptions WHERE NOT expired AND date_ended <= $1
         ORDER BY date_ended LIMIT $2 ${database.citus ? '' : 'FOR UPDATE SKIP LOCKED'}
       ), l AS (
         UPDATE subscriptions s SET expired = true, version = s.version + 1, updated_at = now()
         FROM due WHERE s.user_id = due.user_id AND s.id = due.id AND NOT s.expired
         RETURNING s.id, s.user_id
       ), a AS (${record})
       SELECT count(*)::int AS n FROM l`,
      params,
    );
    return Number(rows[0]?.n ?? 0);
  }

  async function clearPendingStarts(now: number, limit: number): Promise<number> {
    const at = new Date(now * 1000);
    // Looked for first: every serving process asks every minute, mostly to find nothing, and on
    // Citus the update below writes to every shard even when it changes no row.
    if ((await database.rows('SELECT 1 FROM subscriptions WHERE pending_start <= $1 LIMIT 1', [at])).length === 0) {
      return 0;
    }
    // Any number of processes may clear at once: each row ends the same whoever clears it. The
    // start is compared again once a concurrent write's lock is released: one moved into the
    // future meanwhile keeps its hint.
    return database.changes(
      `UPDATE subscriptions s SET pending_start = NULL
       FROM (SELECT user_id, id FROM subscriptions WHERE pending_start <= $1 LIMIT $2) begun
       WHERE s.user_id = begun.user_id AND s.id = begun.id AND s.pending_start <= $1`,
      [at, limit],
    );
  }

  return {
    create: createSubscription,
    list: listSubscriptions,
    activeOf: activeSubscriptionsOf,
    listOfUsers: listSubscriptionsOfUsers,
    countsOfUsers: subscriptionCountsOfUsers,
    usersWithActive: usersWithActiveSubscriptions,
    get: getSubscription,
    update: updateSubscription,
    expire: expireSubscription,
    delete: deleteSubscription,
    lapse: lapseSubscriptions,
    clearPendingStarts,
  };
}

/**
 * A subscription's values as $1…$13: user id, dates as Dates, the rest as they are, then
 * pending_start, delivery_days, and a site licence's ip_ranges, email_domains and seats.
 */
export function subscriptionParams(userId: string, v: SubscriptionValues): unknown[] {
  return [
    userId,
    instant(v.dateStarted),
    instant(v.dateEnded),
    v.externalIdentifier,
    v.license,
    v.resource,
    v.trial,
    v.productId,
    instant(pendingStart(v.dateStarted)),
    v.deliveryDays,
    listText(v.ipRanges),
    listText(v.emailDomains),
    v.seats,
  ];
}

function instant(seconds: number | null): Date | null {
  return seconds === null ? null : new Date(seconds * 1000);
}
