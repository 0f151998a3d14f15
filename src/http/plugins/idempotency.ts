/**
 * Safe retries: a POST (or an expire) sent with an `Idempotency-Key` runs once. A retry with the
 * same key and the same request gets the first response again (with `Idempotent-Replayed: true`);
 * the same key with another request is a 422; the same key while the first is still running is a
 * 409. Keys live in the database, per credential, for 24 hours, so a retry may reach any process.
 */
import { createHash } from 'node:crypto';
import { nowInSeconds } from '../../domain/dates.js';
import { errors } from '../errors.js';
import type { Store } from '../../store/port.js';
import fp from 'fastify-plugin';

const KEEP_FOR_SECONDS = 24 * 3600;
/** A claim unanswered this long belongs to a process that died: a retry may run the request. */
const STALE_AFTER_SECONDS = 60;
const KEY = /^[\x21-\x7e]{1,255}$/;
const KEPT_HEADERS = ['location', 'etag'];

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim: { scope: string; key: string } | null;
  }
  interface FastifyContextConfig {
    /**
     * The request carries a secret (a password, a token) or the response shows one once: neither
     * is ever kept, so there is nothing to replay, and an Idempotency-Key is refused.
     */
    showsSecret?: boolean;
  }
}

/** Which requests an Idempotency-Key makes safe to retry: a POST, and the expire operation. */
export function takesIdempotencyKey(method: string, url: string | undefined): boolean {
  return method === 'POST' || (method === 'PUT' && url?.endsWith('/expire') === true);
}

export const idempotency = fp<{ store: Store }>(
  async (app, { store }) => {
    app.decorateRequest('idempotencyClaim', null);

    app.addHook('preHandler', async (request, reply) => {
      const key = request.headers['idempotency-key'];
      if (key === undefined || !takesIdempotencyKey(request.method, request.routeOptions.url)) return;
      if (typeof key !== 'string' || !KEY.test(key)) {
        throw errors.invalidHeader('Idempotency-Key', 'must be 1 to 255 printable characters without spaces');
      }
      if (request.routeOptions.config?.showsSecret) {
        throw errors.invalidHeader(
          'Idempotency-Key',
          'is not accepted here: the request or its response carries a secret, and secrets are never kept to be replayed',
        );
      }
      const scope = request.credential?.id ?? 'anonymous';
      const fingerprint = createHash('sha256')
        .update(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`)
        .digest('hex');
      const claim = await store.claimIdempotencyKey(scope, key, fingerprint, nowInSeconds(), {
        staleAfter: STALE_AFTER_SECONDS,
        keepFor: KEEP_FOR_SECONDS,
      });
      if (claim.state === 'in-progress') throw errors.idempotencyInProgress();
      if (claim.state === 'mismatch') throw errors.idempotencyKeyReused();
      if (claim.state === 'replay') {
        const { status, headers, body } = claim.response;
        return reply
          .status(status)
          .headers({ ...headers, 'idempotent-replayed': 'true' })
          .send(body);
      }
      request.idempotencyClaim = { scope, key };
    });

    app.addHook('onSend', async (request, reply, payload) => {
      const claim = request.idempotencyClaim;
      if (!claim) return payload;
      request.idempotencyClaim = null;
      // A server error is not an answer to keep: release the key so that a retry runs again.
      const kept =
        reply.statusCode >= 500
          ? null
          : {
              status: reply.statusCode,
              headers: Object.fromEntries(
                KEPT_HEADERS.flatMap((name) => {
                  const value = reply.getHeader(name);
                  return value === undefined ? [] : [[name, String(value)]];
                }),
              ),
              body: typeof payload === 'string' ? payload : '',
            };
      await store.finishIdempotencyKey(claim.scope, claim.key, kept);
      return payload;
    });
  },
  { name: 'idempotency' },
);
