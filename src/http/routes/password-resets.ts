/**
 * Password resets: a credential issues a single-use token for a reader, either mailed by
 * circulation to the reader (`delivery: "email"`, from write on) or in the answer (for an admin,
 * or without mail for the publisher's own mailer holding `reset-tokens`: mayBeShownResetToken),
 * and the website backend uses it to set the new password. Neither
 * request takes an Idempotency-Key: one may show a secret, the other carries two.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { formatInstant, nowInSeconds } from '../../domain/dates.js';
import {
  mayBeShownResetToken,
  PASSWORD_RESET_TOKENS,
  PASSWORD_RESETS,
  PasswordResetAttributes,
  resetLink,
  ResetTokenAttributes,
  ResetTokenCreateAttributes,
} from '../../domain/password-reset.js';
import { newPasswordProblems, USERS } from '../../domain/user.js';
import { MailUndelivered, type MailRetryPolicy } from '../../mail/delivery.js';
import type { PasswordResetToken } from '../../store/port.js';
import {
  issueResetToken,
  mailResetLink,
  resetPassword,
  type ResetMail,
} from '../../use-cases/readers/password-reset.js';
import type { ReaderSettings } from '../../use-cases/readers/settings.js';
import { errors } from '../errors.js';
import { createDocument, errorResponses, optionalBody, withExample } from '../jsonapi/documents.js';
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

/** An agent has Ada's reset link mailed to her; with it, she sets a new password on the website. */
const IssueDocument = optionalBody(
  withExample(createDocument(PASSWORD_RESET_TOKENS, ResetTokenCreateAttributes), {
    data: { type: PASSWORD_RESET_TOKENS, attributes: { delivery: 'email' } },
  }),
);
const ADA_RESET_TOKEN = 'prt_42_mcmtqs42beJWgF6XK6mn53b3s9oX0pHb5NWlob6LIto';

/** How long a client is asked to wait after the mail server failed a reset mail. */
export const MAIL_RETRY_AFTER_SECONDS = 30;

export interface PasswordResetRouteOptions extends RouteOptions {
  readers: ReaderSettings;
  /** Mailing readers their reset links; undefined when SMTP_URL (or PASSWORD_RESET_URL) is not set. */
  mail: (ResetMail & { retry: MailRetryPolicy }) | undefined;
}

function renderResetToken(record: PasswordResetToken) {
  return {
    type: PASSWORD_RESET_TOKENS as typeof PASSWORD_RESET_TOKENS,
    id: record.id,
    attributes: { createdAt: formatInstant(record.createdAt), expiresAt: formatInstant(record.expiresAt) },
    relationships: { user: { data: { type: USERS, id: record.userId } } },
  };
}

export const passwordResetRoutes: FastifyPluginAsyncTypebox<PasswordResetRouteOptions> = async (
  app,
  { store, readers, mail },
) => {
  app.post(
    '/users/:user_id/password-reset-tokens',
    {
      // Write may ask for the mail; the token in the answer needs more (mayBeShownResetToken).
      config: { scope: ['write', 'reset-tokens'], showsSecret: true },
      schema: {
        summary: 'Issue a password reset token',
        description:
          'A single-use token for the reader: mailed to them with delivery "email", or shown in the answer to an admin or a reset-tokens credential. Takes no Idempotency-Key.',
        params: UserParams,
        body: IssueDocument,
        response: {
          201: withExample(
            Type.Object({
              data: ResetTokenResource,
              meta: Type.Object({
                token: Type.Optional(
                  Type.String({
                    description: 'Shown this once; only its hash is kept. Single use. Not when the token was mailed.',
                  }),
                ),
                resetUrl: Type.Optional(
                  Type.String({
                    format: 'uri',
                    description:
                      'With PASSWORD_RESET_URL set: the link to the reset page with the token in it, shown this once. ' +
                      'Not when the token was mailed.',
                  }),
                ),
                mailed: Type.Optional(
                  Type.Boolean({
                    description: 'true: the link was mailed to the reader, and only the mail holds the token.',
                  }),
                ),
              }),
            }),
            {
              data: {
                type: PASSWORD_RESET_TOKENS,
                id: '15',
                attributes: { createdAt: '2026-07-01T08:00:00+00:00', expiresAt: '2026-07-01T09:00:00+00:00' },
                relationships: { user: { data: { type: USERS, id: '42' } } },
              },
              meta: { mailed: true },
            },
          ),
          ...errorResponses(400, 403, 404, 409, 503),
        },
      },
    },
    async (request, reply) => {
      const { user_id } = request.params;
      // A POST without a body asks for the token in the answer, as before there was a body.
      const body = request.body as Static<typeof IssueDocument> | null | undefined;
      if (body?.data.id !== undefined) throw errors.clientGeneratedId();
      const now = nowInSeconds();
      if (body?.data.attributes.delivery === 'email') {
        if (!mail) throw errors.mailNotSetUp(readers.resetPage ? ['SMTP_URL'] : ['SMTP_URL', 'PASSWORD_RESET_URL']);
        let record: PasswordResetToken | undefined;
        try {
          record = await mailResetLink(
            store,
            mail,
            user_id,
            readers.resetTokenTtlSeconds,
            auditOf(request, ['delivery']),
            now,
            {
              deadline: request.deadline,
              policy: mail.retry,
              // Never the message, its address or the server's reply: they hold the token or the reader.
              onFailure: (failure, attempt) =>
                request.log.warn({ mail: failure, attempt }, 'a reset mail was not sent'),
            },
          );
        } catch (error) {
          if (error instanceof MailUndelivered) throw errors.mailUnavailable(MAIL_RETRY_AFTER_SECONDS);
          throw error;
        }
        if (!record) throw noSuchUser(user_id);
        return reply.status(201).send({ data: renderResetToken(record), meta: { mailed: true } });
      }
      // AUTH=off lets every request in as nobody, and so shows it the token.
      const scopes = request.credential?.scopes;
      if (scopes && !mayBeShownResetToken(scopes, mail !== undefined))
        throw errors.resetTokenWithheld(mail !== undefined);
      const issued = await issueResetToken(store, user_id, readers.resetTokenTtlSeconds, auditOf(request), now);
      if (!issued) throw noSuchUser(user_id);
      const { record, token } = issued;
      const link = readers.resetPage === undefined ? {} : { resetUrl: resetLink(readers.resetPage, token) };
      return reply.status(201).send({ data: renderResetToken(record), meta: { token, ...link } });
    },
  );

  app.post(
    '/password-resets',
    {
      config: { scope: 'sign-in', showsSecret: true },
      schema: {
        summary: 'Reset a password',
        description: 'Sets the reader’s new password with a reset token, which it uses up. Takes no Idempotency-Key.',
        body: withExample(createDocument(PASSWORD_RESETS, PasswordResetAttributes), {
          data: {
            type: PASSWORD_RESETS,
            attributes: { token: ADA_RESET_TOKEN, password: 'a new and longer passphrase' },
          },
        }),
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
