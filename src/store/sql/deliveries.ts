/**
 * The print run as every adapter reads it: the subscriptions delivered on a date (giving print,
 * their term touching it, one of their delivery days, not held), each to the address in force
 * that date (the reader's temporary address covering it, else their own: a whole address either
 * way, never fields of both), in subscription id order from a cursor; and the same counted by
 * product and postal code. The date's weekday is one bit, tested against the subscription's and
 * its product's masks. A reader's temporary addresses never overlap, so the join adds no row.
 */
import type { Delivery, DrawCount, RunDate } from '../../domain/delivery.js';
import { EVERY_DAY, weekdayBit } from '../../domain/delivery-days.js';
import type { RunPageQuery } from '../ports/deliveries.js';
import { join, raw, sql, type Dialect, type Sql } from './builder.js';
import { instantValue, type Row } from './rows.js';
import { givesCondition } from './subscriptions.js';
import { ADDRESS_COLUMNS, addressOf } from './temporary-addresses.js';

/** An address column of the address in force: the temporary address's when one covers the date. */
const inForce = (column: string) => `CASE WHEN t.id IS NULL THEN u.${column} ELSE t.${column} END`;

/** The conditions of a subscription `s` (with its product `p` and user `u`) delivered on the run's date. */
function deliveredConditions(run: RunDate, dialect: Dialect): Sql[] {
  return [
    sql`s.date_started < ${instantValue(dialect, run.endsAt)}`,
    sql`(s.date_ended IS NULL OR s.date_ended > ${instantValue(dialect, run.startsAt)})`,
    givesCondition('s', 'print'),
    sql`(coalesce(s.delivery_days, ${raw(String(EVERY_DAY))}) & coalesce(p.delivery_days, ${raw(String(EVERY_DAY))}) & ${raw(String(weekdayBit(run.date)))}) <> 0`,
    sql`NOT EXISTS (SELECT 1 FROM holds h WHERE h.user_id = s.user_id AND h.subscription_id = s.id
      AND h.start_date <= ${run.date} AND h.end_date >= ${run.date} AND h.withdrawn = false)`,
  ];
}

/** A run's subscriptions with their reader, product and the temporary address covering the date, if any. */
function from(run: RunDate): Sql {
  return sql`subscriptions s JOIN users u ON u.id = s.user_id LEFT JOIN products p ON p.id = s.product_id
    LEFT JOIN temporary_addresses t ON t.user_id = s.user_id AND t.start_date <= ${run.date}
      AND t.end_date >= ${run.date}`;
}

export function runPageQuery(run: RunDate, query: RunPageQuery, dialect: Dialect): Sql {
  const conditions = deliveredConditions(run, dialect);
  if (query.afterId !== undefined) conditions.push(sql`s.id > ${query.afterId}`);
  if (query.product !== undefined) conditions.push(sql`s.product_id = ${query.product}`);
  if (query.postalCode !== undefined) {
    conditions.push(sql`${raw(inForce('address_postal_code'))} = ${query.postalCode}`);
  }
  const address = ADDRESS_COLUMNS.map((column) => `${inForce(column)} AS ${column}`).join(', ');
  return sql`SELECT s.id, s.user_id, s.product_id, ${raw(address)} FROM ${from(run)}
    WHERE ${join(conditions, ' AND ')} ORDER BY s.id LIMIT ${query.limit}`;
}

export function toDelivery(row: Row): Delivery {
  return {
    subscriptionId: String(row.id),
    userId: String(row.user_id),
    productId: (row.product_id ?? null) as string | null,
    address: addressOf(row),
    redelivery: false,
    copies: 1,
  };
}

export function drawCountQuery(run: RunDate, dialect: Dialect): Sql {
  const postalCode = raw(inForce('address_postal_code'));
  return sql`SELECT s.product_id, ${postalCode} AS postal_code, count(*) AS copies FROM ${from(run)}
    WHERE ${join(deliveredConditions(run, dialect), ' AND ')} GROUP BY s.product_id, ${postalCode}`;
}

export function toDrawCount(row: Row): DrawCount {
  return {
    productId: (row.product_id ?? null) as string | null,
    postalCode: (row.postal_code ?? null) as string | null,
    copies: Number(row.copies),
  };
}
