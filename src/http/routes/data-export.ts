/**
 * GET /users/{user_id}/data-export: everything held about a reader in one JSON document, for an
 * access or portability request (GDPR Art. 15, 20), to an administrator or a `write` credential
 * (the publisher's backend that answers the reader). It is JSON:API's meta-only document, written
 * as it is read, a page of records at a time (use-cases/readers/data-export.ts): the answer is chunked and
 * the service holds one page of it at a time, however much there is.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PassThrough } from 'node:stream';
import { LINK_ACTOR } from '../../domain/consent-links.js';
import { nowInSeconds } from '../../domain/dates.js';
import { readerExport, ReaderExportDocument } from '../../use-cases/readers/data-export.js';
import { AdaComplaint, AdaHold, AdaTemporaryAddress } from '../jsonapi/print-resources.js';
import { AdaConsent, AdaConsentChange } from '../jsonapi/consent-resources.js';
import { errorResponses, withExample } from '../jsonapi/documents.js';
import { ADA, ADA_ADDRESS, AdaSubscription, DAILY } from '../jsonapi/resources.js';
import { ADA_CREATED } from './events.js';
import { ADA_REQUEST } from './privacy-requests.js';
import { UserParams } from '../jsonapi/params.js';
import { JSONAPI } from '../plugins/media-types.js';
import type { RouteOptions } from './options.js';
import { noSuchUser } from './users.js';

const WEBSITE = { type: 'credentials', id: '3' };

/** Ada's export on the day her hold's list was read: every record of hers the other examples show. */
const ADA_EXPORT = withExample(ReaderExportDocument, {
  meta: {
    generatedAt: '2026-07-20T10:00:00+00:00',
    user: {
      id: '42',
      attributes: {
        ...ADA,
        honorificPrefix: null,
        additionalName: null,
        honorificSuffix: null,
        address: ADA_ADDRESS,
        circulationNumber: null,
        internalNotes: null,
        jobTitle: null,
        worksFor: null,
        telephone: null,
        cellNumber: null,
        faxNumber: null,
        demographics: null,
        newsletters: [],
        lastSignInAt: '2026-07-18T19:12:00+00:00',
      },
    },
    subscriptions: [
      {
        id: AdaSubscription.id,
        ...AdaSubscription.attributes,
        dateEnded: null,
        externalIdentifier: null,
        trial: false,
        expired: false,
        deliveryDays: null,
        product: DAILY.product.data.id,
      },
    ],
    holds: [{ id: AdaHold.id, subscription: AdaSubscription.id, ...AdaHold.attributes }],
    temporaryAddresses: [{ id: AdaTemporaryAddress.id, ...AdaTemporaryAddress.attributes }],
    deliveryComplaints: [{ id: AdaComplaint.id, subscription: AdaSubscription.id, ...AdaComplaint.attributes }],
    seats: [{ id: '9', licence: '12', licenceOwner: '58' }],
    newsletterConsents: [
      {
        newsletter: AdaConsent.id,
        ...AdaConsent.attributes,
        history: [
          { ...AdaConsentChange.attributes, actor: WEBSITE },
          {
            state: 'subscribed',
            source: 'confirmation',
            changedAt: '2026-05-02T08:14:00+00:00',
            actor: { type: 'system', id: LINK_ACTOR },
          },
          // Reported by the mailer's credential.
          { ...AdaConsent.attributes, actor: { type: 'credentials', id: '5' } },
        ],
      },
    ],
    signIns: [{ at: '2026-07-18T19:12:00+00:00' }],
    confirmationRequests: [{ at: '2026-05-01T10:00:00+00:00', newsletter: AdaConsent.id }],
    passwordResets: [{ at: '2026-07-01T08:00:00+00:00', action: 'issued' }],
    privacyRequests: [
      { id: '4', ...ADA_REQUEST, dueAt: '2026-07-02T14:30:00+00:00', completedAt: null, readerErasedAt: null },
    ],
    auditEntries: [
      {
        id: ADA_CREATED.id,
        occurredAt: ADA_CREATED.occurredAt,
        action: 'create',
        resourceType: 'users',
        resourceId: '42',
        eventType: 'user.created',
        changed: ADA_CREATED.sent,
        actor: WEBSITE,
      },
    ],
    webhookDeliveries: [
      {
        id: '310',
        webhook: '2',
        event: ADA_CREATED.id,
        eventType: 'user.created',
        state: 'delivered',
        createdAt: '2026-05-01T09:58:12.345+00:00',
        deliveredAt: '2026-05-01T09:58:13+00:00',
      },
    ],
  },
});

export const dataExportRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { store, print }) => {
  app.get(
    '/users/:user_id/data-export',
    {
      config: { scope: 'write' },
      schema: {
        summary: 'Export a reader’s data',
        description:
          'Everything held about the reader, as a meta-only JSON:API document: the user, subscriptions, holds, ' +
          'temporary addresses, delivery complaints, newsletter consents with their history, sign-in times, ' +
          'password reset times, privacy requests, the audit entries about them and the webhook deliveries of those ' +
          '(ids and times), with generatedAt. Never a secret or a hash. Streamed (chunked) as it is read; a failure ' +
          'after the first chunk ends the connection before the document is whole. `circulation export-reader ID` ' +
          'writes the same document.',
        params: UserParams,
        response: { 200: ADA_EXPORT, ...errorResponses(401, 403, 404, 406, 429) },
      },
    },
    async (request, reply) => {
      const { user_id } = request.params;
      const found = await readerExport(store, user_id, { now: nowInSeconds(), zone: print.calendar.zone });
      if (!found) throw noSuchUser(user_id);
      // HEAD answers the headers of the document the GET would stream, without writing it: making
      // the export reads everything held about the reader, only for the body to be thrown away.
      if (request.method === 'HEAD') return reply.type(JSONAPI).send(new PassThrough().end() as never);
      const body = new PassThrough();
      // A client that goes away stops the reads: the next write finds the stream closed.
      reply.raw.once('close', () => body.destroy());
      found.writeTo(body).then(
        () => body.end(),
        (error: unknown) => {
          if (!body.destroyed) request.log.error({ err: error }, 'the data export stopped unfinished');
          body.destroy(error instanceof Error ? error : new Error(String(error)));
        },
      );
      // The schema describes the document; a stream is sent as it is, past the serializer.
      return reply.send(body as never);
    },
  );
};
