/**
 * The subscription report as every adapter counts it, each count read from an index: the active
 * subscriptions grouped by their own resource and product (subscriptions_current, of those not
 * expired), with the product's resource joined to each group, not to each subscription; and the
 * starts and ends of each week, one range of subscriptions_started and subscriptions_ended each.
 */
import type { ActiveGroup, ReportWeek, WeekCounts } from '../../domain/report.js';
import type { Resource } from '../../domain/subscription.js';
import { join, raw, sql, type Dialect, type Sql } from './builder.js';
import { instantValue, type Row } from './rows.js';
import { statusCondition } from './subscriptions.js';

export function activeGroupsQuery(at: number, dialect: Dialect): Sql {
  const active = statusCondition('s', 'active', instantValue(dialect, at));
  return sql`SELECT g.resource, g.product_id, p.resource AS product_resource, g.n
    FROM (SELECT s.resource, s.product_id, count(*) AS n FROM subscriptions s WHERE ${active}
          GROUP BY s.resource, s.product_id) AS g
    LEFT JOIN products p ON p.id = g.product_id`;
}

export function toActiveGroup(row: Row): ActiveGroup {
  return {
    resource: (row.resource as Resource | null) ?? null,
    productId: (row.product_id as string | null) ?? null,
    productResource: (row.product_resource as Resource | null) ?? null,
    count: Number(row.n),
  };
}

/**
 * The starts and ends in each week, one row: `started_<i>` and `ended_<i>`. Each column counts a
 * range of its own index; the ends are those up to the end of the week or now, whichever is first.
 */
export function weekCountsQuery(weeks: readonly ReportWeek[], dialect: Dialect): Sql {
  const columns = weeks.flatMap(({ from, to }, i) => {
    const [a, b] = [instantValue(dialect, from), instantValue(dialect, to)];
    return [
      sql`(SELECT count(*) FROM subscriptions WHERE date_started >= ${a} AND date_started < ${b}) AS ${raw(`started_${i}`)}`,
      sql`(SELECT count(*) FROM subscriptions WHERE date_ended >= ${a} AND date_ended < ${b}) AS ${raw(`ended_${i}`)}`,
    ];
  });
  return sql`SELECT ${join(columns, ', ')}`;
}

export function toWeekCounts(row: Row, weeks: readonly ReportWeek[]): WeekCounts[] {
  return weeks.map((_, i) => ({ started: Number(row[`started_${i}`]), ended: Number(row[`ended_${i}`]) }));
}
