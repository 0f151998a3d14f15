/**
 * Holds as every adapter keeps them: their columns (dates as day numbers), how a row reads back,
 * and the reads of a subscription's holds.
 */
import type { Compensation, StoredHold } from '../../domain/hold.js';
import { raw, sql, where, type Sql } from './builder.js';
import { boolean, type Row } from './rows.js';

export const HOLD_COLUMNS =
  'id, user_id, subscription_id, start_date, end_date, compensation, deliveries_missed, extended_days, withdrawn, version';

export function toStoredHold(row: Row): StoredHold {
  return {
    id: String(row.id),
    userId: String(row.user_id),
    subscriptionId: String(row.subscription_id),
    startDate: Number(row.start_date),
    endDate: Number(row.end_date),
    compensation: row.compensation as Compensation,
    deliveriesMissed: Number(row.deliveries_missed),
    extendedDays: Number(row.extended_days),
    withdrawn: boolean(row.withdrawn),
    version: Number(row.version),
  };
}

/** A subscription's holds in id order: those not withdrawn (every one, for the rules), or a page of all. */
export function holdsQuery(
  userId: string,
  subscriptionId: string,
  query: { afterId?: string; limit?: number; withdrawn?: false },
): Sql {
  const conditions = [sql`user_id = ${userId} AND subscription_id = ${subscriptionId}`];
  if (query.afterId !== undefined) conditions.push(sql`id > ${query.afterId}`);
  if (query.withdrawn === false) conditions.push(raw('withdrawn = false'));
  const limit = query.limit === undefined ? raw('') : sql`LIMIT ${query.limit}`;
  return sql`SELECT ${raw(HOLD_COLUMNS)} FROM holds ${where(conditions)} ORDER BY id ${limit}`;
}

export function holdQuery(userId: string, subscriptionId: string, id: string): Sql {
  return sql`SELECT ${raw(HOLD_COLUMNS)} FROM holds WHERE user_id = ${userId} AND subscription_id = ${subscriptionId}
    AND id = ${id}`;
}
