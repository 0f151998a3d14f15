/**
 * /users/{user_id}/newsletter-consents: a reader's consent for each newsletter they ever had
 * (domain/consent.ts), each one's history, and what an email provider reports of one (PATCH
 * `state`: bounced, complained or unsubscribed, through a `write` credential). The consents change
 * with the reader's `newsletters: {add, remove}` too (routes/users.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { actorOf } from '../../domain/audit.js';
import { StoredCatalogueId } from '../../domain/catalogue.js';
import { ConsentUpdateAttributes, NEWSLETTER_CONSENTS, type ConsentSource } from '../../domain/consent.js';
import { failures } from '../../domain/failures.js';
import { errors } from '../errors.js';
import {
  collectionDocument,
  errorResponses,
  exampleLinks,
  singleDocument,
  updateDocument,
  withExample,
} from '../jsonapi/documents.js';
import {
  AdaConsent,
  AdaConsentChange,
  ConsentChangeResource,
  ConsentResource,
  consentsPath,
  historyPath,
  renderConsent,
  renderConsentChange,
} from '../jsonapi/consent-resources.js';
import { ConsentParams, UserParams } from '../jsonapi/params.js';
import { CursorLinks, cursorPage, PageAfter, PageSize, pageSizeOf } from '../jsonapi/paging.js';
import { etagOf, ifMatchVersions } from '../jsonapi/etag.js';
import { withHeaders } from '../jsonapi/response-headers.js';
import { auditOf } from '../plugins/auth.js';
import { listConsentHistory } from '../../use-cases/newsletter-consents.js';
import { mayKnowWho } from './events.js';
import type { RouteOptions } from './options.js';
import { noSuchUser } from './users.js';

const ConsentDocument = withExample(singleDocument(ConsentResource), { data: AdaConsent });

const ConsentListQuery = Type.Object(
  {
    'page[size]': PageSize,
    'page[after]': Type.Optional({ ...StoredCatalogueId, description: 'Start after this newsletter id.' }),
  },
  { additionalProperties: false },
);

const HistoryQuery = Type.Object(
  { 'page[size]': PageSize, 'page[after]': PageAfter('a change') },
  { additionalProperties: false },
);

/** A state reported through the API is the email provider's, but for one a staff member sets in the console. */
function reportSourceOf(request: FastifyRequest): ConsentSource {
  return request.credential?.staff ? 'console' : 'email-provider';
}

export const newsletterConsentRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { store, baseUrl }) => {
  const noSuchConsent = (userId: string, newsletterId: string) =>
    errors.notFound(`User ${userId} has no consent for newsletter "${newsletterId}".`);

  app.get(
    '/users/:user_id/newsletter-consents',
    {
      schema: {
        summary: 'List a reader’s consents',
        description: 'The reader’s consent for each newsletter they ever had, with its state.',
        params: UserParams,
        querystring: ConsentListQuery,
        response: {
          200: withExample(collectionDocument(ConsentResource, CursorLinks), {
            links: exampleLinks('/users/42/newsletter-consents'),
            data: [AdaConsent],
          }),
          ...errorResponses(400, 404, 406),
        },
      },
    },
    async (request) => {
      const { user_id } = request.params;
      const size = pageSizeOf(request.query);
      const consents = await store.consents.list(user_id, { afterId: request.query['page[after]'], limit: size + 1 });
      if (!consents) throw noSuchUser(user_id);
      const base = baseUrl(request);
      const keyed = consents.map((consent) => ({ id: consent.newsletterId, consent }));
      const { page, links } = cursorPage(keyed, size, base, consentsPath(user_id), request.query);
      return { links, data: page.map(({ consent }) => renderConsent(base, consent)) };
    },
  );

  app.get(
    '/users/:user_id/newsletter-consents/:newsletter_id',
    {
      schema: {
        summary: 'Read a consent',
        description: 'The reader’s consent for one newsletter, with its state.',
        params: ConsentParams,
        response: { 200: withHeaders(ConsentDocument, 'ETag'), ...errorResponses(404, 406) },
      },
    },
    async (request, reply) => {
      const { user_id, newsletter_id } = request.params;
      const consent = await store.consents.get(user_id, newsletter_id);
      if (!consent) throw noSuchConsent(user_id, newsletter_id);
      return reply.header('etag', etagOf(consent.version)).send({ data: renderConsent(baseUrl(request), consent) });
    },
  );

  // PATCH alone: the interface names no PUT, and the document grows with every operation.
  app.route({
    method: 'PATCH',
    url: '/users/:user_id/newsletter-consents/:newsletter_id',
    schema: {
      summary: 'Report a consent’s state',
      description:
        'What an email provider reports of a consent: state bounced, complained or unsubscribed, through a write credential.',
      params: ConsentParams,
      body: withExample(updateDocument(NEWSLETTER_CONSENTS, ConsentUpdateAttributes), {
        data: { type: NEWSLETTER_CONSENTS, id: 'briefing', attributes: { state: 'unsubscribed' } },
      }),
      response: { 200: withHeaders(ConsentDocument, 'ETag'), ...errorResponses(400, 404, 406, 409, 413, 415, 422) },
    },
    handler: async (request, reply) => {
      const { user_id, newsletter_id } = request.params;
      const { data } = request.body;
      if (data.id !== newsletter_id) throw errors.idConflict();
      if (data.attributes === undefined) {
        throw failures.invalid([{ pointer: '/data/attributes', detail: "must have required property 'state'" }]);
      }
      const consent = await store.consents.report(
        user_id,
        newsletter_id,
        data.attributes.state,
        reportSourceOf(request),
        auditOf(request),
        ifMatchVersions(request.headers['if-match']),
      );
      if (!consent) throw noSuchConsent(user_id, newsletter_id);
      return reply.header('etag', etagOf(consent.version)).send({ data: renderConsent(baseUrl(request), consent) });
    },
  });

  app.get(
    '/users/:user_id/newsletter-consents/:newsletter_id/history',
    {
      schema: {
        summary: 'List a consent’s history',
        description: 'Every change of the reader’s consent for the newsletter, paged by cursor (page[after]).',
        params: ConsentParams,
        querystring: HistoryQuery,
        response: {
          200: withExample(collectionDocument(ConsentChangeResource, CursorLinks), {
            links: exampleLinks('/users/42/newsletter-consents/briefing/history'),
            data: [AdaConsentChange],
          }),
          ...errorResponses(400, 404, 406),
        },
      },
    },
    async (request) => {
      const { user_id, newsletter_id } = request.params;
      const size = pageSizeOf(request.query);
      const history = await listConsentHistory(
        store,
        { userId: user_id, newsletterId: newsletter_id },
        { afterId: request.query['page[after]'], limit: size + 1 },
        size,
        mayKnowWho(request.credential),
      );
      if (!history) throw noSuchConsent(user_id, newsletter_id);
      const { fetched, names } = history;
      const { page, links } = cursorPage(
        fetched,
        size,
        baseUrl(request),
        historyPath(user_id, newsletter_id),
        request.query,
      );
      return {
        links,
        data: page.map((change) => {
          const actor = actorOf(change.actor);
          return renderConsentChange(change, actor && { ...actor, name: names.get(change.actor as string) ?? null });
        }),
      };
    },
  );
};
