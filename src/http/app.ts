/**
 * The HTTP application, as a table of contents: Fastify with its limits, the cross-cutting
 * plugins in the order every request meets them, then the route groups.
 */
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { DEFAULT_READER_SETTINGS, type ReaderSettings } from '../use-cases/readers/settings.js';
import { fastifyTrustProxy, type TrustProxy } from '../domain/client-network.js';
import type { AllowedNetworks } from '../domain/webhooks.js';
import { DEFAULT_MAIL_RETRY, type MailRetryPolicy } from '../mail/delivery.js';
import type { Mailer } from '../mail/port.js';
import { DEFAULT_MAIL_TEMPLATES, type MailTemplates } from '../mail/templates.js';
import type { ServiceKeys } from '../secrets/service-keys.js';
import { sessionCookieName } from '../use-cases/staff/cookie.js';
import { DEFAULT_CONSOLE_SETTINGS } from '../use-cases/staff/sessions.js';
import type { SignInBudget } from '../use-cases/staff/sign-in-budget.js';
import type { Store } from '../store/port.js';
import { DEFAULT_PRINT_SETTINGS, type PrintSettings } from '../domain/print.js';
import { baseUrlOf } from './jsonapi/links.js';
import { authentication, type AuthOptions } from './plugins/auth.js';
import { licenceUsage } from './plugins/licence-usage.js';
import { compression } from './plugins/compression.js';
import { clientErrorHandler, errorHandling, frameworkErrors } from './plugins/error-handling.js';
import { DEFAULT_BODY_LIMIT_BYTES, hardening, MAX_HEADER_BYTES, REQUEST_TIMEOUT_MS } from './plugins/hardening.js';
import { idempotency } from './plugins/idempotency.js';
import { mediaTypes } from './plugins/media-types.js';
import { newMetrics, observability, requestIdOf, timedStore } from './plugins/observability.js';
import { openApi } from './plugins/openapi.js';
import { serializerCompiler } from './plugins/serialization.js';
import { shutdown } from './plugins/shutdown.js';
import { validatorCompiler } from './plugins/validation.js';
import { writeNotifications } from './plugins/write-notifications.js';
import { accessRoutes } from './routes/access.js';
import { holdRoutes } from './routes/holds.js';
import { seatRoutes } from './routes/seats.js';
import { deliveryComplaintRoutes } from './routes/delivery-complaints.js';
import { temporaryAddressRoutes } from './routes/temporary-addresses.js';
import { deliveryRoutes } from './routes/deliveries.js';
import { apiKeyRoutes } from './routes/api-keys.js';
import { consoleRoutes } from './routes/console.js';
import { auditRoutes } from './routes/audit-events.js';
import { eventRoutes } from './routes/events.js';
import { newsletterRoutes } from './routes/newsletters.js';
import type { RouteOptions } from './routes/options.js';
import { passwordResetRoutes } from './routes/password-resets.js';
import { privacyRequestRoutes } from './routes/privacy-requests.js';
import { dataExportRoutes } from './routes/data-export.js';
import { signInRoutes } from './routes/sign-ins.js';
import { staffSessionRoutes } from './routes/staff-sessions.js';
import { staffRoutes } from './routes/staff.js';
import { productRoutes } from './routes/products.js';
import { reportRoutes } from './routes/reports.js';
import { subscriptionRoutes } from './routes/subscriptions.js';
import { userRoutes } from './routes/users.js';
import { newsletterConsentRoutes } from './routes/newsletter-consents.js';
import { consentLinkRoutes } from './routes/newsletter-consent-links.js';
import { DEFAULT_CONFIRMATION_TTL_HOURS } from '../domain/consent-links.js';
import { webhookRoutes } from './routes/webhooks.js';

