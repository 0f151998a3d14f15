/**
 * What the service counts for the dashboard: the subscriptions report at an instant, active
 * subscriptions by what they give and by product, and those started and ended in each of the
 * last weeks. Counting reads an index entry of every unexpired subscription; its callers keep
 * what it answers a while (http/routes/kept-counts.ts).
 */
import { reportWeeks, subscriptionReport, type SubscriptionReportAttributes as Report } from '../domain/report.js';
import type { Store } from '../store/port.js';

export async function countSubscriptionReport(store: Store, now: number): Promise<Report> {
  const weeks = reportWeeks(now);
  const counts = await store.reports.countSubscriptions(now, weeks);
  return subscriptionReport(now, counts.active, weeks, counts.weeks);
}
