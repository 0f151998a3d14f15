/**
 * The port for the reports the console's dashboard reads: counts, each read from an index.
 */
import type { ActiveGroup, ReportWeek, WeekCounts } from '../../domain/report.js';

export interface SubscriptionCounts {
  /** The subscriptions active at the instant asked, by their own resource and product. */
  active: ActiveGroup[];
  /** The subscriptions started and ended in each week asked, in the same order. */
  weeks: WeekCounts[];
}

export interface ReportStore {
  countSubscriptions(at: number, weeks: readonly ReportWeek[]): Promise<SubscriptionCounts>;
}
