/**
 * /staff-sessions: the console's sign-in and sign-out. Signing in sets the session cookie and
 * answers the session's CSRF token, which every change made with the session must send as
 * X-CSRF-Token; `current` is the session the request's cookie names. Attempts are throttled per
 * email and client network (the request's address, the forwarded one with TRUST_PROXY; an IPv6
 * /64), so that guesses from one network lock out that network and not the staff member
 * elsewhere, and per email from every network at ten times that limit; every failure reads the
 * same (use-cases/staff/sign-in-attempts.ts) and takes as long, SIGN_IN_FAILURE_FLOOR_MS at least. Anyone
 * may ask without a credential, so at most a few sign-ins are checked at once, per client network
 * and in all (see SignInBudget), and their hashes wait behind those of credentialed requests; a
 * browser that has signed in before carries a known-device cookie (use-cases/staff/devices.ts), for which
 * places are kept that unknown clients cannot take.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { clientNetwork } from '../../domain/client-network.js';
import { nowInSeconds } from '../../domain/dates.js';
import { mayBeShownResetToken } from '../../domain/password-reset.js';
import { ROLE_SCOPES, STAFF, type StaffMember } from '../../domain/staff.js';
import { Email } from '../../domain/user.js';
import { notBeforeFloor } from '../../domain/password.js';
import type { ReaderSettings } from '../../use-cases/readers/settings.js';
import { clearedSessionCookie, presentedSessionId, sessionCookie } from '../../use-cases/staff/cookie.js';
import {
  csrfTokenOf,
  DEFAULT_CONSOLE_IDLE_MINUTES,
  DEFAULT_CONSOLE_MAX_HOURS,
  sessionIdHash,
  signInStaff,
  type ConsoleSettings,
} from '../../use-cases/staff/sessions.js';
import { deviceCookie, isKnownDevice } from '../../use-cases/staff/devices.js';
import { SignInBudget } from '../../use-cases/staff/sign-in-budget.js';
import { errors } from '../errors.js';
import { createDocument, errorResponses, withExample } from '../jsonapi/documents.js';
import { Identifier } from '../jsonapi/resources.js';
import type { RouteOptions } from './options.js';
import { MARY, MaryResource, renderStaff, StaffResource } from './staff.js';
import { withHeaders } from '../jsonapi/response-headers.js';

export const STAFF_SESSIONS = 'staff-sessions' as const;

const StaffSessionCreateAttributes = Type.Object(
  {
    email: Email,
    password: Type.String({ minLength: 1, maxLength: 1024, writeOnly: true }),
  },
  { additionalProperties: false },
);

/** What the service offers the console beyond the API every session has. */
export interface ConsoleOffers {
  /** A password reset can be mailed to the reader (SMTP_URL and PASSWORD_RESET_URL are set). */
  mail: boolean;
  /** A password reset's answer carries the link to the reset page (PASSWORD_RESET_URL is set). */
  passwordResetLinks: boolean;
}

const StaffSessionSchema = Type.Object({
  data: Type.Object({
    type: Type.Literal(STAFF_SESSIONS),
    id: Type.Literal('current'),
    attributes: Type.Object({
      csrfToken: Type.String({ description: 'Send as X-CSRF-Token with every change made with this session.' }),
      idleTimeoutMinutes: Type.Integer(),
      maxLifetimeHours: Type.Integer({
        description: 'The session ends this long after its sign-in, however much it is used.',
      }),
    }),
    relationships: Type.Object({ staff: Type.Object({ data: Identifier(STAFF) }) }),
  }),
  included: Type.Array(StaffResource),
  meta: Type.Object(
    {
      mail: Type.Boolean({
        description: 'true: POST /users/{id}/password-reset-tokens can mail the reader ({"delivery": "email"}).',
      }),
      passwordResetLinks: Type.Boolean({
        description:
          "true: a token issued in the answer comes with meta.resetUrl, the link to the publisher's reset page.",
      }),
      resetTokensShown: Type.Boolean({
        description:
          "true: this session's staff member may be shown a reader's reset token (and link) in the answer of " +
          'POST /users/{id}/password-reset-tokens, an admin; agents and supervisors have resets mailed (mail), or make none.',
      }),
    },
    { description: 'What the service is set up to do, for the console to offer.' },
  ),
});

/** Mary's session, signed in to a console that can mail readers their password resets. */
const StaffSessionDocument = withExample(StaffSessionSchema, {
  data: {
    type: STAFF_SESSIONS,
    id: 'current',
    attributes: {
      csrfToken: 'jusSjtL0EzzQo8NCEhs35UwKSpgiP3IcCcsa-mkVAtw',
      idleTimeoutMinutes: DEFAULT_CONSOLE_IDLE_MINUTES,
      maxLifetimeHours: DEFAULT_CONSOLE_MAX_HOURS,
    },
    relationships: { staff: { data: { type: STAFF, id: MaryResource.id } } },
  },
  included: [MaryResource],
  meta: { mail: true, passwordResetLinks: true, resetTokensShown: false },
});

