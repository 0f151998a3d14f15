/**
 * Every failure leaves as a JSON:API error document: our own ApiErrors as they are, Fastify's
 * client errors mapped onto the catalogue, unknown routes as 404 (405 with `Allow` when the
 * path exists under other methods), and anything unexpected as a bare 500 whose detail is the
 * request id; the stack goes to the log, never to the client.
 */
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyRequest, FastifyServerOptions } from 'fastify';
import { DomainFailure } from '../../domain/failures.js';
import { HashDeadlineExceeded } from '../../domain/password.js';
import { StoreUnavailable } from '../../store/availability.js';
import { ApiError, errors, fromFailure } from '../errors.js';
import { JSONAPI } from './media-types.js';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyRequest {
    /** The codes of the errors the request was answered with; null when it succeeded. */
    errorCodes: readonly string[] | null;
  }
}

export const errorHandling = fp<{ bodyLimitBytes: number }>(
  async (app, { bodyLimitBytes }) => {
    app.decorateRequest('errorCodes', null);
    const routes: { pattern: RegExp; methods: Set<string> }[] = [];
    app.addHook('onRoute', (route) => {
      const pattern = new RegExp(`^${route.url.replace(/:[A-Za-z_]+/g, '[^/]+')}$`);
      let entry = routes.find((r) => r.pattern.source === pattern.source);
      if (!entry) routes.push((entry = { pattern, methods: new Set() }));
      for (const method of ([] as string[]).concat(route.method)) entry.methods.add(method);
    });

    app.setNotFoundHandler(async (request) => {
      const path = request.url.split('?')[0] ?? '';
      const match = routes.find((r) => r.pattern.test(path));
      if (match) throw errors.methodNotAllowed(request.method, [...match.methods].sort());
      throw errors.routeNotFound(request.method, path.slice(0, 200));
    });

    app.setErrorHandler(async (error: FastifyError, request, reply) => {
      const apiError = toApiError(error, request, bodyLimitBytes);
      if (apiError.status >= 500) request.log.error({ err: error }, 'request failed unexpectedly');
      request.errorCodes = apiError.errors.map((e) => e.code);
      return reply.status(apiError.status).headers(apiError.headers).send({ errors: apiError.errors });
    });
  },
  { name: 'error-handling' },
);

function toApiError(error: FastifyError, request: FastifyRequest, bodyLimitBytes: number): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof DomainFailure) return fromFailure(error);
  if (error instanceof StoreUnavailable) return errors.storeUnavailable();
  if (error instanceof HashDeadlineExceeded) return errors.deadlineExceeded();
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge(bodyLimitBytes);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.unsupportedMediaType();
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return errors.requestRefused(status, STATUS_CODES[status] ?? 'Client Error', error.message);
  }
  return errors.internal(request.id);
}

function errorBody(error: ApiError): string {
  return JSON.stringify({ errors: error.errors });
}

/**
 * Errors Fastify meets before a route is found (an undecodable URL, an over-long path segment)
 * bypass hooks and the error handler, so they are written out here.
 */
export const frameworkErrors: NonNullable<FastifyServerOptions['frameworkErrors']> = (error, request, reply) => {
  const apiError =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? errors.routeNotFound(request.method, request.url.slice(0, 200))
      : errors.invalidUrl();
  reply.hijack();
  // The hooks that give every answer its X-Request-Id (observability.ts) never run for it.
  writeError(reply.raw, apiError, request.id);
};

function writeError(response: ServerResponse, error: ApiError, requestId: string): void {
  const body = errorBody(error);
  response.writeHead(error.status, {
    ...error.headers,
    'x-request-id': requestId,
    'content-type': JSONAPI,
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}

/** Requests Node cannot even parse (bad framing, oversized headers) still get a JSON:API answer. */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const answer = errors.malformedRequest(status);
  const body = errorBody(answer);
  socket.end(
    `HTTP/1.1 ${status} ${answer.errors[0]?.title}\r\ncontent-type: ${JSONAPI}\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
