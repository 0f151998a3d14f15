/**
 * Shutting down: once the server starts closing, a request that still arrives gets our own
 * JSON:API 503 (with `Connection: close`), rather than Fastify's, so clients retry elsewhere.
 */
import fp from 'fastify-plugin';
import { errors } from '../errors.js';

export const shutdown = fp(
  async (app) => {
    let closing = false;
    app.addHook('preClose', async () => {
      closing = true;
    });
    app.addHook('onRequest', async () => {
      if (closing) throw errors.shuttingDown();
    });
  },
  { name: 'shutdown' },
);
