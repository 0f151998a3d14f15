/**
 * The HTTP application: Fastify with JSON:API content negotiation, schema validation through
 * our own error mapping, the error catalogue, and the resource routes over a store.
 */
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Store } from '../store/port.js';
import { Type } from '@sinclair/typebox';
import { BODY_LIMIT_BYTES, clientErrorHandler, frameworkErrors, registerErrorHandling } from './error-handling.js';
import { baseUrlOf } from './links.js';
import { registerMediaTypes } from './media-type.js';
import { subscriptionRoutes } from './routes/subscriptions.js';
import { userRoutes } from './routes/users.js';
import { validatorCompiler } from './validation.js';

const NoQueryParameters = Type.Object({}, { additionalProperties: false });

export interface AppOptions {
  store: Store;
  publicUrl?: string | undefined;
  trustProxy?: boolean;
  logger?: FastifyServerOptions['logger'];
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    trustProxy: options.trustProxy ?? false,
    bodyLimit: BODY_LIMIT_BYTES,
    requestIdHeader: 'x-request-id',
    routerOptions: { maxParamLength: 200 },
    frameworkErrors,
    clientErrorHandler,
  });
  app.setValidatorCompiler(validatorCompiler);
  // A route that declares no query parameters takes none: JSON:API wants unknown ones refused.
  app.addHook('onRoute', (route) => {
    route.schema = { querystring: NoQueryParameters, ...route.schema };
  });
  registerMediaTypes(app);
  registerErrorHandling(app);
  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-content-type-options', 'nosniff');
  });

  const baseUrl = (request: Parameters<typeof baseUrlOf>[0]) => baseUrlOf(request, options.publicUrl);
  userRoutes(app, options.store, baseUrl);
  subscriptionRoutes(app, options.store, baseUrl);
  await app.ready();
  return app;
}
