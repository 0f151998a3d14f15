/**
 * Shutting down without dropping a request. On SIGTERM the process first drains (see
 * `app.drain`): readiness fails at once, so that a load balancer stops sending new clients, and
 * every answer carries `Connection: close`, so that each client leaves after its current response
 * and comes back on a new connection, to another process. Only then does the server close. A
 * request that still arrives once it is closing gets our own JSON:API 503 (with `Connection:
 * close`), rather than Fastify's, so that the client retries elsewhere.
 */
import fp from 'fastify-plugin';
import { errors } from '../errors.js';

/** How often a drain looks whether every client has left. */
const POLL_MS = 50;

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Fails readiness and asks every client to leave, for up to `ms` or until none is left, or
     * until `stop` aborts; resolves then. Requests go on being served meanwhile.
     */
    drain(ms: number, stop?: AbortSignal): Promise<void>;
  }
}

export const shutdown = fp(
  async (app) => {
    let draining = false;
    let closing = false;

    app.decorate('drain', async (ms: number, stop?: AbortSignal) => {
      draining = true;
      const until = Date.now() + ms;
      while (Date.now() < until && !stop?.aborted && (await openConnections()) > 0) {
        await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, until - Date.now())));
      }
    });

    const openConnections = () =>
      new Promise<number>((resolve) => app.server.getConnections((error, count) => resolve(error ? 0 : count)));

    app.addHook('preClose', async () => {
      closing = true;
    });
    // Hooks that await nothing take a callback: an async one costs a promise on every request.
    app.addHook('onRequest', (request, _reply, done) => {
      const refused = closing || (draining && request.routeOptions.url === '/health/ready');
      done(refused ? errors.shuttingDown() : undefined);
    });
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (draining) reply.header('connection', 'close');
      done(null, payload);
    });
  },
  { name: 'shutdown' },
);
