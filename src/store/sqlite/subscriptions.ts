/**
 * Subscriptions on SQLite.
 */
import type { AuditContext } from '../../domain/audit.js';
import { lowersSeats, requireSeatsGiven } from '../../domain/seat.js';
import { PRODUCT_POINTER } from '../../domain/catalogue.js';
import type { SubscriptionFilter } from '../../domain/entitlement.js';
import type { StoredSubscription, SubscriptionValues } from '../../domain/subscription.js';
import type { IfVersion, SubscriptionPageQuery, SubscriptionStore } from '../port.js';
import type { Row } from '../sql/rows.js';
import { raw } from '../sql/builder.js';
import {
  activeSubscriptionsOfUser,
  activeUsersQuery,
  givesPrintOnUpdate,
  givesPrintValue,
  listText,
  pendingStart,
  SUBSCRIPTION_COLUMNS,
  subscriptionColumnsOf,
  subscriptionCountsQuery,
  subscriptionPage,
  toActiveSubscription,
  toStoredSubscription,
  toSubscriptionCount,
} from '../sql/subscriptions.js';
import { siteKeysChange } from '../sql/site-licences.js';
import { requireVersion } from '../ports/versions.js';
import type { SqliteDatabase } from './database.js';
import type { SqliteReferences } from './references.js';
import { DELETE_SUBSCRIPTION_SITE_KEYS, sqliteSiteKeys } from './site-licences.js';

