/**
 * /reports/subscriptions: what the console's dashboard draws, active subscriptions now by what
 * they give and by product, and the subscriptions started and ended in each of the last 12 ISO
 * weeks; every count read from an index (see store/sql/reports.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { nowInSeconds } from '../../domain/dates.js';
import {
  reportWeeks,
  subscriptionReport,
  SubscriptionReportAttributes,
  SUBSCRIPTION_REPORTS,
} from '../../domain/report.js';
import { errorResponses, singleDocument } from '../jsonapi/documents.js';
import type { RouteOptions } from './options.js';

const REPORT_PATH = '/reports/subscriptions';

/** There is one report, of now: its id says so. */
const CURRENT = 'current';

const SubscriptionReportResource = Type.Object({
  type: Type.Literal(SUBSCRIPTION_REPORTS),
  id: Type.Literal(CURRENT),
  attributes: SubscriptionReportAttributes,
  links: Type.Object({ self: Type.String({ format: 'uri' }) }),
});

export const reportRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { store, baseUrl }) => {
  app.get(
    REPORT_PATH,
    {
      schema: {
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: singleDocument(SubscriptionReportResource), ...errorResponses(400, 401, 403, 406, 429) },
      },
    },
    async (request) => {
      const now = nowInSeconds();
      const weeks = reportWeeks(now);
      const counts = await store.countSubscriptions(now, weeks);
      return {
        data: {
          type: SUBSCRIPTION_REPORTS,
          id: CURRENT,
          attributes: subscriptionReport(now, counts.active, weeks, counts.weeks),
          links: { self: `${baseUrl(request)}${REPORT_PATH}` },
        },
      };
    },
  );
};
