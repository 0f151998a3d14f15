/**
 * Password resets: a write credential issues a single-use token for a reader (the publisher's
 * mailer sends it; circulation sends no email), and the website backend uses it to set the new
 * password. Neither request takes an Idempotency-Key: one shows a secret, the other carries two.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { formatInstant, nowInSeconds } from '../../domain/dates.js';
import {
  PASSWORD_RESET_TOKENS,
  PASSWORD_RESETS,
  PasswordResetAttributes,
  ResetTokenAttributes,
} from '../../domain/password-reset.js';
import { newPasswordProblems, USERS } from '../../domain/user.js';
import { issueResetToken, resetPassword } from '../../readers/password-reset.js';
import type { ReaderSettings } from '../../readers/settings.js';
import { errors } from '../errors.js';
import { createDocument, errorResponses } from '../jsonapi/documents.js';
import { UserParams } from '../jsonapi/params.js';
import { Identifier } from '../jsonapi/resources.js';
import { auditOf } from '../plugins/auth.js';
import type { RouteOptions } from './options.js';
import { noSuchUser } from './users.js';

const ResetTokenResource = Type.Object({
  type: Type.Literal(PASSWORD_RESET_TOKENS),
  id: Type.String(),
  attributes: ResetTokenAttributes,
  relationships: Type.Object({ user: Type.Object({ data: Identifier(USERS) }) }),
});

export const passwordResetRoutes: FastifyPluginAsyncTypebox<RouteOptions & { readers: ReaderSettings }> = async (
  app,
  { store, readers },
) => {
  app.post(
    '/users/:user_id/password-reset-tokens',
    {
      config: { showsSecret: true },
      schema: {
        params: UserParams,
        response: {
          201: Type.Object({
            data: ResetTokenResource,
            meta: Type.Object({
              token: Type.String({ description: 'Shown this once; only its hash is kept. Single use.' }),
            }),
          }),
          ...errorResponses(400, 404),
        },
      },
    },
    async (request, reply) => {
      const { user_id } = request.params;
      const issued = await issueResetToken(
        store,
        user_id,
        readers.resetTokenTtlSeconds,
        auditOf(request),
        nowInSeconds(),
      );
      if (!issued) throw noSuchUser(user_id);
      const { record, token } = issued;
      return reply.status(201).send({
        data: {
          type: PASSWORD_RESET_TOKENS,
          id: record.id,
          attributes: { createdAt: formatInstant(record.createdAt), expiresAt: formatInstant(record.expiresAt) },
          relationships: { user: { data: { type: USERS, id: record.userId } } },
        },
        meta: { token },
      });
    },
  );

  app.post(
    '/password-resets',
    {
      config: { scope: 'sign-in', showsSecret: true },
      schema: {
        body: createDocument(PASSWORD_RESETS, PasswordResetAttributes),
        response: { 204: Type.Null(), ...errorResponses(400, 403, 409, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const { data } = request.body;
      if (data.id !== undefined) throw errors.clientGeneratedId();
      const { token, password } = data.attributes;
      const problems = newPasswordProblems(password, '/data/attributes/password');
      if (problems.length > 0) throw errors.invalidAttributes(problems);
      if (
        !(await resetPassword(store, token, password, auditOf(request, ['password']), nowInSeconds(), request.deadline))
      ) {
        throw errors.resetTokenInvalid();
      }
      return reply.status(204).send(null);
    },
  );
};
