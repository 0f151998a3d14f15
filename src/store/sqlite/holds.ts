/**
 * Holds on SQLite. A write is one immediate transaction: no other process writes between the
 * read of the subscription and its holds and the write the rules allowed.
 */
import type { AuditContext } from '../../domain/audit.js';
import type { HoldContext, HoldPlan, HoldValues, StoredHold } from '../../domain/hold.js';
import type { PrintTerms } from '../../domain/print.js';
import type { HoldStore } from '../port.js';
import { holdQuery, holdsQuery, toStoredHold } from '../sql/holds.js';
import { printTermsQuery, TERM_MOVED, toPrintTerms } from '../sql/print.js';
import type { Row } from '../sql/rows.js';
import { requireVersion } from '../ports/versions.js';
import type { SqliteDatabase } from './database.js';

export function sqliteHolds(database: SqliteDatabase): HoldStore {
  const { db } = database;
  const { moveTerm, termsOf } = sqlitePrintTerms(database);

  const insert = db.prepare(`
    INSERT INTO holds (user_id, subscription_id, start_date, end_date, compensation, deliveries_missed, extended_days)
    VALUES (@user_id, @subscription_id, @start_date, @end_date, @compensation, @deliveries_missed, @extended_days)
    RETURNING id`);
  const update = db.prepare(`
    UPDATE holds SET start_date = @start_date, end_date = @end_date, compensation = @compensation,
      deliveries_missed = @deliveries_missed, extended_days = @extended_days, version = version + 1,
      updated_at = unixepoch()
    WHERE user_id = @user_id AND subscription_id = @subscription_id AND id = @id`);
  const withdraw = db.prepare(`
    UPDATE holds SET withdrawn = 1, version = version + 1, updated_at = unixepoch()
    WHERE user_id = ? AND subscription_id = ? AND id = ?`);

  const holdOf = (userId: string, subscriptionId: string, id: string) => {
    const [row] = database.all(holdQuery(userId, subscriptionId, id));
    return row && toStoredHold(row);
  };

  /** The subscription and its holds not withdrawn, or undefined when the user has no such subscription. */
  const contextOf = (userId: string, subscriptionId: string): HoldContext | undefined => {
    const terms = termsOf(userId, subscriptionId);
    if (!terms) return undefined;
    return { terms, others: database.all(holdsQuery(userId, subscriptionId, { withdrawn: false })).map(toStoredHold) };
  };

  async function createHold(
    userId: string,
    subscriptionId: string,
    plan: (context: HoldContext) => HoldPlan,
    audit: AuditContext,
  ): Promise<StoredHold | undefined> {
    return db
      .transaction(() => {
        const context = contextOf(userId, subscriptionId);
        if (!context) return undefined;
        const { values, dateEnded } = plan(context);
        const { id } = insert.get(holdParams(userId, subscriptionId, values)) as { id: number };
        database.record(audit, { action: 'create', resourceType: 'holds', resourceId: String(id), userId });
        moveTerm(userId, context.terms, dateEnded, audit);
        return holdOf(userId, subscriptionId, String(id));
      })
      .immediate();
  }

  async function listHolds(userId: string, subscriptionId: string, query: { afterId?: string; limit: number }) {
    return db.transaction(() => {
      if (!termsOf(userId, subscriptionId)) return undefined;
      return database.all(holdsQuery(userId, subscriptionId, query)).map(toStoredHold);
    })();
  }

  async function getHold(userId: string, subscriptionId: string, id: string) {
    return holdOf(userId, subscriptionId, id);
  }

  /**
   * A change of a hold in one immediate transaction: the hold read with its subscription's print
   * context, held to If-Match, then `change`d; undefined when either is not there.
   */
  function changing<T>(
    userId: string,
    subscriptionId: string,
    id: string,
    ifVersion: readonly number[] | undefined,
    change: (current: StoredHold, context: HoldContext) => T,
  ): T | undefined {
    return db
      .transaction(() => {
        const current = holdOf(userId, subscriptionId, id);
        const context = current && contextOf(userId, subscriptionId);
        if (!current || !context) return undefined;
        requireVersion(current.version, ifVersion);
        return change(current, context);
      })
      .immediate();
  }

  async function updateHold(
    userId: string,
    subscriptionId: string,
    id: string,
    plan: Parameters<HoldStore['update']>[3],
    audit: AuditContext,
    ifVersion?: readonly number[],
  ): Promise<StoredHold | undefined> {
    return changing(userId, subscriptionId, id, ifVersion, (current, context) => {
      const { values, dateEnded } = plan(current, context);
      update.run({ ...holdParams(userId, subscriptionId, values), id });
      database.record(audit, { action: 'update', resourceType: 'holds', resourceId: id, userId });
      moveTerm(userId, context.terms, dateEnded, audit);
      return holdOf(userId, subscriptionId, id);
    });
  }

  async function withdrawHold(
    userId: string,
    subscriptionId: string,
    id: string,
    plan: Parameters<HoldStore['withdraw']>[3],
    audit: AuditContext,
    ifVersion?: readonly number[],
  ): Promise<StoredHold | undefined> {
    return changing(userId, subscriptionId, id, ifVersion, (current, context) => {
      if (current.withdrawn) return current;
      const dateEnded = plan(current, context);
      withdraw.run(userId, subscriptionId, id);
      database.record(audit, { action: 'withdraw', resourceType: 'holds', resourceId: id, userId });
      moveTerm(userId, context.terms, dateEnded, audit);
      return holdOf(userId, subscriptionId, id);
    });
  }

  return { create: createHold, list: listHolds, get: getHold, update: updateHold, withdraw: withdrawHold };
}

function holdParams(userId: string, subscriptionId: string, v: HoldValues): Row {
  return {
    user_id: userId,
    subscription_id: subscriptionId,
    start_date: v.startDate,
    end_date: v.endDate,
    compensation: v.compensation,
    deliveries_missed: v.deliveriesMissed,
    extended_days: v.extendedDays,
  };
}

/** A subscription's print terms, and its term's end moved, within a write's transaction. */
export function sqlitePrintTerms(database: SqliteDatabase) {
  const moveEnd = database.db.prepare(
    'UPDATE subscriptions SET date_ended = ?, version = version + 1, updated_at = unixepoch() WHERE user_id = ? AND id = ?',
  );
  return {
    termsOf(userId: string, subscriptionId: string): PrintTerms | undefined {
      const [row] = database.all(printTermsQuery(userId, subscriptionId));
      return row && toPrintTerms(row);
    },
    /** Gives the subscription this end, recorded as its update, when it is not the end it has. */
    moveTerm(userId: string, terms: PrintTerms, dateEnded: number | null, audit: AuditContext): void {
      if (dateEnded === terms.dateEnded) return;
      moveEnd.run(dateEnded, userId, terms.id);
      database.record(
        { actor: audit.actor, attributes: TERM_MOVED },
        { action: 'update', resourceType: 'subscriptions', resourceId: terms.id, userId },
      );
    },
  };
}
