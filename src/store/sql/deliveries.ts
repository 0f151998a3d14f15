/**
 * The print run as every adapter reads it: the subscriptions delivered on a date (giving print,
 * their term touching it, one of their delivery days, not held), each to the address in force
 * that date (the reader's temporary address covering it, else their own: a whole address either
 * way, never fields of both), in subscription id order from a cursor; and the same counted by
 * product and postal code. The date's weekday is one bit, tested against the subscription's mask
 * and, by the few products whose mask lacks it, its product's. A reader's temporary addresses
 * never overlap, so the join adds no row.
 *
 * Whether a subscription is in the run is decided from its own row and keyed probes beside it
 * (holds, redeliveries, the products' constant lists), never from a joined row: a page walks the
 * subscriptions in id order past the cursor, and most it walks are not delivered that date, so
 * the reader, the temporary address and the redelivery counts are read only for the rows the page
 * keeps. With a joined row in the condition every row walked was joined first, and PostgreSQL
 * scanned and sorted every subscription past the cursor.
 *
 * A page of a run to come walks only the subscriptions that may be in it by their own row, by a
 * partial index of them in id order (migration 37): not expired, and giving print or naming no
 * resource (a product's, then, which the products' constant list decides). It walked every
 * subscription before, online and long expired ones included, to find its hundred.
 *
 * A redelivery (a complaint's `redeliver`) is not a row of its own: the run's one row of its
 * subscription is marked `redelivery` and carries a copy more for each, and a subscription not
 * delivered that date is in the run for its redeliveries alone. So a run stays one row per
 * subscription, paged by subscription id, and its copies add up in the draw report. A
 * redelivery goes out as every delivery does, to a subscription still giving print and, on a
 * date to come, not expired.
 */
import { RECIPIENT_NAME_FIELDS, type Delivery, type DrawCount, type RunDate } from '../../domain/delivery.js';
import { EVERY_DAY, weekdayBit } from '../../domain/delivery-days.js';
import { nowInSeconds } from '../../domain/dates.js';
import { formatDate } from '../../domain/publication.js';
import type { RenderedDelivery, RunPageQuery } from '../ports/deliveries.js';
import { join, raw, sql, type Dialect, type Sql } from './builder.js';
import { deliveryJson } from './delivery-json.js';
import { boolean, instantValue, type Row } from './rows.js';
import { givesCondition } from './subscriptions.js';
import { ADDRESS_COLUMNS, addressOf } from './temporary-addresses.js';
import { columnOf } from './users.js';

/** The reader's name, as the users table keeps its parts. */
const RECIPIENT_COLUMNS = RECIPIENT_NAME_FIELDS.map(columnOf);

/** An address column of the address in force: the temporary address's when one covers the date. */
export const inForce = (column: string) => `CASE WHEN t.id IS NULL THEN u.${column} ELSE t.${column} END`;

/**
 * What a run's statement writes of its date: one run's values (its weekday's bit spliced as text,
 * as a planner needs it to read the products' constant list), or the columns of a kept run's row
 * `k` (kept-runs.ts), so that one statement keeps every run's deliveries as a page reads them.
 */
export interface RunTerms {
  /** The date's day number. */
  date: unknown;
  /** The date as a delivery's text writes it (YYYY-MM-DD). */
  text: unknown;
  startsAt: unknown;
  endsAt: unknown;
  bit: Sql;
}

function termsOf(run: RunDate, dialect: Dialect): RunTerms {
  return {
    date: run.date,
    text: formatDate(run.date),
    startsAt: instantValue(dialect, run.startsAt),
    endsAt: instantValue(dialect, run.endsAt),
    bit: raw(String(weekdayBit(run.date))),
  };
}

/**
 * What a subscription `s` must be to be in a run at all: giving print and, for a run that begins
 * after now (`toCome`), not expired. An expired subscription is delivered on no date to come
 * (expiring it ended its term, and a term moved later since does not revive it); a run begun or
 * past still shows those it delivered. A run to come walks the partial index of migration 38,
 * whose terms are spelled out as its definition spells them, which a planner needs to use it: the
 * mark that a subscription gives print, which narrows the walk to those, while what it gives is
 * still asked of its own resource and its product.
 */
