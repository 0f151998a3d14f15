/**
 * The HTTP application: Fastify with limits, authentication, JSON:API content negotiation,
 * schema validation through our own error mapping, the error catalogue, and the routes.
 */
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { errors } from '../domain/errors.js';
import type { Store } from '../store/port.js';
import { registerAuth, type AuthOptions } from './plugins/auth.js';
import { BODY_LIMIT_BYTES, clientErrorHandler, frameworkErrors, registerErrorHandling } from './plugins/error-handling.js';
import { MAX_HEADER_BYTES, registerHardening, REQUEST_TIMEOUT_MS } from './plugins/hardening.js';
import { baseUrlOf } from './jsonapi/links.js';
import { registerIdempotency } from './plugins/idempotency.js';
import { registerMediaTypes } from './plugins/media-types.js';
import { registerObservability, requestIdOf, timedStore } from './plugins/observability.js';
import { registerOpenApi, registerRouteDefaults } from './plugins/openapi.js';
import { apiKeyRoutes } from './routes/api-keys.js';
import { auditRoutes } from './routes/audit-events.js';
import { eventRoutes } from './routes/events.js';
import { subscriptionRoutes } from './routes/subscriptions.js';
import { userRoutes } from './routes/users.js';
import { webhookRoutes } from './routes/webhooks.js';
import { serializerCompiler } from './plugins/serialization.js';
import { validatorCompiler } from './plugins/validation.js';

export interface AppOptions {
  store: Store;
  publicUrl?: string | undefined;
  trustProxy?: boolean;
  logger?: FastifyServerOptions['logger'];
  auth: AuthOptions;
  webhooks?: {
    /** The webhook key (see webhook-key.ts); without one, webhooks cannot be created. */
    key: Buffer | undefined;
    /** Called after each successful change, so that its deliveries go out at once. */
    changed?: () => void;
  };
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    trustProxy: options.trustProxy ?? false,
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: requestIdOf,
    requestIdHeader: false,
    // Our own hook logs each request once (observability.ts); Fastify's two lines a request are off.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    // A request arriving while the process shuts down gets our own JSON:API 503 (see below).
    return503OnClosing: false,
    routerOptions: { maxParamLength: 200 },
    frameworkErrors,
    clientErrorHandler,
    requestTimeout: REQUEST_TIMEOUT_MS,
    http: { maxHeaderSize: MAX_HEADER_BYTES },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerRouteDefaults(app);
  await registerOpenApi(app);
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async () => {
    if (closing) throw errors.shuttingDown();
  });
  const registry = registerObservability(app, options.store);
  const store = timedStore(options.store, registry);
  registerHardening(app);
  registerAuth(app, store, options.auth);
  registerMediaTypes(app);
  registerErrorHandling(app);
  registerIdempotency(app, store);

  const baseUrl = (request: Parameters<typeof baseUrlOf>[0]) => baseUrlOf(request, options.publicUrl);
  userRoutes(app, store, baseUrl);
  subscriptionRoutes(app, store, baseUrl);
  apiKeyRoutes(app, store, baseUrl);
  auditRoutes(app, store, baseUrl);
  eventRoutes(app, store, baseUrl);
  webhookRoutes(app, store, baseUrl, { key: options.webhooks?.key });
  const changed = options.webhooks?.changed;
  if (changed) {
    app.addHook('onResponse', async (request, reply) => {
      if (request.method !== 'GET' && request.method !== 'HEAD' && reply.statusCode < 300) changed();
    });
  }
  await app.ready();
  return app;
}
