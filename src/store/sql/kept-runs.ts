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
import { instantValue, seconds, type Row } from './rows.js';
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

/** The tables whose rows name a reader whose deliveries a write of them may change: a trigger on each rewrites them. */
export const READERS_RECORDS = ['subscriptions', 'holds', 'temporary_addresses', 'delivery_complaints'] as const;

/** The columns of a product whose change reaches every subscription of it: a change of them drops every kept run. */
export const PRODUCT_COLUMNS = 'delivery_days, resource';

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

/**
 * The deliveries of the readers `users` names (SQL of their ids, in a trigger's body) in every
 * run the triggers keep, as the text of a statement with no parameter.
 */
export function keptDeliveriesOfReaders(dialect: Dialect, users: string): string {
  const { text, values } = keptDeliveriesQuery(
    dialect,
    raw(`${keptByTriggers(dialect, 'k.')} AND s.user_id IN (${users})`),
    raw(`user_id IN (${users})`),
  ).render(dialect);
  if (values.length > 0) throw new Error('a trigger of the kept runs would need a parameter');
  return text;
}

/** The deliveries of one step of a run's build: its subscriptions with ids from after `afterId` to `lastId`. */
export function keptDeliveriesOfStep(dialect: Dialect, date: number, afterId: number, lastId: number): Sql {
  return keptDeliveriesQuery(
    dialect,
    sql`k.date = ${date} AND s.id > ${afterId} AND s.id <= ${lastId}`,
    sql`redelivery_date = ${date}`,
  );
}

/** A run's row, as a builder reads it: its state, and when its builder last claimed it (epoch seconds). */
export interface Claim {
  state: number;
  claimedAt: number;
}

export function claimOfQuery(date: number): Sql {
  return sql`SELECT state, claimed_at FROM kept_runs WHERE date = ${date}`;
}

export function toClaim(row: Row | undefined): Claim | undefined {
  return row && { state: Number(row.state), claimedAt: seconds(row.claimed_at) };
}

/** Whether a builder holds the run at `now`, or it is kept: no other may claim it then. */
export function held(claim: Claim | undefined, now: number): boolean {
  return claim !== undefined && (claim.state === KEPT || now - claim.claimedAt < BUILD_CLAIM_SECONDS);
}

/** The run's row, claimed by its builder at `now` and clearing. */
export function claimQuery(run: RunDate, dialect: Dialect, now: number): Sql {
  return sql`INSERT INTO kept_runs (date, date_text, starts_at, ends_at, weekday_bit, state, claimed_at)
    VALUES (${run.date}, ${formatDate(run.date)}, ${instantValue(dialect, run.startsAt)},
      ${instantValue(dialect, run.endsAt)}, ${weekdayBit(run.date)}, ${raw(String(CLEARING))}, ${instantValue(dialect, now)})
    ON CONFLICT (date) DO UPDATE SET state = excluded.state, claimed_at = excluded.claimed_at`;
}

/** The runs that began by `now`: no page reads them again. */
export function dropBegunQuery(dialect: Dialect, now: number): Sql {
  return sql`DELETE FROM kept_runs WHERE starts_at <= ${instantValue(dialect, now)}`;
}

/**
 * Moves a run's claim from `from` into `to`, claimed again at `at`, if its builder still holds it
 * (claimed at `claimedAt`); changes no row otherwise.
 */
export function advanceQuery(
  date: number,
  dialect: Dialect,
  { from, to, claimedAt, at }: { from: number; to: number; claimedAt: number; at: number },
): Sql {
  return sql`UPDATE kept_runs SET state = ${to}, claimed_at = ${instantValue(dialect, at)}
    WHERE date = ${date} AND state = ${from} AND claimed_at = ${instantValue(dialect, claimedAt)}`;
}

/** The first date after `after` that rows are kept for, if any. */
export function nextKeptDateQuery(after: number): Sql {
  return sql`SELECT min(date) AS date FROM kept_deliveries WHERE date > ${after}`;
}

/** Whether a run of the date is being built or kept (so its rows are not to clear). */
export function keptOrBuildingQuery(date: number): Sql {
  return sql`SELECT 1 FROM kept_runs WHERE date = ${date} AND state > ${raw(String(CLEARING))}`;
}

/** A step of clearing the rows of a date no run is built or kept for. */
export function clearStepQuery(date: number): Sql {
  return sql`DELETE FROM kept_deliveries WHERE date = ${date} AND subscription_id IN
    (SELECT subscription_id FROM kept_deliveries WHERE date = ${date} LIMIT ${raw(String(BUILD_STEP))})`;
}

/** The last subscription id there is: a build steps through the ids up to it. */
export const LAST_SUBSCRIPTION = sql`SELECT coalesce(max(id), 0) AS last FROM subscriptions`;

/**
 * A page of a kept run, from its cursor, with the filters given, only if the run may answer at
 * `now` (complete, and not begun): one round trip reads the page and whether it is the run's.
 */
export function keptPageQuery(run: RunDate, query: RunPageQuery, dialect: Dialect, now: number): Sql {
  const conditions = [sql`date = ${run.date}`];
  if (query.afterId !== undefined) conditions.push(sql`subscription_id > ${query.afterId}`);
  if (query.product !== undefined) conditions.push(sql`product_id = ${query.product}`);
  if (query.postalCode !== undefined) conditions.push(sql`postal_code = ${query.postalCode}`);
  conditions.push(sql`EXISTS (SELECT 1 FROM kept_runs WHERE date = ${run.date} AND state = ${raw(String(KEPT))}
    AND starts_at > ${instantValue(dialect, now)})`);
  return sql`SELECT subscription_id, json FROM kept_deliveries WHERE ${join(conditions, ' AND ')}
    ORDER BY subscription_id LIMIT ${query.limit}`;
}

export function toKeptDelivery(row: Row): RenderedDelivery {
  return { subscriptionId: String(row.subscription_id), json: row.json as string };
}

/**
 * One build at a time in a process, in the background, until the store closes. A build that
 * fails leaves its claim to lapse, and pages read the subscriptions meanwhile.
 */
export class Builds {
  private underWay: Promise<void> | undefined;
  private closing = false;

  /** Whether a build should stop at its next step: the store is closing. */
  get stopped(): boolean {
    return this.closing;
  }

  /** Starts `build` unless one is under way or the store is closing. */
  start(build: () => Promise<void>): void {
    if (this.underWay !== undefined || this.closing) return;
    this.underWay = build()
      .catch(() => undefined)
      .finally(() => {
        this.underWay = undefined;
      });
  }

  /** Stops a build under way at its next step, and answers once it has. */
  async stop(): Promise<void> {
    this.closing = true;
    await this.underWay;
  }
}