export function runGate(toCome: boolean): Sql[] {
  const gives = givesCondition('s', 'print');
  if (!toCome) return [gives];
  return [sql`s.gives_print = true`, sql`s.expired = false`, gives];
}

/** The conditions of a subscription `s` past the run's gate delivered on its date, on its own row and keyed probes. */
export function deliveredConditions(run: RunTerms): Sql[] {
  const { bit } = run;
  return [
    sql`s.date_started < ${run.endsAt}`,
    sql`(s.date_ended IS NULL OR s.date_ended > ${run.startsAt})`,
    sql`(coalesce(s.delivery_days, ${raw(String(EVERY_DAY))}) & ${bit}) <> 0`,
    sql`(s.product_id IS NULL OR s.product_id NOT IN
      (SELECT id FROM products WHERE (coalesce(delivery_days, ${raw(String(EVERY_DAY))}) & ${bit}) = 0))`,
    sql`NOT EXISTS (SELECT 1 FROM holds h WHERE h.user_id = s.user_id AND h.subscription_id = s.id
      AND h.start_date <= ${run.date} AND h.end_date >= ${run.date} AND h.withdrawn = false)`,
  ];
}

/** The temporary address `t` of the reader of `s` covering the run's date, if any. */
export function temporaryAddressJoin(run: RunTerms): Sql {
  return sql`LEFT JOIN temporary_addresses t ON t.user_id = s.user_id AND t.start_date <= ${run.date}
      AND t.end_date >= ${run.date}`;
}

/**
 * A run's subscriptions with their reader and the temporary address covering the date (if any),
 * and, unless left out, the copies redelivered on it (`r`, if any: few rows, read by the
 * redelivery date's index).
 */
function from(run: RunTerms, redeliveries = true): Sql {
  const subscriptions = sql`subscriptions s JOIN users u ON u.id = s.user_id
    ${temporaryAddressJoin(run)}`;
  if (!redeliveries) return subscriptions;
  return sql`${subscriptions}
    LEFT JOIN (SELECT user_id, subscription_id, count(*) AS copies FROM delivery_complaints
      WHERE redelivery_date = ${run.date} GROUP BY user_id, subscription_id) r
      ON r.user_id = s.user_id AND r.subscription_id = s.id`;
}

/**
 * In the run: delivered that date, or redelivered on it. Most subscriptions a page walks are not
 * delivered, so each asks the redeliveries. SQLite reads the date's few redeliveries once into a
 * list (a Bloom filter in front of it) that each row asks, rather than probing the complaints'
 * index from every row (about a tenth of a page's statement on the benchmark's data). PostgreSQL
 * probes by the subscription's key, which on Citus stays on the subscription's shard.
 */
export function inRun(run: RunTerms, delivered: Sql, dialect: Dialect): Sql {
  if (dialect === 'sqlite') {
    return sql`((${delivered}) OR s.id IN
      (SELECT c.subscription_id FROM delivery_complaints c WHERE c.redelivery_date = ${run.date}))`;
  }
  return sql`((${delivered}) OR EXISTS (SELECT 1 FROM delivery_complaints c WHERE c.user_id = s.user_id
      AND c.subscription_id = s.id AND c.redelivery_date = ${run.date}))`;
}

/**
 * The copies of a subscription in the run: its delivery, if it is delivered that date, and its
 * redeliveries. A row of the run without redeliveries is in it for its delivery, so only the few
 * with redeliveries test the conditions (the hold's anti-join among them) a second time.
 */
export function copies(delivered: Sql): Sql {
  return sql`(CASE WHEN r.copies IS NULL THEN 1 ELSE r.copies + CASE WHEN ${delivered} THEN 1 ELSE 0 END END)`;
}