const CurrentParams = Type.Object({ session: Type.Literal('current') });

export const staffSessionRoutes: FastifyPluginAsyncTypebox<
  RouteOptions & {
    readers: ReaderSettings;
    console: ConsoleSettings;
    offers: ConsoleOffers;
    /** The key known-device cookies are signed with; none are set or believed without one. */
    deviceKey: Buffer | undefined;
    budget?: SignInBudget | undefined;
  }
> = async (app, { store, baseUrl, readers, console: settings, offers, deviceKey, budget: given }) => {
  // Without a device key no device is known, and so no place is kept for one.
  const budget = given ?? (deviceKey ? new SignInBudget() : new SignInBudget(undefined, undefined, 0));
  const document = (request: FastifyRequest, sessionId: string, member: StaffMember) => ({
    data: {
      type: STAFF_SESSIONS,
      id: 'current' as const,
      attributes: {
        csrfToken: csrfTokenOf(sessionId),
        idleTimeoutMinutes: Math.round(settings.idleSeconds / 60),
        maxLifetimeHours: Math.round(settings.maxAgeSeconds / 3600),
      },
      relationships: { staff: { data: { type: STAFF, id: member.id } } },
    },
    included: [renderStaff(baseUrl(request), member)],
    meta: { ...offers, resetTokensShown: mayBeShownResetToken(ROLE_SCOPES[member.role], offers.mail) },
  });

  /** The session id of the request's cookie: the auth plugin has already found it live. */
  const sessionOf = (request: FastifyRequest) => {
    const sessionId = presentedSessionId(request.headers.cookie, settings);
    if (sessionId === undefined || !request.credential?.staff) throw errors.sessionInvalid();
    return { sessionId, member: request.credential.staff };
  };

  app.post(
    `/${STAFF_SESSIONS}`,
    {
      config: { scope: 'public', showsSecret: true },
      schema: {
        summary: 'Sign in to the console',
        description:
          'Checks a staff member’s email and password, sets the session cookie and answers the CSRF token that every change made with the session sends as X-CSRF-Token. Throttled per email and network.',
        body: withExample(createDocument(STAFF_SESSIONS, StaffSessionCreateAttributes), {
          data: { type: STAFF_SESSIONS, attributes: { email: MARY.email, password: 'correct horse battery staple' } },
        }),
        response: {
          201: withHeaders(StaffSessionDocument, 'Set-Cookie'),
          ...errorResponses(400, 403, 409, 413, 415, 422, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const { data } = request.body;
      if (data.id !== undefined) throw errors.clientGeneratedId();
      const network = clientNetwork(request.ip);
      const now = nowInSeconds();
      const known =
        deviceKey !== undefined &&
        isKnownDevice(request.headers.cookie, settings, deviceKey, data.attributes.email, now);
      const place = budget.take(network, known);
      if (place !== 'taken') throw errors.staffSignInsBusy(place);
      const attempt = { ...data.attributes, network };
      const started = performance.now();
      const result = await signInStaff(store, attempt, readers.signIn, now, request.deadline).finally(() =>
        budget.release(network),
      );
      if (result.outcome === 'throttled') throw errors.signInThrottled(result.retryAfterSeconds);
      if (result.outcome === 'invalid') {
        // Past the budget: it bounds hashes being checked, and a wait that held it would let a
        // few failing sign-ins keep everyone else's out.
        await notBeforeFloor(started, readers.failureFloorMs);
        throw errors.invalidCredentials();
      }
      return reply
        .status(201)
        .header('set-cookie', [
          sessionCookie(settings, result.sessionId),
          ...(deviceKey ? [deviceCookie(settings, deviceKey, data.attributes.email, now)] : []),
        ])
        .header('cache-control', 'no-store')
        .send(document(request, result.sessionId, result.member));
    },
  );

  app.get(
    `/${STAFF_SESSIONS}/:session`,
    {
      config: { scope: 'read' },
      schema: {
        summary: 'Read a console session',
        description:
          '`current` is the session the request’s cookie names: who is signed in, with what the service is set up to do.',
        params: CurrentParams,
        response: { 200: StaffSessionDocument, ...errorResponses(401, 403, 406) },
      },
    },
    async (request, reply) => {
      const { sessionId, member } = sessionOf(request);
      return reply.header('cache-control', 'no-store').send(document(request, sessionId, member));
    },
  );

  app.delete(
    `/${STAFF_SESSIONS}/:session`,
    {
      config: { scope: 'read' },
      schema: {
        summary: 'Sign out of the console',
        description: 'Ends the session and clears its cookie.',
        params: CurrentParams,
        response: { 204: withHeaders(Type.Null(), 'Set-Cookie'), ...errorResponses(401, 403, 406) },
      },
    },
    async (request, reply) => {
      const { sessionId } = sessionOf(request);
      await store.staff.endSession(sessionIdHash(sessionId));
      return reply.status(204).header('set-cookie', clearedSessionCookie(settings)).send(null);
    },
  );
};
