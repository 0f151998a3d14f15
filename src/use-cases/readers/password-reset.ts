/**
 * Resetting a reader's password: a token, kept only as a hash, either shown once to whoever
 * issued it (for the publisher's own mailer) or mailed by circulation to the reader inside a
 * link to the publisher's reset page; then used once to set a new password.
 */
import type { AuditContext } from '../../domain/audit.js';
import { hashPassword } from '../../domain/password.js';
import { newResetToken, parseResetToken, resetLink } from '../../domain/password-reset.js';
import { deliver, type DeliveryOptions } from '../../mail/delivery.js';
import type { Mailer } from '../../mail/port.js';
import { renderPasswordReset, type MailTemplates } from '../../mail/templates.js';
import type { PasswordResetToken, Store } from '../../store/port.js';

export interface IssuedResetToken {
  record: PasswordResetToken;
  /** Shown once; only its hash is kept. */
  token: string;
}

/** A new token for the user, valid for `ttlSeconds`; undefined when there is no such user. */
export async function issueResetToken(
  store: Store,
  userId: string,
  ttlSeconds: number,
  audit: AuditContext,
  now: number,
): Promise<IssuedResetToken | undefined> {
  const { token, hash } = newResetToken(userId);
  const record = await store.passwordResets.createToken(
    { userId, tokenHash: hash, createdAt: now, expiresAt: now + ttlSeconds },
    audit,
  );
  return record && { record, token };
}

export interface ResetMail {
  mailer: Mailer;
  templates: MailTemplates;
  /** PASSWORD_RESET_URL: the reset page, with `{token}` where the token goes. */
  resetPage: string;
}

/**
 * Issues a token and mails the reader the link to the reset page holding it; the record, or
 * undefined when there is no such user. The token is never returned nor kept: only the mail
 * holds it. When the mail cannot be sent the token is voided again and delivery's
 * MailUndelivered is thrown, so that no token nobody received is left working.
 */
export async function mailResetLink(
  store: Store,
  mail: ResetMail,
  userId: string,
  ttlSeconds: number,
  audit: AuditContext,
  now: number,
  delivery: DeliveryOptions,
): Promise<PasswordResetToken | undefined> {
  const issued = await issueResetToken(store, userId, ttlSeconds, audit, now);
  if (!issued) return undefined;
  // Read after the issue: an email changed since voids the token, so it never reaches an old address.
  const user = await store.users.get(userId);
  if (!user) return undefined;
  const name = (field: string) => {
    const value = user.fields[field];
    return typeof value === 'string' ? value : undefined;
  };
  const message = renderPasswordReset(mail.templates.passwordReset, {
    resetUrl: resetLink(mail.resetPage, issued.token),
    email: user.email,
    givenName: name('givenName'),
    familyName: name('familyName'),
    expiresInMinutes: Math.round(ttlSeconds / 60),
  });
  try {
    await deliver(mail.mailer, { to: user.email, ...message }, delivery);
  } catch (error) {
    // Nobody but this process ever saw the token, so one left behind by a failing store is
    // harmless until it expires; the answer is about the mail either way.
    await store.passwordResets.voidToken(userId, issued.record.id, { ...audit, attributes: [] }).catch(() => false);
    throw error;
  }
  return issued.record;
}

/**
 * Sets the password the token is for; false when the token is malformed, unknown, expired or
 * used. The token is checked before the (costly) hash is made, and used atomically after.
 */
export async function resetPassword(
  store: Store,
  token: string,
  password: string,
  audit: AuditContext,
  now: number,
  deadline: number,
): Promise<boolean> {
  const parsed = parseResetToken(token);
  if (!parsed || !(await store.passwordResets.hasToken(parsed.userId, parsed.hash, now))) return false;
  const passwordHash = await hashPassword(password, { deadline });
  return store.passwordResets.resetPassword(parsed.userId, parsed.hash, passwordHash, now, audit);
}
