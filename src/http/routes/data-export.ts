/**
 * GET /users/{user_id}/data-export: everything held about a reader in one JSON document, for an
 * access or portability request (GDPR Art. 15, 20), to an administrator or a `write` credential
 * (the publisher's backend that answers the reader). It is JSON:API's meta-only document, written
 * as it is read, a page of records at a time (readers/data-export.ts): the answer is chunked and
 * the service holds one page of it at a time, however much there is.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PassThrough } from 'node:stream';
import { nowInSeconds } from '../../domain/dates.js';
import { readerExport, ReaderExportDocument } from '../../readers/data-export.js';
import { errorResponses } from '../jsonapi/documents.js';
import { UserParams } from '../jsonapi/params.js';
import { JSONAPI } from '../plugins/media-types.js';
import type { RouteOptions } from './options.js';
import { noSuchUser } from './users.js';

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
        response: { 200: ReaderExportDocument, ...errorResponses(401, 403, 404, 406, 429) },
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
