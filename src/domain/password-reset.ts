/**
 * Password reset tokens: `prt_<user id>_<43 random characters>`, single-use, short-lived, kept
 * only as a SHA-256 of the random part (256 random bits need no slow hash). The user id lets a
 * token be found among its user's own, the way a credential's id finds its credential.
 */
import { Type } from '@sinclair/typebox';
import { allows, hashSecret, newSecret, type Scope } from './api-key.js';
import { StringEnum } from './schema.js';
import { Password } from './user.js';

export const PASSWORD_RESETS = 'password-resets';
export const PASSWORD_RESET_TOKENS = 'password-reset-tokens';

const TOKEN = /^prt_([1-9][0-9]{0,14})_([A-Za-z0-9_-]{43})$/;

/** A fresh token for the user, and the hash of it to keep. */
export function newResetToken(userId: string): { token: string; hash: Buffer } {
  const { random, hash } = newSecret();
  return { token: `prt_${userId}_${random}`, hash };
}

/** The user and hash a presented token names, or undefined when it has not the form of one. */
export function parseResetToken(token: string): { userId: string; hash: Buffer } | undefined {
  const m = TOKEN.exec(token);
  return m ? { userId: m[1] as string, hash: hashSecret(m[2] as string) } : undefined;
}

/**
 * Who may be shown a reset token in the answer, rather than have it mailed to the reader. Whoever
 * sees one can set the reader's password on the website and take the account, so never `write`
 * (an agent, a CRM). While the service mails resets (`mailing`: SMTP_URL and PASSWORD_RESET_URL
 * set), only `admin`: everyone else asks for the mail, which only the reader's mailbox receives.
 * Without mail, also `reset-tokens`, the scope of a website backend that mails the link itself.
 */
export function mayBeShownResetToken(scopes: readonly Scope[], mailing: boolean): boolean {
  return allows(scopes, mailing ? 'admin' : 'reset-tokens');
}

/** Where PASSWORD_RESET_URL puts the token. */
export const TOKEN_PLACEHOLDER = '{token}';

/** The link to the publisher's reset page (PASSWORD_RESET_URL) carrying the token, percent-encoded. */
export function resetLink(pageTemplate: string, token: string): string {
  return pageTemplate.replaceAll(TOKEN_PLACEHOLDER, encodeURIComponent(token));
}

/** Why a PASSWORD_RESET_URL cannot be used, or undefined when it can. */
export function resetUrlProblem(pageTemplate: string): string | undefined {
  if (!pageTemplate.includes(TOKEN_PLACEHOLDER)) return `has no ${TOKEN_PLACEHOLDER} for the token to go in`;
  let url: URL;
  try {
    url = new URL(resetLink(pageTemplate, 'prt_1_token'));
  } catch {
    return 'is not an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'is not an http(s) URL';
  return undefined;
}

export const PasswordResetAttributes = Type.Object(
  {
    token: Type.String({
      maxLength: 256,
      description: 'The token from meta.token of POST /users/{id}/password-reset-tokens.',
    }),
    password: Password,
  },
  { additionalProperties: false },
);

/** How a token is asked to reach the reader; left out, it is in the answer. */
export const ResetTokenCreateAttributes = Type.Object(
  {
    delivery: Type.Optional(
      StringEnum(['email'] as const, {
        description:
          'email: mail the reader a link to the reset page with the token in it (SMTP_URL, PASSWORD_RESET_URL); ' +
          'the answer then holds no token. Left out, the token is in meta.token (and the link in meta.resetUrl), ' +
          'for an admin credential only while the service mails resets, and otherwise for admin or reset-tokens; ' +
          'anyone else gets 403 RESET_TOKEN_WITHHELD.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ResetTokenAttributes = Type.Object({
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time', description: 'After this the token is refused.' }),
});
