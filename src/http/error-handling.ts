/**
 * Every failure leaves as a JSON:API error document: our own ApiErrors as they are, Fastify's
 * client errors mapped onto the catalogue, unknown routes as 404 (405 with `Allow` when the
 * path exists under other methods), and anything unexpected as a bare 500 whose detail is the
 * request id; the stack goes to the log, never to the client.
 */
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, errors } from '../domain/errors.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export function registerErrorHandling(app: FastifyInstance): void {
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
    const apiError = toApiError(error, request);
    if (apiError.status >= 500) request.log.error({ err: error }, 'request failed unexpectedly');
    return reply.status(apiError.status).headers(apiError.headers).send({ errors: apiError.errors });
  });
}

function toApiError(error: FastifyError, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge(BODY_LIMIT_BYTES);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.unsupportedMediaType();
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return new ApiError(status, [{ status: String(status), title: STATUS_CODES[status] ?? 'Client Error', detail: error.message }]);
  }
  return errors.internal(request.id);
}
