/**
 * What operators see of the service: a request id on every request (taken from X-Request-Id or
 * made, and echoed back), one log line per request, Prometheus metrics by route template (never
 * by raw id), and health endpoints for liveness and readiness.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Type } from '@sinclair/typebox';
import fp from 'fastify-plugin';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { errors } from '../errors.js';
import { withExample } from '../jsonapi/documents.js';
import { wrapMethods } from '../../store/wrap-methods.js';
import type { Store } from '../../store/port.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's X-Request-Id when it is a sane token, else a fresh UUID. */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

const UNMATCHED = '(unmatched)';

/** The Prometheus registry of a process, with Node's own metrics in it. */
export function newMetrics(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

export interface ObservabilityOptions {
  store: Store;
  /** Where the request metrics go, and what /metrics shows. */
  metrics: Registry;
}

/** The requests counter: the metrics' example on /docs shows it. */
const REQUESTS = { name: 'http_requests_total', help: 'HTTP requests answered, by method, route template and status' };

/** A line of the metrics as a scraper reads them: the paywall's access check, answered a good many times. */
const METRICS_EXAMPLE = [
  `# HELP ${REQUESTS.name} ${REQUESTS.help}`,
  `# TYPE ${REQUESTS.name} counter`,
  `${REQUESTS.name}{method="GET",route="/users/:user_id/access",status="200"} 182311`,
  '',
].join('\n');

export const observability = fp<ObservabilityOptions>(
  async (app, { store, metrics: registry }) => {
    const requests = new Counter({
      ...REQUESTS,
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    });
    const durations = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    });
    const inFlight = new Gauge({
      name: 'http_requests_in_flight',
      help: 'HTTP requests received and not yet answered',
      registers: [registry],
    });
    new Gauge({
      name: 'store_pool_connections',
      help: 'Database pool connections, by state (total, idle, waiting clients)',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const stats = store.poolStats?.();
        if (!stats) return;
        for (const [state, value] of Object.entries(stats)) this.set({ state }, value);
      },
    });

    // Hooks that await nothing take a callback: an async one costs a promise on every request.
    app.addHook('onRequest', (_request, _reply, done) => {
      inFlight.inc();
      done();
    });
    app.addHook('onSend', (request, reply, payload, done) => {
      reply.header('x-request-id', request.id);
      done(null, payload);
    });
    app.addHook('onResponse', (request, reply, done) => {
      inFlight.dec();
      const route = request.routeOptions.url ?? UNMATCHED;
      const labels = { method: request.method, route, status: String(reply.statusCode) };
      requests.inc(labels);
      durations.observe(labels, reply.elapsedTime / 1000);
      request.log.info(
        {
          method: request.method,
          route,
          status: reply.statusCode,
          durationMs: Math.round(reply.elapsedTime * 100) / 100,
          credential: request.credential?.id,
        },
        'request',
      );
      done();
    });

    // Metrics tell much of the service (routes, rates, timings): a credential with the metrics scope reads them.
    app.get(
      '/metrics',
      {
        config: { scope: 'metrics', ownMediaType: true },
        schema: {
          summary: 'Read the metrics',
          description:
            'Prometheus metrics in their text format: requests by route and status, their timings, the store. A credential with the metrics (or admin) scope reads them.',
          response: {
            200: {
              description: 'The metrics in the Prometheus text format.',
              content: { [registry.contentType]: { schema: Type.String(), example: METRICS_EXAMPLE } },
            },
          },
        },
      },
      async (_request, reply) => {
        reply.type(registry.contentType);
        return registry.metrics();
      },
    );
    const Health = (status: string, summary: string, description: string) => ({
      summary,
      description,
      response: {
        200: withExample(Type.Object({ meta: Type.Object({ status: Type.Literal(status) }) }), { meta: { status } }),
      },
    });
    app.get(
      '/health/live',
      {
        config: { scope: 'public' },
        schema: Health(
          'live',
          'Check the process is up',
          'Answers 200 while the process serves requests; asks nothing of the store. Public.',
        ),
      },
      async () => ({
        meta: { status: 'live' },
      }),
    );
    app.get(
      '/health/ready',
      {
        config: { scope: 'public' },
        schema: Health(
          'ready',
          'Check the service is ready',
          'Answers 200 when the store answers too, else 503 with Retry-After. Public.',
        ),
      },
      async () => {
        try {
          await store.ping();
        } catch {
          throw errors.storeUnavailable();
        }
        return { meta: { status: 'ready' } };
      },
    );
  },
  { name: 'observability' },
);

/** The store with each call timed into `store_operation_duration_seconds`. */
export function timedStore(store: Store, registry: Registry): Store {
  const operations = new Histogram({
    name: 'store_operation_duration_seconds',
    help: 'Time of a store operation, by operation and outcome',
    labelNames: ['operation', 'outcome'],
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1],
    registers: [registry],
  });
  return wrapMethods(store, (method, target, operation) => async (...args: unknown[]) => {
    const end = operations.startTimer({ operation });
    try {
      const result = await method.apply(target, args);
      end({ outcome: 'ok' });
      return result;
    } catch (error) {
      end({ outcome: 'error' });
      throw error;
    }
  });
}
