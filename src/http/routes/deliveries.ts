/**
 * The print run of a publication date: GET /deliveries (one delivery per subscription delivered
 * or redelivered that date, paged by subscription id through links.next, so any page is an index
 * seek and a client may stream the whole run) and GET /reports/draw (its copies by product and postal code).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import fastJson from 'fast-json-stringify';
import { StoredCatalogueId } from '../../domain/catalogue.js';
import { nowInSeconds } from '../../domain/dates.js';
import {
  DELIVERIES,
  DeliveryAttributes,
  DRAW_REPORTS,
  drawReport,
  DrawReportAttributes,
  runOf,
  type DrawCount,
  type RunDate,
} from '../../domain/delivery.js';
import { PRODUCTS } from '../../domain/catalogue.js';
import { parseDate, PublicationDate, type PublicationCalendar } from '../../domain/publication.js';
import { FilterValue } from '../../domain/schema.js';
import { SUBSCRIPTIONS } from '../../domain/subscription.js';
import { USERS } from '../../domain/user.js';
import { collectionDocument, errorResponses, exampleLinks, singleDocument, withExample } from '../jsonapi/documents.js';
import { listLink } from '../jsonapi/links.js';
import { PageAfter, PageSize, pageSizeOf } from '../jsonapi/paging.js';
import { collectionText, sendPrerendered } from '../jsonapi/prerendered.js';
import { ADA_ADDRESS, Identifier } from '../jsonapi/resources.js';
import { Nullable } from '../../domain/schema.js';
import { keptCounts } from './kept-counts.js';
import type { RouteOptions } from './options.js';

const DateFilter = PublicationDate('The publication date of the run (required).');

const RunQuery = Type.Object(
  {
    'filter[date]': DateFilter,
    'filter[product]': Type.Optional({ ...StoredCatalogueId, description: 'Only deliveries of this product.' }),
    'filter[postalCode]': Type.Optional(FilterValue(20, 'Only deliveries to this postal code.')),
    'page[size]': PageSize,
    'page[after]': PageAfter('a subscription'),
  },
  { additionalProperties: false },
);

const DeliveryResource = Type.Object({
  type: Type.Literal(DELIVERIES),
  id: Type.String({ description: 'The date and the subscription: 2026-03-02.17.' }),
  attributes: DeliveryAttributes,
  relationships: Type.Object({
    user: Type.Object({ data: Identifier(USERS) }),
    subscription: Type.Object({ data: Identifier(SUBSCRIPTIONS) }),
    product: Type.Object({ data: Nullable(Identifier(PRODUCTS)) }),
  }),
});

const RunLinks = Type.Object({ self: Type.String(), next: Type.Optional(Type.String()) });
const writeRunLinks = fastJson(RunLinks) as (links: Static<typeof RunLinks>) => string;

const DrawReportResource = Type.Object({
  type: Type.Literal(DRAW_REPORTS),
  id: Type.String({ description: 'The date of the run.' }),
  attributes: DrawReportAttributes,
  links: Type.Object({ self: Type.String({ format: 'uri' }) }),
});

/**
 * Saturday's run as /docs shows it: Ada's paper, with Friday's wet one brought again (her
 * complaint's redelivery), to her home.
 */
const AdaDelivery = {
  type: DELIVERIES,
  id: '2026-06-13.7',
  attributes: {
    date: '2026-06-13',
    address: ADA_ADDRESS,
    redelivery: true,
    copies: 2,
  },
  relationships: {
    user: { data: { type: USERS, id: '42' } },
    subscription: { data: { type: SUBSCRIPTIONS, id: '7' } },
    product: { data: { type: PRODUCTS, id: 'daily' } },
  },
} satisfies Static<typeof DeliveryResource>;

/**
 * The runs of the dates asked for lately, by date and zone: where a date begins and ends in a time
 * zone takes four readings of the zone's clock, and a client paging through a run
 * asks for the same date page after page.
 */
const RUNS = new Map<string, RunDate>();
const RUNS_KEPT = 64;

