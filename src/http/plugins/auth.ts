/**
 * Who is asking, and may they: every request but the public ones presents a credential as
 * `Authorization: Bearer <secret>` or as HTTP Basic with the secret as password, or, from the
 * console, a staff session cookie (with the role's scopes; an unsafe method also needs the
 * session's X-CSRF-Token and, when the browser names one, its own origin). A session is looked up
 * in the store on every request, so a sign-out, a disabled account, idleness or the session's age
 * ends it from the next request on, in every process. So is a credential on SQLite, which keeps the credentials it read but
 * checks its data version each time (store/sqlite/credentials.ts): a revocation holds from the
 * next request on, in every process. PostgreSQL keeps them without a read
 * (store/postgres/credentials.ts): a revocation holds from the next request on in the process
 * that made it, and in every other once its notification arrives (milliseconds after the commit),
 * at most 5 seconds after it however notifications fare (CREDENTIAL_MAX_AGE_MS); while a process
 * is not listening, it reads every credential as SQLite does. Then the credential's rate is
 * checked, then its scope against what the route needs.
 */
import type { FastifyRequest } from 'fastify';
import { allowsAny, hashSecret, parseSecret, secretMatches, type Scope } from '../../domain/api-key.js';
import { clientNetwork } from '../../domain/client-network.js';
import { errors } from '../errors.js';
import { ENVIRONMENT_ADMIN, type AuditContext } from '../../domain/audit.js';
import { ROLE_SCOPES, staffActor, type StaffMember } from '../../domain/staff.js';
import { presentedSessionId } from '../../use-cases/staff/cookie.js';
import {
  csrfTokenMatches,
  DEFAULT_CONSOLE_SETTINGS,
  liveSessionsAt,
  sessionIdHash,
  type ConsoleSettings,
} from '../../use-cases/staff/sessions.js';
import type { Store } from '../../store/port.js';
import { RateLimiter, type RateDecision, type RateLimit } from './rate-limit.js';
import fp from 'fastify-plugin';

export interface Credential {
  id: string;
  scopes: readonly Scope[];
  rateLimit: number | null;
  /** The staff member, for a console session. */
  staff?: StaffMember;
  /** The SHA-256 of the session's id, for a console session: what a change keeps when it ends the others. */
  sessionIdHash?: Buffer;
}

export interface AuthOptions {
  /** False only with AUTH=off: every request is let in, as nobody. */
  enabled: boolean;
  /** CIRCULATION_ADMIN_KEY: accepted as an admin credential. */
  adminKey?: string | undefined;
  rateLimit: RateLimit;
  /** Console sessions: their idle timeout and lifetime, and whether the cookie is for https. */
  console?: ConsoleSettings;
}

declare module 'fastify' {
  interface FastifyRequest {
    credential: Credential | null;
  }
  interface FastifyContextConfig {
    /**
     * What the route needs; by default `read` for GET and HEAD, `write` for the rest. A list
     * accepts a credential allowed any one of its scopes.
     */
    scope?: Scope | readonly Scope[] | 'public';
  }
}

