/**
 * Holds on PostgreSQL. A write is one transaction that first locks the subscription's row: writes
 * to one subscription's holds queue behind each other, and each sees those before it. Every
 * statement names the user, so on Citus the transaction stays on the user's shard.
 */
import { requireVersion } from '../ports/versions.js';
import type pg from 'pg';
import type { AuditContext } from '../../domain/audit.js';
import type { HoldContext, HoldPlan, HoldValues, StoredHold } from '../../domain/hold.js';
import type { PrintTerms } from '../../domain/print.js';
import type { HoldStore, IfVersion } from '../port.js';
import { HOLD_COLUMNS, holdQuery, holdsQuery, toStoredHold } from '../sql/holds.js';
import { printTermsQuery, TERM_MOVED, toPrintTerms } from '../sql/print.js';
import type { Row } from '../sql/rows.js';
import { auditInsert, rowsOn, type PostgresDatabase } from './database.js';

export function postgresHolds(database: PostgresDatabase): HoldStore {
  const { moveTerm, lockedTerms } = postgresPrintTerms();

  const holdOn = async (client: pg.ClientBase, userId: string, subscriptionId: string, id: string) => {
    const [row] = await rowsOn(client, holdQuery(userId, subscriptionId, id));
    return row && toStoredHold(row);
  };

  /** The subscription, locked, and its holds not withdrawn; undefined when the user has no such subscription. */
  const contextOn = async (client: pg.ClientBase, userId: string, subscriptionId: string) => {
    const terms = await lockedTerms(client, userId, subscriptionId);
    if (!terms) return undefined;
    const others = (await rowsOn(client, holdsQuery(userId, subscriptionId, { withdrawn: false }))).map(toStoredHold);
    return { terms, others } satisfies HoldContext;
  };

  async function createHold(
    userId: string,
    subscriptionId: string,
    plan: (context: HoldContext) => HoldPlan,
    audit: AuditContext,
  ): Promise<StoredHold | undefined> {
    return database.transaction(async (client) => {
      const context = await contextOn(client, userId, subscriptionId);
      if (!context) return undefined;
      const { values, dateEnded } = plan(context);
      const params = [userId, subscriptionId, ...holdValues(values)];
      const record = auditInsert(params, audit, {
        action: 'create',
        resourceType: 'holds',
        userIdColumn: 'user_id',
        from: 'h',
      });
      const { rows } = await client.query(
        `WITH h AS (
           INSERT INTO holds (user_id, subscription_id, start_date, end_date, compensation, deliveries_missed,
             extended_days)
           VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${HOLD_COLUMNS}
         ), a AS (${record})
         SELECT * FROM h`,
        params,
      );
      await moveTerm(client, userId, context.terms, dateEnded, audit);
      return toStoredHold(rows[0] as Row);
    });
  }

  async function listHolds(userId: string, subscriptionId: string, query: { afterId?: string; limit: number }) {
    const [terms] = await database.rows(printTermsQuery(userId, subscriptionId));
    if (!terms) return undefined;
    return (await database.rows(holdsQuery(userId, subscriptionId, query))).map(toStoredHold);
  }

  async function getHold(userId: string, subscriptionId: string, id: string) {
    const [row] = await database.rows(holdQuery(userId, subscriptionId, id));
    return row && toStoredHold(row);
  }

  /** Runs `change` on the hold and its context, in a transaction with the subscription locked. */
  async function changing<T>(
    userId: string,
    subscriptionId: string,
    id: string,
    ifVersion: IfVersion,
    change: (client: pg.PoolClient, current: StoredHold, context: HoldContext) => Promise<T>,
  ): Promise<T | undefined> {
    return database.transaction(async (client) => {
      const context = await contextOn(client, userId, subscriptionId);
      const current = context && (await holdOn(client, userId, subscriptionId, id));
      if (!context || !current) return undefined;
      requireVersion(current.version, ifVersion);
      return change(client, current, context);
    });
  }

  async function updateHold(
    userId: string,
    subscriptionId: string,
    id: string,
    plan: (current: StoredHold, context: HoldContext) => HoldPlan,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<StoredHold | undefined> {
    return changing(userId, subscriptionId, id, ifVersion, async (client, current, context) => {
      const { values, dateEnded } = plan(current, context);
      const params = [userId, subscriptionId, ...holdValues(values), id];
      const record = auditInsert(params, audit, {
        action: 'update',
        resourceType: 'holds',
        userIdColumn: 'user_id',
        from: 'h',
      });
      const { rows } = await client.query(
        `WITH h AS (
           UPDATE holds SET start_date = $3, end_date = $4, compensation = $5, deliveries_missed = $6,
             extended_days = $7, version = version + 1, updated_at = now()
           WHERE user_id = $1 AND subscription_id = $2 AND id = $8 RETURNING ${HOLD_COLUMNS}
         ), a AS (${record})
         SELECT * FROM h`,
        params,
      );
      await moveTerm(client, userId, context.terms, dateEnded, audit);
      return toStoredHold(rows[0] as Row);
    });
  }

  async function withdrawHold(
    userId: string,
    subscriptionId: string,
    id: string,
    plan: (current: StoredHold, context: HoldContext) => number | null,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<StoredHold | undefined> {
    return changing(userId, subscriptionId, id, ifVersion, async (client, current, context) => {
      if (current.withdrawn) return current;
      const dateEnded = plan(current, context);
      const params: unknown[] = [userId, subscriptionId, id];
      const record = auditInsert(params, audit, {
        action: 'withdraw',
        resourceType: 'holds',
        userIdColumn: 'user_id',
        from: 'h',
      });
      const { rows } = await client.query(
        `WITH h AS (
           UPDATE holds SET withdrawn = true, version = version + 1, updated_at = now()
           WHERE user_id = $1 AND subscription_id = $2 AND id = $3 RETURNING ${HOLD_COLUMNS}
         ), a AS (${record})
         SELECT * FROM h`,
        params,
      );
      await moveTerm(client, userId, context.terms, dateEnded, audit);
      return toStoredHold(rows[0] as Row);
    });
  }

  return { create: createHold, list: listHolds, get: getHold, update: updateHold, withdraw: withdrawHold };
}

/** A hold's values as $3…$7. */
function holdValues(v: HoldValues): unknown[] {
  return [v.startDate, v.endDate, v.compensation, v.deliveriesMissed, v.extendedDays];
}

/** A subscription's print terms, locked, and its term's end moved, on a write's connection. */
export function postgresPrintTerms() {
  return {
    /**
     * The subscription's row locked, then read with its product's: on Citus a row lock is taken
     * in a statement of the distributed table alone, never with a reference table beside it.
     */
    async lockedTerms(client: pg.ClientBase, userId: string, subscriptionId: string): Promise<PrintTerms | undefined> {
      const locked = await client.query('SELECT 1 FROM subscriptions WHERE user_id = $1 AND id = $2 FOR UPDATE', [
        userId,
        subscriptionId,
      ]);
      if (locked.rowCount === 0) return undefined;
      const [row] = await rowsOn(client, printTermsQuery(userId, subscriptionId));
      return row && toPrintTerms(row);
    },
    /** Gives the subscription this end, recorded as its update, when it is not the end it has. */
    async moveTerm(
      client: pg.ClientBase,
      userId: string,
      terms: PrintTerms,
      dateEnded: number | null,
      audit: AuditContext,
    ): Promise<void> {
      if (dateEnded === terms.dateEnded) return;
      const params: unknown[] = [userId, terms.id, dateEnded === null ? null : new Date(dateEnded * 1000)];
      const record = auditInsert(
        params,
        { actor: audit.actor, attributes: TERM_MOVED },
        { action: 'update', resourceType: 'subscriptions', userIdColumn: 'user_id', from: 's' },
      );
      await client.query(
        `WITH s AS (
           UPDATE subscriptions SET date_ended = $3, version = version + 1, updated_at = now()
           WHERE user_id = $1 AND id = $2 RETURNING id, user_id
         ), a AS (${record})
         SELECT 1`,
        params,
      );
    },
  };
}
