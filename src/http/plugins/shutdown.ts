/**
 * Shutting down without dropping a request. On SIGTERM the process first drains (see
 * `app.drain`): readiness fails at once, so that a load balancer stops sending new clients, and
 * every answer carries `Connection: close`, so that each client leaves after its current response
 * and comes back on a new connection, to another process. Only then does the server close. A
 * request that still arrives once it is closing gets our own JSON:API 503 (with `Connection:
 * close`), rather than Fastify's, so that the client retries elsewhere.
 *
 * No client connected is not enough to end the drain: while clients reconnect there are instants
 * with none, their new connections still waiting in the kernel to be accepted (the longer, the
 * busier the CPU), and closing the listener then resets every one of them (issue 40). So the drain
 * also waits for a quiet spell with no new connection. And however soon every client has left,
 * readiness stays failed long enough for a load balancer probing it to have seen it fail: closed
 * before that, the process would have new clients sent to a port nobody listens on.
 */
import fp from 'fastify-plugin';
import { errors } from '../errors.js';

/** How often a drain looks whether every client has left. */
const POLL_MS = 50;
/**
 * How long a drain waits, with no client connected, for a new connection before it ends: far
 * longer than a client takes to reconnect after an answer asked it to leave, even on a busy host.
 */
const DRAIN_QUIET_MS = 500;

interface DrainOptions {
  minUnreadyMs?: number;
  stop?: AbortSignal;
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Fails readiness and asks every client to leave, for up to `ms` or until none is left, none
     * has come for DRAIN_QUIET_MS and readiness has failed for `minUnreadyMs`, or until `stop`
     * aborts; resolves then. Requests go on being served meanwhile.
     */
    drain(ms: number, options?: DrainOptions): Promise<void>;
  }
}

export const shutdown = fp(
  async (app) => {
    let draining = false;
    let closing = false;

    app.decorate('drain', async (ms: number, { minUnreadyMs = 0, stop }: DrainOptions = {}) => {
      draining = true;
      // The monotonic clock: a drain must not end early because the wall clock was set forward.
      const started = performance.now();
      const until = started + ms;
      // From the start: connections may already be waiting to be accepted.
      let lastArrival = started;
      const arrived = () => (lastArrival = performance.now());
      app.server.on('connection', arrived);
      const over = async () => {
        const now = performance.now();
        if (now - started < minUnreadyMs || now - lastArrival < DRAIN_QUIET_MS) return false;
        // Timers run before the event loop accepts connections: had the process waited for a core
        // all this time, the connections that came meanwhile would still be in the kernel's queue,
        // unseen. Past the poll phase (setImmediate), every one of them has been accepted.
        await new Promise((resolve) => setImmediate(resolve));
        if (performance.now() - lastArrival < DRAIN_QUIET_MS) return false;
        return (await openConnections()) === 0;
      };
      try {
        while (performance.now() < until && !stop?.aborted && !(await over())) {
          await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, until - performance.now())));
        }
      } finally {
        app.server.off('connection', arrived);
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