export function sqliteSubscriptions(database: SqliteDatabase, references: SqliteReferences): SubscriptionStore {
  const { db } = database;
  const siteKeys = sqliteSiteKeys(database);

  const insert = db.prepare(`${INSERT_SUBSCRIPTION} RETURNING ${SUBSCRIPTION_COLUMNS}`);

  const userExists = db.prepare('SELECT 1 FROM users WHERE id = ?');

  /** Registers or refuses the product a write newly names (see references.ts). */
  function attachProduct(productId: string | null, audit: AuditContext): void {
    if (productId !== null) references.attach('products', [{ id: productId, pointer: PRODUCT_POINTER }], audit);
  }

  async function createSubscription(
    userId: string,
    values: SubscriptionValues,
    audit: AuditContext,
  ): Promise<StoredSubscription | undefined> {
    // Immediate: it reads before it writes, and another process must not write in between.
    return db
      .transaction(() => {
        if (!userExists.get(userId)) return undefined;
        attachProduct(values.productId, audit);
        const created = toStoredSubscription(insert.get(subscriptionParams(userId, values)) as Row);
        if (siteKeysChange(undefined, created)) siteKeys.write(userId, created.id, created);
        database.record(audit, { action: 'create', resourceType: 'subscriptions', resourceId: created.id, userId });
        return created;
      })
      .immediate();
  }

  async function listSubscriptions(userId: string, query: SubscriptionPageQuery) {
    return db.transaction((): StoredSubscription[] | undefined => {
      // The user first, so that "no such user" and "no subscriptions" differ.
      if (!userExists.get(userId)) return undefined;
      return database.all(subscriptionPage(userId, query, 'sqlite')).map(toStoredSubscription);
    })();
  }

  // Prepared once with named placeholders: the access check is the hottest read, and building its
  // text on every call cost a noticeable part of what the query itself did under load.
  const selectActive = database.statement(activeSubscriptionsOfUser(raw('@user'), raw('@at'))).statement;

  async function activeSubscriptionsOf(userId: string, now: number) {
    const rows = selectActive.all({ user: userId, at: now }) as Row[];
    // Only when there are none is the user's row read: a subscription's user always exists.
    if (rows.length === 0 && !userExists.get(userId)) return undefined;
    return rows.map(toActiveSubscription);
  }

  const selectOfUsers = db.prepare(`
    SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions
    WHERE user_id IN (SELECT value FROM json_each(?)) ORDER BY id`);
  // Each user's first few, read through the (user_id, id) index for each user alone.
  const selectFirstOfUsers = db.prepare(`
    SELECT ${subscriptionColumnsOf('s')} FROM json_each(?) u
    JOIN subscriptions s ON s.id IN (SELECT id FROM subscriptions WHERE user_id = u.value ORDER BY id LIMIT ?)
    ORDER BY s.id`);

  async function listSubscriptionsOfUsers(userIds: readonly string[], perUser?: number) {
    const rows =
      perUser === undefined
        ? selectOfUsers.all(JSON.stringify(userIds))
        : selectFirstOfUsers.all(JSON.stringify(userIds), perUser);
    return (rows as Row[]).map(toStoredSubscription);
  }

  async function subscriptionCountsOfUsers(userIds: readonly string[], filter: SubscriptionFilter) {
    if (userIds.length === 0) return [];
    return database.all(subscriptionCountsQuery(userIds, filter, 'sqlite')).map(toSubscriptionCount);
  }

  async function usersWithActiveSubscriptions(userIds: readonly string[], at: number): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    return new Set(database.all(activeUsersQuery(userIds, at, 'sqlite')).map((row) => String(row.id)));
  }

  const selectOne = db.prepare(`SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE user_id = ? AND id = ?`);

  async function getSubscription(userId: string, id: string): Promise<StoredSubscription | undefined> {
    const row = selectOne.get(userId, id) as Row | undefined;
    return row && toStoredSubscription(row);
  }

  const update = db.prepare(`
    UPDATE subscriptions SET date_started = @date_started, pending_start = @pending_start, date_ended = @date_ended,
      external_identifier = @external_identifier, license = @license, resource = @resource,
      trial = @trial, product_id = @product_id, delivery_days = @delivery_days, ip_ranges = @ip_ranges,
      email_domains = @email_domains, seats = @seats,
      gives_print = ${givesPrintOnUpdate('@resource', '@product_id', 'sqlite')},
      version = version + 1, updated_at = unixepoch()
    WHERE user_id = @user_id AND id = @id
    RETURNING ${SUBSCRIPTION_COLUMNS}`);

  const seatsGiven = db.prepare('SELECT count(*) FROM seats WHERE user_id = ? AND subscription_id = ?').pluck();

  async function updateSubscription(
    userId: string,
    id: string,
    change: (current: SubscriptionValues) => SubscriptionValues,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<StoredSubscription | undefined> {
    return db
      .transaction(() => {
        const row = selectOne.get(userId, id) as Row | undefined;
        if (!row) return undefined;
        const current = toStoredSubscription(row);
        requireVersion(current.version, ifVersion);
        const next = change(current);
        if (lowersSeats(current.seats, next.seats)) requireSeatsGiven(next.seats, Number(seatsGiven.get(userId, id)));
        if (next.productId !== current.productId) attachProduct(next.productId, audit);
        const updated = update.get({ ...subscriptionParams(userId, next), id }) as Row;
        if (siteKeysChange(current, next)) siteKeys.write(userId, id, next);
        database.record(audit, { action: 'update', resourceType: 'subscriptions', resourceId: id, userId });
        return toStoredSubscription(updated);
      })
      .immediate();
  }

  const version = db.prepare('SELECT version FROM subscriptions WHERE user_id = ? AND id = ?').pluck();
  const expire = db.prepare(`
    UPDATE subscriptions SET expired = 1, date_ended = ?, version = version + 1, updated_at = unixepoch()
    WHERE user_id = ? AND id = ? AND expired = 0`);

  async function expireSubscription(
    userId: string,
    id: string,
    now: number,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<StoredSubscription | undefined> {
    return db.transaction(() => {
      if (!database.meetsPrecondition(version, [userId, id], ifVersion)) return undefined;
      if (expire.run(now, userId, id).changes > 0)
        database.record(audit, { action: 'expire', resourceType: 'subscriptions', resourceId: id, userId });
      const row = selectOne.get(userId, id) as Row | undefined;
      return row && toStoredSubscription(row);
    })();
  }

  const remove = db.prepare('DELETE FROM subscriptions WHERE user_id = ? AND id = ?');
  const removeSiteKeys = DELETE_SUBSCRIPTION_SITE_KEYS.map((text) => db.prepare(text));

  async function deleteSubscription(userId: string, id: string, audit: AuditContext, ifVersion?: IfVersion) {
    return database.deleteRow({
      version,
      remove,
      keys: [userId, id],
      ifVersion,
      record: () => database.record(audit, { action: 'delete', resourceType: 'subscriptions', resourceId: id, userId }),
      dependents: removeSiteKeys,
    });
  }

  const due = db.prepare(`
    SELECT id, user_id FROM subscriptions WHERE expired = 0 AND date_ended <= ? ORDER BY date_ended LIMIT ?`);
  const lapse = db.prepare(
    'UPDATE subscriptions SET expired = 1, version = version + 1, updated_at = unixepoch() WHERE id = ? AND expired = 0',
  );

  const clearPending = db.prepare(`
    UPDATE subscriptions SET pending_start = NULL
    WHERE id IN (SELECT id FROM subscriptions WHERE pending_start <= ? LIMIT ?)`);

  async function clearPendingStarts(now: number, limit: number): Promise<number> {
    return clearPending.run(now, limit).changes;
  }

  async function lapseSubscriptions(now: number, audit: AuditContext, limit: number): Promise<number> {
    return db
      .transaction(() => {
        const lapsing = due.all(now, limit) as { id: number; user_id: number }[];
        for (const { id, user_id } of lapsing) {
          lapse.run(id);
          database.record(audit, {
            action: 'expire',
            resourceType: 'subscriptions',
            resourceId: String(id),
            userId: String(user_id),
          });
        }
        return lapsing.length;
      })
      .immediate();
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

/** A new subscription, from `subscriptionParams`. */
export const INSERT_SUBSCRIPTION = `
  INSERT INTO subscriptions (user_id, date_started, pending_start, date_ended, external_identifier, license,
    resource, trial, product_id, delivery_days, ip_ranges, email_domains, seats, gives_print)
  VALUES (@user_id, @date_started, @pending_start, @date_ended, @external_identifier, @license, @resource, @trial,
    @product_id, @delivery_days, @ip_ranges, @email_domains, @seats, ${givesPrintValue('@resource', '@product_id', 'sqlite')})`;

/** A subscription's values as named parameters (booleans as 0 and 1). */
export function subscriptionParams(userId: string, v: SubscriptionValues): Row {
  return {
    user_id: userId,
    date_started: v.dateStarted,
    pending_start: pendingStart(v.dateStarted),
    date_ended: v.dateEnded,
    external_identifier: v.externalIdentifier,
    license: v.license,
    resource: v.resource,
    trial: v.trial ? 1 : 0,
    product_id: v.productId,
    delivery_days: v.deliveryDays,
    ip_ranges: listText(v.ipRanges),
    email_domains: listText(v.emailDomains),
    seats: v.seats,
  };
}
