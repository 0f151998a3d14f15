/**
 * Safe retries: a POST (or an expire) sent with an `Idempotency-Key` runs once. A retry with the
 * same key and the same request gets the first response again (with `Idempotent-Replayed: true`);
 * the same key with another request is a 422; the same key while the first is still running is a
 * 409. Keys live in the database, per credential, for 24 hours (IDEMPOTENCY_RETENTION_HOURS), so a
 * retry may reach any process.
 *
 * What is kept of a request is a fingerprint: an HMAC under a key that is never in the database
 * (see secrets/service-keys.ts), of the request without its secrets (a password is replaced by a
 * marker that says one was sent), so a copy of the database confirms no guess of either. A kept
 * response names the reader whose data it holds, and goes when they are erased. An answer that
 * tells of another reader's record (their email is taken) is not kept: that reader may be erased,
 * and their address freed, before the retry, which then runs anew.
 */
import { createHmac } from 'node:crypto';
import { nowInSeconds } from '../../domain/dates.js';
import { errors } from '../errors.js';
import { REQUEST_DEADLINE_MS } from './hardening.js';
import type { Store } from '../../store/port.js';
import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * How long a claim stays its request's (seconds): past the request's deadline, after which it
 * starts no write, and past the few store calls it may still be in (each bounded by the
 * database's timeouts, `storeCallBoundMs`). A claim unanswered longer than that belongs to a
 * process that died, and a retry may run the request; never a minute less, as documented.
 */
export function staleAfterSeconds(storeCallBoundMs: number): number {
  return Math.max(60, Math.ceil((REQUEST_DEADLINE_MS + 3 * storeCallBoundMs) / 1000));
}
const KEY = /^[\x21-\x7e]{1,255}$/;

/** Errors that tell of another reader's record, which may be gone by the retry: their answers are not kept. */
const OF_ANOTHER_READER = new Set(['EMAIL_TAKEN']);
const KEPT_HEADERS = ['location', 'etag'];
/** What a secret attribute's value is replaced with in a fingerprint: that one was sent, not which. */
const SECRET_SENT = '(a secret)';

interface IdempotencyClaim {
  scope: string;
  key: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim: IdempotencyClaim | null;
    /**
     * The reader whose data the response holds: the user in the address by default; a route that
     * creates a reader names them. A kept response goes when its reader is erased.
     */
    dataSubject: string | null;
  }
  interface FastifyContextConfig {
    /**
     * The request carries a secret (a password, a token) or the response shows one once: neither
     * is ever kept, so there is nothing to replay, and an Idempotency-Key is refused.
     */
    showsSecret?: boolean;
  }
}

export interface IdempotencyOptions {
  store: Store;
  /** The fingerprint key (secrets/service-keys.ts); without one, an Idempotency-Key is refused with 503. */
  key: Buffer | undefined;
  /** How long a key is kept (IDEMPOTENCY_RETENTION_HOURS): a retry within it replays. */
  keepForSeconds: number;
  /** The longest one store call may take, by the database's timeouts. */
  storeCallBoundMs: number;
}

/** Which requests an Idempotency-Key makes safe to retry: a POST, and the expire operation. */
export function takesIdempotencyKey(method: string, url: string | undefined): boolean {
  return method === 'POST' || (method === 'PUT' && url?.endsWith('/expire') === true);
}

export const idempotency = fp<IdempotencyOptions>(
  async (app, { store, key: fingerprintKey, keepForSeconds, storeCallBoundMs }) => {
    const staleAfter = staleAfterSeconds(storeCallBoundMs);
    app.decorateRequest('idempotencyClaim', null);
    app.decorateRequest('dataSubject', null);

    /**
     * Claims the key of a request that carries one, or answers it with the first response. Its
     * hooks await the store only then: most requests carry no key, and an async hook would cost
     * each of them a promise.
     */
    async function claimKey(request: FastifyRequest, reply: FastifyReply, key: string | string[]) {
      if (typeof key !== 'string' || !KEY.test(key)) {
        throw errors.invalidHeader('Idempotency-Key', 'must be 1 to 255 printable characters without spaces');
      }
      if (request.routeOptions.config?.showsSecret) {
        throw errors.invalidHeader(
          'Idempotency-Key',
          'is not accepted here: the request or its response carries a secret, and secrets are never kept to be replayed',
        );
      }
      if (!fingerprintKey) throw errors.idempotencyNotSetUp();
      const scope = request.credential?.id ?? 'anonymous';
      const claim = await store.idempotency.claimKey(scope, key, fingerprint(fingerprintKey, request), nowInSeconds(), {
        staleAfter,
        keepFor: keepForSeconds,
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
      request.dataSubject = (request.params as { user_id?: string } | undefined)?.user_id ?? null;
    }

    app.addHook('preHandler', (request, reply, done) => {
      const key = request.headers['idempotency-key'];
      if (key === undefined || !takesIdempotencyKey(request.method, request.routeOptions.url)) return done();
      claimKey(request, reply, key).then(() => done(), done);
    });

    /** Keeps the response of a claimed request, or releases the claim after a server error. */
    async function finish(request: FastifyRequest, reply: FastifyReply, payload: unknown, claim: IdempotencyClaim) {
      // A server error is not an answer to keep, nor one of another reader's record: release the key so that a retry runs again.
      const kept =
        reply.statusCode >= 500 || request.errorCodes?.some((code) => OF_ANOTHER_READER.has(code))
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
      await store.idempotency.finishKey(claim.scope, claim.key, kept, request.dataSubject);
    }

    app.addHook('onSend', (request, reply, payload, done) => {
      const claimed = request.idempotencyClaim;
      if (!claimed) return done(null, payload);
      request.idempotencyClaim = null;
      finish(request, reply, payload, claimed).then(() => done(null, payload), done);
    });
  },
  { name: 'idempotency' },
);

/** The fingerprint of a request: an HMAC of its method, address and body, its secrets left out. */
function fingerprint(key: Buffer, request: FastifyRequest): string {
  const body = withoutSecrets(request.body, secretAttributes(request.routeOptions.schema?.body));
  return createHmac('sha256', key)
    .update(`${request.method} ${request.url}\n${JSON.stringify(body ?? null)}`)
    .digest('hex');
}

type Document = { data?: { attributes?: Record<string, unknown> } & Record<string, unknown> } & Record<string, unknown>;

function withoutSecrets(body: unknown, secrets: readonly string[]): unknown {
  const attributes = (body as Document | undefined)?.data?.attributes;
  if (secrets.length === 0 || !attributes) return body;
  const masked = { ...attributes };
  for (const name of secrets) if (name in masked) masked[name] = SECRET_SENT;
  const document = body as Document;
  return { ...document, data: { ...document.data, attributes: masked } };
}

interface SchemaNode {
  writeOnly?: boolean;
  properties?: Record<string, SchemaNode>;
}

const secretsOfSchema = new WeakMap<object, readonly string[]>();

/** The attributes a body schema marks `writeOnly`: secrets, such as a password. */
function secretAttributes(schema: unknown): readonly string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  let names = secretsOfSchema.get(schema);
  if (!names) {
    const attributes = (schema as SchemaNode).properties?.data?.properties?.attributes?.properties ?? {};
    names = Object.entries(attributes)
      .filter(([, property]) => property.writeOnly === true)
      .map(([name]) => name);
    secretsOfSchema.set(schema, names);
  }
  return names;
}
