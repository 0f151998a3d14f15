/**
 * The print runs of the next dates, kept by the database (migration 40): each delivery of such a
 * run as the row a page reads, its text written, so that a page of the run a printer asks for the
 * night before reads a hundred rows in order rather than walking the subscriptions and writing
 * each delivery's text again (sql/deliveries.ts, which every other run still reads).
 *
 * A run is kept whole or not used: while it is built, triggers already keep its rows of every
 * reader whose deliveries a write may change (sqlite/kept-runs.ts), and a page reads it only once
 * it is complete. A kept row is written by the statement a page of the run writes, with the run's
 * date taken from its row `k` of `kept_runs` rather than given, so the two cannot differ.
 *
 * Only runs to come are kept: what a run begun delivers depends on the moment (an expired
 * subscription is left out of a run to come only), and a run's kept rows are no longer read once
 * it begins.
 */
import { nowInSeconds } from '../../domain/dates.js';
import { formatDate } from '../../domain/publication.js';
import type { RunDate } from '../../domain/delivery.js';
import { weekdayBit } from '../../domain/delivery-days.js';
import type { RenderedDelivery, RunPageQuery } from '../ports/deliveries.js';
import { join, raw, sql, type Dialect, type Sql } from './builder.js';
import {
  copies,
  deliveredConditions,
  inForce,
  inRun,
  runGate,
  temporaryAddressJoin,
  type RunTerms,
} from './deliveries.js';
import { deliveryJson } from './delivery-json.js';
import { instantValue, type Row } from './rows.js';
import { columnOf } from './users.js';

/** How far ahead of its beginning a run is kept when asked for: the run of tomorrow, asked tonight. */
export const KEPT_AHEAD_SECONDS = 2 * 24 * 60 * 60;

/** How long a claim to build a run (by a process that may have stopped) holds before another may take it over. */
export const BUILD_CLAIM_SECONDS = 10 * 60;

/** How many subscription ids one step of a build reads, and how many kept rows one step of a sweep deletes. */
export const BUILD_STEP = 5000;

/**
 * A kept run's state: its rows being cleared of an earlier one's (no write keeps them yet), being
 * built (every write keeps them, but a page does not read them), or complete.
 */
export const CLEARING = 0;
export const BUILDING = 1;
export const KEPT = 2;

/** The terms of a kept run, as the columns of its row `k`. */
const KEPT_TERMS: RunTerms = {
  date: raw('k.date'),
  text: raw('k.date_text'),
  startsAt: raw('k.starts_at'),
  endsAt: raw('k.ends_at'),
  bit: raw('k.weekday_bit'),
};

/** Whether a run to come is one kept when asked for, at `now`. */
export function keepable(run: RunDate, now: number): boolean {
  return run.startsAt > now && run.startsAt - now <= KEPT_AHEAD_SECONDS;
}

/** The columns of a kept delivery, in the order `keptDeliveriesQuery` selects them. */
export const KEPT_COLUMNS = 'date, subscription_id, user_id, product_id, postal_code, json';

/**
 * The deliveries of the kept runs `k` being built or complete, as their rows are kept, for the
 * subscriptions and runs `scope` narrows to (conditions on `k` and `s`); `redeliveries` narrows
 * the complaints read for the redeliveries (to a reader's, or a date's), as every complaint would
 * otherwise be counted for each statement.
 */
export function keptDeliveriesQuery(dialect: Dialect, scope: Sql, redeliveries: Sql): Sql {
  const delivered = join(deliveredConditions(KEPT_TERMS), ' AND ');
  const conditions = [
    sql`k.state > ${raw(String(CLEARING))}`,
    scope,
    ...runGate(true),
    inRun(KEPT_TERMS, delivered, dialect),
  ];
  const address = (field: string) => inForce(columnOf(field));
  return sql`SELECT k.date, s.id, s.user_id, s.product_id, ${raw(inForce('address_postal_code'))},
      ${deliveryJson(dialect, KEPT_TERMS.text, address, copies(delivered))}
    FROM kept_runs k JOIN subscriptions s ON ${join(conditions, ' AND ')}
      JOIN users u ON u.id = s.user_id
      ${temporaryAddressJoin(KEPT_TERMS)}
      LEFT JOIN (SELECT user_id, subscription_id, redelivery_date, count(*) AS copies FROM delivery_complaints
        WHERE ${redeliveries} GROUP BY user_id, subscription_id, redelivery_date) r
        ON r.user_id = s.user_id AND r.subscription_id = s.id AND r.redelivery_date = k.date`;
}