export const authentication = fp<AuthOptions & { store: Store }>(
  async (app, { store, ...options }) => {
    const limiter = new RateLimiter(options.rateLimit);
    const adminKeyHash = options.adminKey === undefined ? undefined : hashSecret(options.adminKey);

    async function authenticate(secret: string): Promise<Credential | undefined> {
      if (adminKeyHash && secretMatches(adminKeyHash, secret)) {
        return { id: ENVIRONMENT_ADMIN, scopes: ['admin'], rateLimit: null };
      }
      const parsed = parseSecret(secret);
      if (!parsed) return undefined;
      const key = await store.credentials.getForAuthentication(parsed.id);
      if (!key || key.revokedAt !== null || !secretMatches(key.secretHash, parsed.random)) return undefined;
      return { id: key.id, scopes: key.scopes, rateLimit: key.rateLimit };
    }

    const consoleSettings = options.console ?? DEFAULT_CONSOLE_SETTINGS;

    /** The staff member of a live session, as a credential; a change also needs the CSRF token. */
    async function resumeSession(request: FastifyRequest, sessionId: string): Promise<Credential | undefined> {
      const now = Math.floor(Date.now() / 1000);
      const idHash = sessionIdHash(sessionId);
      const staff = await store.staff.resumeSession(idHash, now, liveSessionsAt(now, consoleSettings));
      if (!staff) return undefined;
      if (!SAFE_METHODS.has(request.method)) {
        const token = request.headers['x-csrf-token'];
        if (typeof token !== 'string' || !csrfTokenMatches(sessionId, token) || !sameOrigin(request)) {
          throw errors.csrfRefused();
        }
      }
      return {
        id: staffActor(staff.id),
        scopes: ROLE_SCOPES[staff.role],
        rateLimit: null,
        staff,
        sessionIdHash: idHash,
      };
    }

    /**
     * Requests without a valid credential (public routes, a missing or wrong secret) are limited by
     * their address: an IPv4 address, or an IPv6 /64, which is what one client holds. A valid
     * credential is never held back by its address, which it may share with others (a NAT, a proxy).
     */
    const anonymous = new RateLimiter(options.rateLimit);
    const addressLimit = anonymous.limitFor(null);
    const takeForAddress = (request: FastifyRequest) => {
      const decision = anonymous.take(clientNetwork(request.ip), addressLimit);
      if (!decision.allowed) throw errors.tooManyRequests(decision.retryAfterSeconds, 'address');
    };

    app.decorateRequest('credential', null);
    app.addHook('onRequest', async (request, reply) => {
      const needed =
        request.routeOptions.config?.scope ?? (['GET', 'HEAD'].includes(request.method) ? 'read' : 'write');
      if (!options.enabled) return;
      if (needed === 'public') return takeForAddress(request);
      const secret = presentedSecret(request.headers.authorization);
      const sessionId = secret === undefined ? presentedSessionId(request.headers.cookie, consoleSettings) : undefined;
      if (secret === undefined && sessionId === undefined) {
        takeForAddress(request);
        throw errors.credentialRequired();
      }
      const credential =
        secret === undefined ? await resumeSession(request, sessionId as string) : await authenticate(secret);
      if (!credential) {
        takeForAddress(request);
        throw secret === undefined ? errors.sessionInvalid() : errors.credentialInvalid();
      }

      const limit = limiter.limitFor(credential.rateLimit);
      const rate = limiter.take(credential.id, limit);
      reply.headers(rateLimitHeaders(limit, rate));
      if (!rate.allowed) throw errors.tooManyRequests(rate.retryAfterSeconds);

      const accepted = typeof needed === 'string' ? [needed] : needed;
      if (!allowsAny(credential.scopes, accepted)) throw errors.scopeInsufficient(credential.scopes, accepted);
      request.credential = credential;
    });
  },
  { name: 'authentication' },
);

/**
 * What a client reads of its rate limit. A token bucket is two policies in the IETF fields
 * (draft-ietf-httpapi-ratelimit-headers): a sustained rate ("rate", per second) and the burst
 * the bucket holds ("burst"), whose remaining tokens and refill time `RateLimit` gives. The older
 * RateLimit-Limit/-Remaining/-Reset fields, which many clients read, describe the bucket too.
 */
function rateLimitHeaders(limit: RateLimit, rate: RateDecision): Record<string, string | number> {
  return {
    'ratelimit-policy': `"rate";q=${limit.perSecond};w=1, "burst";q=${limit.burst}`,
    ratelimit: `"burst";r=${rate.remaining};t=${rate.resetSeconds}`,
    'ratelimit-limit': rate.limit,
    'ratelimit-remaining': rate.remaining,
    'ratelimit-reset': rate.resetSeconds,
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether the Origin a browser sent (none from other clients) is this service's own. */
function sameOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  if (!URL.canParse(origin)) return false;
  return new URL(origin).host === request.host;
}

/** The secret of a Bearer or Basic Authorization header (Basic: the password; the user name is ignored). */
function presentedSecret(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const [scheme = '', value = ''] = header.trim().split(/\s+/, 2);
  if (scheme.toLowerCase() === 'bearer') return value || undefined;
  if (scheme.toLowerCase() === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon === -1 ? undefined : decoded.slice(colon + 1) || undefined;
  }
  return undefined;
}

/** Who makes a change, and with which attributes: what the store writes to the audit trail. */
export function auditOf(request: FastifyRequest, attributes: readonly string[] = []): AuditContext {
  return { actor: request.credential?.id ?? null, attributes };
}
