/**
 * After each successful write, a call to whoever wants to know at once (the webhook dispatcher
 * of this process, so that the change's deliveries go out without waiting for its next poll).
 */
import fp from 'fastify-plugin';

export const writeNotifications = fp<{ changed: () => void }>(
  async (app, { changed }) => {
    // It awaits nothing, so it takes a callback: an async hook costs a promise on every request.
    app.addHook('onResponse', (request, reply, done) => {
      if (request.method !== 'GET' && request.method !== 'HEAD' && reply.statusCode < 300) changed();
      done();
    });
  },
  { name: 'write-notifications' },
);