/**
 * How long after its date begins a run is still kept by the triggers, by the database's clock:
 * past any difference from the service's, whose pages read it until then. A run begun is read
 * from the subscriptions, and its rows go with the next build.
 */
export const KEPT_AFTER_BEGINNING_SECONDS = 60 * 60;

/** The runs the triggers keep (columns of `kept_runs`, prefixed by `alias`): being built or kept, and not begun an hour since. */
export function keptByTriggers(dialect: Dialect, alias = ''): string {
  const since =
    dialect === 'sqlite'
      ? `unixepoch() - ${KEPT_AFTER_BEGINNING_SECONDS}`
      : `now() - interval '${KEPT_AFTER_BEGINNING_SECONDS} seconds'`;
  return `${alias}state > ${CLEARING} AND ${alias}starts_at > ${since}`;
}

/** The deliveries of the readers `users` names (SQL of their ids) in every run the triggers keep. */
export function keptDeliveriesOfReaders(dialect: Dialect, users: string): Sql {
  return keptDeliveriesQuery(
    dialect,
    raw(`${keptByTriggers(dialect, 'k.')} AND s.user_id IN (${users})`),
    raw(`user_id IN (${users})`),
  );
}

/** The deliveries of one step of a run's build: its subscriptions with ids from after `afterId` to `lastId`. */
export function keptDeliveriesOfStep(dialect: Dialect, date: number, afterId: number, lastId: number): Sql {
  return keptDeliveriesQuery(
    dialect,
    sql`k.date = ${date} AND s.id > ${afterId} AND s.id <= ${lastId}`,
    sql`redelivery_date = ${date}`,
  );
}

/** The row of a run about to be kept, claimed by its builder at `now` and clearing. */
export function claimValues(run: RunDate, dialect: Dialect, now: number): unknown[] {
  return [
    run.date,
    formatDate(run.date),
    instantValue(dialect, run.startsAt),
    instantValue(dialect, run.endsAt),
    weekdayBit(run.date),
    CLEARING,
    instantValue(dialect, now),
  ];
}

/**
 * A page of a kept run, from its cursor, with the filters given; with `answering`, only if the run
 * may answer then (complete, and not begun), so that one round trip reads the page and whether
 * it is the run's.
 */
export function keptPageQuery(run: RunDate, query: RunPageQuery, answering?: { dialect: Dialect; now: number }): Sql {
  const conditions = [sql`date = ${run.date}`];
  if (query.afterId !== undefined) conditions.push(sql`subscription_id > ${query.afterId}`);
  if (query.product !== undefined) conditions.push(sql`product_id = ${query.product}`);
  if (query.postalCode !== undefined) conditions.push(sql`postal_code = ${query.postalCode}`);
  if (answering !== undefined) {
    conditions.push(sql`EXISTS (SELECT 1 FROM kept_runs WHERE date = ${run.date} AND state = ${raw(String(KEPT))}
      AND starts_at > ${instantValue(answering.dialect, answering.now)})`);
  }
  return sql`SELECT subscription_id, json FROM kept_deliveries WHERE ${join(conditions, ' AND ')}
    ORDER BY subscription_id LIMIT ${query.limit}`;
}

export function toKeptDelivery(row: Row): RenderedDelivery {
  return { subscriptionId: String(row.subscription_id), json: row.json as string };
}

/** Whether the kept run of `run` may answer a page at `now`: complete, and not begun. */
export function answers(state: number | undefined, run: RunDate, now = nowInSeconds()): boolean {
  return state === KEPT && run.startsAt > now;
}
