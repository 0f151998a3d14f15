/**
 * One Fastify hook of each kind for all the cross-cutting plugins. Each plugin adds its steps
 * here (`app.steps.onRequest(...)`, `onSend`, `onResponse`) instead of hooks of its own, and one
 * hook runs them in the order they were added: every hook Fastify runs costs a trip through its
 * hook runner, and an async one a promise, on every request. Steps are synchronous; one that has
 * to wait (a credential read from the store, a response kept for an idempotency key) returns a
 * promise, and the rest run when it settles.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/** May throw (an error answer) or return a promise to be waited for. */
export type RequestStep = (request: FastifyRequest, reply: FastifyReply) => void | Promise<void>;
/** Answers the payload to send on (or a promise of it); undefined leaves the payload as it is. */
export type SendStep = (request: FastifyRequest, reply: FastifyReply, payload: unknown) => unknown;
export type ResponseStep = (request: FastifyRequest, reply: FastifyReply) => void;

export interface RequestSteps {
  onRequest(step: RequestStep): void;
  onSend(step: SendStep): void;
  onResponse(step: ResponseStep): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    steps: RequestSteps;
  }
}

export const requestSteps = fp(
  async (app) => {
    const onRequest: RequestStep[] = [];
    const onSend: SendStep[] = [];
    const onResponse: ResponseStep[] = [];
    app.decorate('steps', {
      onRequest: (step: RequestStep) => void onRequest.push(step),
      onSend: (step: SendStep) => void onSend.push(step),
      onResponse: (step: ResponseStep) => void onResponse.push(step),
    });

    app.addHook('onRequest', (request, reply, done) => {
      let next = 0;
      const run = (): void => {
        try {
          while (next < onRequest.length) {
            const pending = (onRequest[next++] as RequestStep)(request, reply);
            if (pending) return void pending.then(run, done);
          }
        } catch (error) {
          return done(error as Error);
        }
        done();
      };
      run();
    });

    app.addHook('onSend', (request, reply, payload, done) => {
      let next = 0;
      let current = payload;
      const run = (replaced?: unknown): void => {
        if (replaced !== undefined) current = replaced;
        try {
          while (next < onSend.length) {
            const result = (onSend[next++] as SendStep)(request, reply, current);
            if (result instanceof Promise) return void result.then(run, done);
            if (result !== undefined) current = result;
          }
        } catch (error) {
          return done(error as Error);
        }
        done(null, current);
      };
      run();
    });

    app.addHook('onResponse', (request, reply, done) => {
      try {
        for (const step of onResponse) step(request, reply);
      } catch (error) {
        return done(error as Error);
      }
      done();
    });
  },
  { name: 'request-steps' },
);
