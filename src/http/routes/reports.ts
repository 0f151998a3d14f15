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
  type SubscriptionReportAttributes as Report,
} from '../../domain/report.js';
import { errorResponses, exampleLinks, SelfLinks, singleDocument, withExample } from '../jsonapi/documents.js';
import { countSubscriptionReport } from '../../use-cases/reports.js';
import { keptCounts } from './kept-counts.js';
import type { RouteOptions } from './options.js';

const REPORT_PATH = '/reports/subscriptions';

/** There is one report, of now: its id says so. */
const CURRENT = 'current';

const SubscriptionReportResource = Type.Object({
  type: Type.Literal(SUBSCRIPTION_REPORTS),
  id: Type.Literal(CURRENT),
  attributes: SubscriptionReportAttributes,
  links: SelfLinks,
});

/**
 * The report as /docs shows it, worked out as the route does: a Friday morning in November, the
 * daily's print and online readers, the weeks' starts and ends.
 */
const REPORT_EXAMPLE = (() => {
  const at = Date.parse('2026-11-27T09:00:00Z') / 1000;
  const daily = { productId: 'daily', productResource: 'print-online' } as const;
  const active = [
    { ...daily, resource: 'print-online', count: 1840 },
    { ...daily, resource: 'online', count: 5120 },
  ] as const;
  const started = [41, 38, 52, 47, 44, 60, 39, 42, 55, 48, 51, 17];
  const ended = [20, 27, 21, 28, 22, 29, 23, 30, 24, 31, 25, 6];
  return subscriptionReport(
    at,
    active,
    reportWeeks(at),
    started.map((count, i) => ({ started: count, ended: ended[i]! })),
  );
})();

/**
 * Counting reads an index entry of every unexpired subscription (off the event loop on either
 * store): a process answers from the counts it last read while they are younger than
 * `maxAgeSeconds` (kept-counts.ts).
 */
export const reportRoutes: FastifyPluginAsyncTypebox<RouteOptions & { maxAgeSeconds: number }> = async (
  app,
  { store, baseUrl, maxAgeSeconds },
) => {
  const kept = keptCounts<Report>(maxAgeSeconds, 1);
  const reportAt = (now: number): Promise<Report> => kept(CURRENT, now, () => countSubscriptionReport(store, now));

  app.get(
    REPORT_PATH,
    {
      schema: {
        summary: 'Read the subscriptions report',
        description:
          'Active subscriptions now by what they give and by product, and those started and ended in each of the last 12 ISO weeks: the console’s dashboard. The counts are reused while younger than a maximum age.',
        querystring: Type.Object({}, { additionalProperties: false }),
        response: {
          200: withExample(singleDocument(SubscriptionReportResource), {
            data: {
              type: SUBSCRIPTION_REPORTS,
              id: CURRENT,
              attributes: REPORT_EXAMPLE,
              links: exampleLinks(REPORT_PATH),
            },
          }),
          ...errorResponses(400, 401, 403, 406, 429),
        },
      },
    },
    async (request) => {
      const attributes = await reportAt(nowInSeconds());
      return {
        data: {
          type: SUBSCRIPTION_REPORTS,
          id: CURRENT,
          attributes,
          links: { self: `${baseUrl(request)}${REPORT_PATH}` },
        },
      };
    },
  );
};
