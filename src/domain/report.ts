/**
 * The subscription report the console's dashboard draws: active subscriptions now, by what they
 * give and by product, and the subscriptions that started and ended in each of the last ISO weeks
 * (Monday 00:00 UTC to the next), the current week up to now.
 */
import { Type, type Static } from '@sinclair/typebox';
import { formatInstant } from './dates.js';
import { RESOURCES, type Resource } from './subscription.js';

export const SUBSCRIPTION_REPORTS = 'subscription-reports' as const;

/** How many weeks the report goes back, the current one included. */
export const REPORT_WEEKS = 12;

const DAY = 86_400;
const WEEK = 7 * DAY;

/** A week of the report: its ISO name and the instants (epoch seconds) it runs from and to. */
export interface ReportWeek {
  week: string;
  from: number;
  to: number;
}

/** The last `count` ISO weeks up to `now`, oldest first; the last one ends at `now`. */
export function reportWeeks(now: number, count = REPORT_WEEKS): ReportWeek[] {
  // 1970-01-01 was a Thursday: Mondays fall 4 days after each multiple of a week.
  const monday = Math.floor((now - 4 * DAY) / WEEK) * WEEK + 4 * DAY;
  return Array.from({ length: count }, (_, i) => {
    const from = monday - (count - 1 - i) * WEEK;
    return { week: isoWeekName(from), from, to: Math.min(from + WEEK, now) };
  });
}

/** `2026-W48`: the ISO week (year of its Thursday) that starts on this Monday. */
function isoWeekName(monday: number): string {
  const thursday = new Date((monday + 3 * DAY) * 1000);
  const year = thursday.getUTCFullYear();
  const number = Math.floor((thursday.getTime() / 1000 - Date.UTC(year, 0, 1) / 1000) / WEEK) + 1;
  return `${year}-W${String(number).padStart(2, '0')}`;
}

/** Counts of active subscriptions, one per (own resource, product) pair, as a store groups them. */
export interface ActiveGroup {
  resource: Resource | null;
  productId: string | null;
  /** The resource the product gives, for a subscription without one of its own. */
  productResource: Resource | null;
  count: number;
}

export interface WeekCounts {
  started: number;
  ended: number;
}

const Count = Type.Integer({ minimum: 0 });

export const SubscriptionReportAttributes = Type.Object({
  at: Type.String({ format: 'date-time', description: 'The instant the report counts active subscriptions at.' }),
  activeByResource: Type.Array(
    Type.Object({
      resource: Type.Union([...RESOURCES.map((r) => Type.Literal(r)), Type.Null()], {
        description: "What the subscriptions give: their own resource, or else their product's; null for neither.",
      }),
      count: Count,
    }),
  ),
  activeByProduct: Type.Array(
    Type.Object({
      product: Type.Union([Type.String(), Type.Null()], { description: 'The product id; null for none.' }),
      count: Count,
    }),
  ),
  weeks: Type.Array(
    Type.Object({
      week: Type.String({ description: 'The ISO week, as 2026-W48.' }),
      from: Type.String({ format: 'date-time', description: 'Its Monday, 00:00 UTC.' }),
      to: Type.String({ format: 'date-time', description: 'The next Monday, or now for the current week.' }),
      started: Type.Integer({ minimum: 0, description: 'Subscriptions whose dateStarted is in the week.' }),
      ended: Type.Integer({ minimum: 0, description: 'Subscriptions whose dateEnded is in the week (lapsed or not).' }),
    }),
    { description: `The last ${REPORT_WEEKS} ISO weeks, oldest first, the current one last.` },
  ),
});
export type SubscriptionReportAttributes = Static<typeof SubscriptionReportAttributes>;

/** The report's attributes from what a store counted: groups summed by resource and by product. */
export function subscriptionReport(
  at: number,
  groups: readonly ActiveGroup[],
  weeks: readonly ReportWeek[],
  counts: readonly WeekCounts[],
): SubscriptionReportAttributes {
  const byResource = new Map<Resource | null, number>();
  const byProduct = new Map<string | null, number>();
  for (const group of groups) {
    const resource = group.resource ?? group.productResource;
    byResource.set(resource, (byResource.get(resource) ?? 0) + group.count);
    byProduct.set(group.productId, (byProduct.get(group.productId) ?? 0) + group.count);
  }
  return {
    at: formatInstant(at),
    activeByResource: [...RESOURCES, null]
      .filter((resource) => byResource.has(resource))
      .map((resource) => ({ resource, count: byResource.get(resource) as number })),
    activeByProduct: [...byProduct]
      .sort(([a], [b]) => {
        if (a === null) return 1;
        if (b === null) return -1;
        // A map's keys are never equal.
        // Stryker disable next-line EqualityOperator: as no two keys are equal, <= orders them as < does
        return a < b ? -1 : 1;
      })
      .map(([product, count]) => ({ product, count })),
    weeks: weeks.map((week, i) => ({
      week: week.week,
      from: formatInstant(week.from),
      to: formatInstant(week.to),
      started: counts[i]?.started ?? 0,
      ended: counts[i]?.ended ?? 0,
    })),
  };
}
