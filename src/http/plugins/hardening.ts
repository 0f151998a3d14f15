/**
 * Limits and headers against misuse: long addresses, a fragment, and query parameters that do not
 * decode are refused before anything reads them, and every response forbids sniffing, framing and
 * caching (responses carry personal data).
 */
import { errors } from '../errors.js';
import { undecodableParameter } from '../jsonapi/query-encoding.js';
import fp from 'fastify-plugin';

export const MAX_URL_LENGTH = 4096;
/** A user document is some 10 KB at most: 64 KiB is plenty (BODY_LIMIT_BYTES), and bounds what a body costs. */
export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024;
export const MAX_HEADER_BYTES = 16 * 1024;
/** Time for a client to send its headers, and its whole request: slow clients are cut off. */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;
/**
 * A request starts no write after this long: the one wait that could outlast it, for a slot to
 * hash a password, gives up at the deadline (a 503, nothing written). What a request does once
 * it writes is bounded by the database's own timeouts; a claim on an idempotency key is taken
 * over only after both (see idempotency.ts), so no request runs twice.
 */
export const REQUEST_DEADLINE_MS = 30_000;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route sets its own content-security-policy and cache-control (the console's files). */
    ownPolicy?: boolean;
  }
  interface FastifyRequest {
    /** When the request gives up rather than start a write (epoch milliseconds). */
    deadline: number;
  }
}

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** The same without the policy, which the docs page sets for its own scripts and styles. */
const { 'content-security-policy': _docsPolicy, ...DOCS_HEADERS } = SECURITY_HEADERS;

/** The same without the policy and the caching, which a route of its own policy sets (`ownPolicy`). */
const { 'content-security-policy': _ownPolicy, 'cache-control': _ownCaching, ...OWN_POLICY_HEADERS } = SECURITY_HEADERS;

export const hardening = fp(
  async (app) => {
    app.server.headersTimeout = HEADERS_TIMEOUT_MS;
    app.decorateRequest('deadline', 0);
    // Hooks that await nothing take a callback: an async one costs a promise on every request.
    app.addHook('onRequest', (request, _reply, done) => {
      request.deadline = Date.now() + REQUEST_DEADLINE_MS;
      if (request.url.length > MAX_URL_LENGTH) return done(errors.uriTooLong(MAX_URL_LENGTH));
      // A request target carries no fragment (RFC 9112, 3.2): the router would read `#` as `?`.
      if (request.url.includes('#')) return done(errors.invalidUrl());
      const undecodable = undecodableParameter(request.url);
      if (undecodable === undefined) return done();
      done(errors.invalidQueryParameter(undecodable, `${undecodable} is not validly percent-encoded (UTF-8)`));
    });
    app.addHook('onSend', (request, reply, payload, done) => {
      // The docs page sets a policy of its own that lets its scripts and styles run.
      if (request.routeOptions.url?.startsWith('/docs')) reply.headers(DOCS_HEADERS);
      else if (request.routeOptions.config?.ownPolicy) reply.headers(OWN_POLICY_HEADERS);
      else reply.headers(SECURITY_HEADERS);
      if (request.protocol === 'https') reply.header('strict-transport-security', 'max-age=31536000');
      done(null, payload);
    });
  },
  { name: 'hardening' },
);