export function runPageQuery(run: RunDate, query: RunPageQuery, dialect: Dialect, now = nowInSeconds()): Sql {
  const address = ADDRESS_COLUMNS.map((column) => `${inForce(column)} AS ${column}`).join(', ');
  const recipient = RECIPIENT_COLUMNS.map((column) => `u.${column}`).join(', ');
  return runPage(
    run,
    query,
    dialect,
    now,
    (copies) => sql`s.id, s.user_id, s.product_id, ${raw(recipient)}, ${raw(address)},
    ${copies} AS copies, r.copies IS NOT NULL AS redelivery`,
  );
}

/** A page of the run as the JSON text of each delivery's resource object (delivery-json.ts), with its subscription's id. */
export function renderedRunPageQuery(run: RunDate, query: RunPageQuery, dialect: Dialect, now = nowInSeconds()): Sql {
  const address = (field: string) => inForce(columnOf(field));
  return runPage(
    run,
    query,
    dialect,
    now,
    (copies) => sql`s.id, ${deliveryJson(dialect, termsOf(run, dialect).text, address, copies)} AS json`,
  );
}

/** A page of the run from its cursor, selecting what `columns` names given the SQL of a delivery's copies. */
function runPage(run: RunDate, query: RunPageQuery, dialect: Dialect, now: number, columns: (copies: Sql) => Sql): Sql {
  const terms = termsOf(run, dialect);
  const delivered = join(deliveredConditions(terms), ' AND ');
  const conditions = [...runGate(run.startsAt > now), inRun(terms, delivered, dialect)];
  if (query.afterId !== undefined) conditions.push(sql`s.id > ${query.afterId}`);
  if (query.product !== undefined) conditions.push(sql`s.product_id = ${query.product}`);
  if (query.postalCode !== undefined) {
    conditions.push(sql`${raw(inForce('address_postal_code'))} = ${query.postalCode}`);
  }
  return sql`SELECT ${columns(copies(delivered))}
    FROM ${from(terms)}
    WHERE ${join(conditions, ' AND ')} ORDER BY s.id LIMIT ${query.limit}`;
}

export function toRenderedDelivery(row: Row): RenderedDelivery {
  return { subscriptionId: String(row.id), json: row.json as string };
}

export function toDelivery(row: Row): Delivery {
  return {
    subscriptionId: String(row.id),
    userId: String(row.user_id),
    productId: (row.product_id ?? null) as string | null,
    recipient: Object.fromEntries(
      RECIPIENT_NAME_FIELDS.map((field, i) => [field, (row[RECIPIENT_COLUMNS[i] as string] ?? null) as string | null]),
    ) as Delivery['recipient'],
    address: addressOf(row),
    redelivery: boolean(row.redelivery),
    copies: Number(row.copies),
  };
}

/**
 * The copies of the run's deliveries by product and postal code, those delivered that date and the
 * redeliveries apart: the two are two plain GROUP BYs (the first as before redeliveries, the hold
 * check an anti-join), which the draw report adds up by key.
 */
export function drawCountQueries(run: RunDate, dialect: Dialect, now = nowInSeconds()): Sql[] {
  const postalCode = raw(inForce('address_postal_code'));
  const terms = termsOf(run, dialect);
  const gate = join(runGate(run.startsAt > now), ' AND ');
  const delivered = join(deliveredConditions(terms), ' AND ');
  return [
    sql`SELECT s.product_id, ${postalCode} AS postal_code, count(*) AS copies FROM ${from(terms, false)}
      WHERE ${gate} AND ${delivered} GROUP BY s.product_id, ${postalCode}`,
    sql`SELECT s.product_id, ${postalCode} AS postal_code, sum(r.copies) AS copies FROM ${from(terms)}
      WHERE ${gate} AND r.copies IS NOT NULL GROUP BY s.product_id, ${postalCode}`,
  ];
}

export function toDrawCount(row: Row): DrawCount {
  return {
    productId: (row.product_id ?? null) as string | null,
    postalCode: (row.postal_code ?? null) as string | null,
    copies: Number(row.copies),
  };
}