/** The run of a date the schema has already checked is one. */
function runDate(text: string, calendar: PublicationCalendar): RunDate {
  const key = `${calendar.zone} ${text}`;
  let run = RUNS.get(key);
  if (run === undefined) {
    if (RUNS.size >= RUNS_KEPT) RUNS.clear();
    run = runOf(parseDate(text) as number, calendar.zone);
    RUNS.set(key, run);
  }
  return run;
}

/** The dates whose draw a process keeps: a month of runs, as a printer and its depots ask for them. */
const KEPT_DRAWS = 31;

/**
 * A draw counts every subscription touching its date (off the event loop on either store): a
 * process answers a date's draw from the counts it last read while they are younger than
 * `maxAgeSeconds` (kept-counts.ts), as it does the dashboard's report.
 */
export const deliveryRoutes: FastifyPluginAsyncTypebox<RouteOptions & { maxAgeSeconds: number }> = async (
  app,
  { store, baseUrl, print, maxAgeSeconds },
) => {
  const keptDraws = keptCounts<DrawCount[]>(maxAgeSeconds, KEPT_DRAWS);
  app.get(
    '/deliveries',
    {
      schema: {
        summary: 'List a date’s deliveries',
        description:
          'The print run of a publication date: one delivery per subscription delivered or redelivered that date, paged by subscription id through links.next.',
        querystring: RunQuery,
        response: {
          200: withExample(collectionDocument(DeliveryResource, RunLinks), {
            links: exampleLinks('/deliveries?filter%5Bdate%5D=2026-06-13'),
            data: [AdaDelivery],
          }),
          ...errorResponses(400, 406),
        },
      },
    },
    async (request, reply) => {
      const query = request.query;
      const date = query['filter[date]'];
      const size = pageSizeOf(query);
      // Each delivery as the database wrote it, sent as it is (store/sql/delivery-json.ts).
      const list = await store.deliveries.listRendered(runDate(date, print.calendar), {
        afterId: query['page[after]'],
        limit: size + 1,
        product: query['filter[product]'],
        postalCode: query['filter[postalCode]'],
      });
      const page = list.slice(0, size);
      const base = baseUrl(request);
      const others = Object.entries(query).filter(([name]) => name !== 'page[after]');
      const last = page.at(-1);
      const links = {
        self: listLink(base, '/deliveries', Object.entries(query)),
        ...(list.length > size && last
          ? { next: listLink(base, '/deliveries', [...others, ['page[after]', last.subscriptionId]]) }
          : {}),
      };
      return sendPrerendered(reply, collectionText(writeRunLinks(links), page));
    },
  );

  app.get(
    '/reports/draw',
    {
      schema: {
        summary: 'Count a date’s copies',
        description:
          'The print run of a publication date as copies by product and postal code, for the printer’s draw.',
        querystring: Type.Object({ 'filter[date]': DateFilter }, { additionalProperties: false }),
        response: {
          // A small paper's Saturday: three copies, two of them Ada's.
          200: withExample(singleDocument(DrawReportResource), {
            data: {
              type: DRAW_REPORTS,
              id: '2026-06-13',
              attributes: {
                date: '2026-06-13',
                copies: 3,
                byProduct: [{ product: 'daily', copies: 3 }],
                byPostalCode: [
                  { postalCode: 'BN2 1TL', copies: 1 },
                  { postalCode: 'W1B 1PH', copies: 2 },
                ],
              },
              links: exampleLinks('/reports/draw?filter%5Bdate%5D=2026-06-13'),
            },
          }),
          ...errorResponses(400, 406),
        },
      },
    },
    async (request) => {
      const date = request.query['filter[date]'];
      const counts = await keptDraws(date, nowInSeconds(), () =>
        store.deliveries.countDraw(runDate(date, print.calendar)),
      );
      return {
        data: {
          type: DRAW_REPORTS,
          id: date,
          attributes: drawReport(date, counts),
          links: { self: listLink(baseUrl(request), '/reports/draw', [['filter[date]', date]]) },
        },
      };
    },
  );
};
