/**
 * /sign-ins: a website backend verifies a reader's email and password. Every failure reads the
 * same, and takes as long (SIGN_IN_FAILURE_FLOOR_MS), whether the email is unknown, the reader has
 * no password, or the password is wrong.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { formatInstant, nowInSeconds } from '../../domain/dates.js';
import { SIGN_INS, SignInAttributes, SignInCreateAttributes } from '../../domain/sign-in.js';
import { USERS } from '../../domain/user.js';
import { signIn } from '../../use-cases/readers/sign-in.js';
import type { ReaderSettings } from '../../use-cases/readers/settings.js';
import { errors } from '../errors.js';
import { createDocument, errorResponses, withExample } from '../jsonapi/documents.js';
import { ADA, AdaResource, Identifier, renderUser, UserResource } from '../jsonapi/resources.js';
import { auditOf } from '../plugins/auth.js';
import type { RouteOptions } from './options.js';

const SignInResource = Type.Object({
  type: Type.Literal(SIGN_INS),
  id: Type.String({ description: 'The id of the user.signed_in event this sign-in recorded (GET /events).' }),
  attributes: SignInAttributes,
  relationships: Type.Object({ user: Type.Object({ data: Identifier(USERS) }) }),
});

export const signInRoutes: FastifyPluginAsyncTypebox<RouteOptions & { readers: ReaderSettings }> = async (
  app,
  { store, baseUrl, readers },
) => {
  app.post(
    '/sign-ins',
    {
      // The body carries a password: nothing of it may be kept to replay (no Idempotency-Key).
      config: { scope: 'sign-in', showsSecret: true },
      schema: {
        summary: 'Verify a reader’s password',
        description:
          'A website backend checks a reader’s email and password; every failure reads the same and takes as long. Takes no Idempotency-Key.',
        body: withExample(createDocument(SIGN_INS, SignInCreateAttributes), {
          data: { type: SIGN_INS, attributes: { email: ADA.email, password: 'correct horse battery' } },
        }),
        response: {
          201: withExample(Type.Object({ data: SignInResource, included: Type.Array(UserResource) }), {
            data: {
              type: SIGN_INS,
              id: '7',
              attributes: { signedInAt: '2026-05-04T09:30:00+00:00' },
              relationships: { user: { data: { type: USERS, id: '42' } } },
            },
            included: [AdaResource],
          }),
          ...errorResponses(400, 403, 409, 413, 415, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const { data } = request.body;
      if (data.id !== undefined) throw errors.clientGeneratedId();
      const result = await signIn(
        store,
        data.attributes,
        readers.signIn,
        auditOf(request),
        nowInSeconds(),
        request.deadline,
        readers.failureFloorMs,
      );
      if (result.outcome === 'throttled') throw errors.signInThrottled(result.retryAfterSeconds);
      if (result.outcome === 'invalid') throw errors.invalidCredentials();
      const { id, at, user } = result;
      return reply.status(201).send({
        data: {
          type: SIGN_INS,
          id,
          attributes: { signedInAt: formatInstant(at) },
          relationships: { user: { data: { type: USERS, id: user.id } } },
        },
        included: [renderUser(baseUrl(request), user)],
      });
    },
  );
};
