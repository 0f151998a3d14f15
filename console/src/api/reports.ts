/** The subscription report the dashboard draws (GET /reports/subscriptions), as the service counts it. */
import { api, describe, type paths } from './client';

type ReportDocument = paths['/reports/subscriptions']['get']['responses'][200]['content']['application/vnd.api+json'];
export type SubscriptionReport = ReportDocument['data']['attributes'];
export type ReportWeek = SubscriptionReport['weeks'][number];

/** The report of now, or the service's word on why there is none. */
export async function subscriptionReport(): Promise<{ report: SubscriptionReport } | { refused: string }> {
  const { data, error, response } = await api.GET('/reports/subscriptions');
  return data ? { report: data.data.attributes } : { refused: describe(error, response.status) };
}