export interface AppOptions {
  store: Store;
  publicUrl?: string | undefined;
  /** TRUST_PROXY: which proxies' X-Forwarded-* to believe. */
  trustProxy?: TrustProxy;
  /** The largest request body taken (BODY_LIMIT_BYTES); larger is a 413. */
  bodyLimitBytes?: number;
  logger?: FastifyServerOptions['logger'];
  auth: AuthOptions;
  /** Sign-in throttling and password reset tokens; the defaults when left out. */
  readers?: ReaderSettings;
  /**
   * Mailing readers (SMTP_URL, MAIL_FROM): the adapter, the templates (MAIL_TEMPLATES_DIR; the
   * built-in ones when left out) and how a message is retried. A password reset is mailed only
   * with this and `readers.resetPage` (PASSWORD_RESET_URL) both; otherwise it is refused.
   */
  mail?: { mailer: Mailer; templates?: MailTemplates; retry?: MailRetryPolicy };
  /** How long a console session may stay idle (CONSOLE_SESSION_IDLE_MINUTES); 30 minutes by default. */
  consoleIdleSeconds?: number;
  /** How long a console session may last however it is used (CONSOLE_SESSION_MAX_HOURS); 12 hours by default. */
  consoleMaxAgeSeconds?: number;
  /**
   * The keys derived from the service key (see secrets/service-keys.ts); without them, webhooks
   * cannot be created and an Idempotency-Key is refused.
   */
  keys: ServiceKeys;
  /**
   * How long the dashboard's report and a date's draw are answered from the counts last read
   * (REPORT_MAX_AGE_SECONDS); 0, counting afresh each time, when left out.
   */
  reportMaxAgeSeconds?: number;
  /** How long a newsletter confirmation link works (CONFIRMATION_TTL_HOURS); 72 hours when left out. */
  confirmationTtlSeconds?: number;
  /** Print circulation (PUBLICATION_TIME_ZONE, CHANGE_CUTOFF, HOLD_ALLOWANCE_DAYS, REPEAT_COMPLAINT_DAYS); the defaults when left out. */
  print?: PrintSettings;
  /** Where the built console is (dist/console by default; tests build one of their own). */
  consoleDirectory?: string;
  /** The console sign-ins checked at once (use-cases/staff/sign-in-budget.ts); a new one when left out (tests hold places in theirs). */
  staffSignInBudget?: SignInBudget;
  /** How long an idempotency key is kept (IDEMPOTENCY_RETENTION_HOURS); 24 by default. */
  idempotencyHours?: number;
  /**
   * The longest one store call may take, by the database's timeouts (PostgreSQL's connect and
   * statement timeouts, SQLite's busy timeout); 10 seconds by default.
   */
  storeCallBoundMs?: number;
  /** How often the access checks' licence usage goes to the store, in batches; every 10 seconds by default. */
  licenceUsageFlushMs?: number;
  webhooks?: {
    /** Called after each successful change, so that its deliveries go out at once. */
    changed?: () => void;
    /** Internal networks an endpoint may be registered in (WEBHOOK_ALLOWED_NETWORKS). */
    allowedNetworks?: AllowedNetworks;
  };
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const bodyLimitBytes = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const app = Fastify({
    logger: options.logger ?? false,
    trustProxy: fastifyTrustProxy(options.trustProxy ?? false),
    bodyLimit: bodyLimitBytes,
    genReqId: requestIdOf,
    requestIdHeader: false,
    // Our own hook logs each request once (observability.ts); Fastify's two lines a request are off.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    // A request arriving while the process shuts down gets our own JSON:API 503 (shutdown.ts).
    return503OnClosing: false,
    routerOptions: { maxParamLength: 200 },
    frameworkErrors,
    clientErrorHandler,
    requestTimeout: REQUEST_TIMEOUT_MS,
    http: { maxHeaderSize: MAX_HEADER_BYTES },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  const metrics = newMetrics();
  const store = timedStore(options.store, metrics);

  // The session cookie is Secure (and __Host- named) when the service is reached over https.
  const consoleSettings = {
    idleSeconds: options.consoleIdleSeconds ?? DEFAULT_CONSOLE_SETTINGS.idleSeconds,
    maxAgeSeconds: options.consoleMaxAgeSeconds ?? DEFAULT_CONSOLE_SETTINGS.maxAgeSeconds,
    secure: options.publicUrl?.startsWith('https:') ?? false,
  };
  await app.register(openApi, { sessionCookie: sessionCookieName(consoleSettings) });
  // Before any route, so that every route answers its errors as JSON:API documents.
  await app.register(errorHandling, { bodyLimitBytes });
  await app.register(shutdown);
  await app.register(observability, { store, metrics });
  await app.register(hardening);
  await app.register(authentication, { store, ...options.auth, console: consoleSettings });
  await app.register(mediaTypes);
  await app.register(idempotency, {
    store,
    key: options.keys.fingerprint,
    keepForSeconds: (options.idempotencyHours ?? 24) * 3600,
    storeCallBoundMs: options.storeCallBoundMs ?? 10_000,
  });
  await app.register(licenceUsage, { store, flushMs: options.licenceUsageFlushMs });
  if (options.webhooks?.changed) await app.register(writeNotifications, { changed: options.webhooks.changed });
  // Last of the onSend hooks: what it compresses is the body the others have settled (and kept).
  await app.register(compression);

  const routes: RouteOptions = {
    store,
    baseUrl: (request) => baseUrlOf(request, options.publicUrl),
    print: options.print ?? DEFAULT_PRINT_SETTINGS,
  };
  await app.register(userRoutes, routes);
  await app.register(newsletterConsentRoutes, routes);
  await app.register(consentLinkRoutes, {
    ...routes,
    key: options.keys.links,
    confirmationTtlSeconds: options.confirmationTtlSeconds ?? DEFAULT_CONFIRMATION_TTL_HOURS * 3600,
  });
  await app.register(dataExportRoutes, routes);
  await app.register(subscriptionRoutes, routes);
  await app.register(holdRoutes, routes);
  await app.register(seatRoutes, routes);
  await app.register(temporaryAddressRoutes, routes);
  await app.register(deliveryComplaintRoutes, routes);
  await app.register(deliveryRoutes, { ...routes, maxAgeSeconds: options.reportMaxAgeSeconds ?? 0 });
  await app.register(accessRoutes, routes);
  await app.register(productRoutes, routes);
  await app.register(newsletterRoutes, routes);
  await app.register(apiKeyRoutes, routes);
  await app.register(auditRoutes, routes);
  await app.register(privacyRequestRoutes, routes);
  await app.register(eventRoutes, routes);
  await app.register(reportRoutes, { ...routes, maxAgeSeconds: options.reportMaxAgeSeconds ?? 0 });
  await app.register(webhookRoutes, {
    ...routes,
    key: options.keys.webhook,
    allowedNetworks: options.webhooks?.allowedNetworks ?? [],
  });
  const readers = options.readers ?? DEFAULT_READER_SETTINGS;
  await app.register(signInRoutes, { ...routes, readers });
  const mail =
    options.mail && readers.resetPage !== undefined
      ? {
          mailer: options.mail.mailer,
          templates: options.mail.templates ?? DEFAULT_MAIL_TEMPLATES,
          resetPage: readers.resetPage,
          retry: options.mail.retry ?? DEFAULT_MAIL_RETRY,
        }
      : undefined;
  await app.register(passwordResetRoutes, { ...routes, readers, mail });
  await app.register(staffRoutes, { ...routes, readers });
  await app.register(staffSessionRoutes, {
    ...routes,
    readers,
    console: consoleSettings,
    offers: { mail: mail !== undefined, passwordResetLinks: readers.resetPage !== undefined },
    deviceKey: options.keys.device,
    budget: options.staffSignInBudget,
  });
  await app.register(consoleRoutes, { directory: options.consoleDirectory });
  await app.ready();
  return app;
}
