/**
 * Resetting a reader's password: a token issued for the publisher's mailer to send (circulation
 * sends no email), shown once and kept only as a hash, then used once to set a new password.
 */
import type { AuditContext } from '../domain/audit.js';
import { hashPassword } from '../domain/password.js';
import { newResetToken, parseResetToken } from '../domain/password-reset.js';
import type { PasswordResetToken, Store } from '../store/port.js';

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
  const record = await store.createPasswordResetToken(
    { userId, tokenHash: hash, createdAt: now, expiresAt: now + ttlSeconds },
    audit,
  );
  return record && { record, token };
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
  if (!parsed || !(await store.hasPasswordResetToken(parsed.userId, parsed.hash, now))) return false;
  const passwordHash = await hashPassword(password, { deadline });
  return store.resetPassword(parsed.userId, parsed.hash, passwordHash, now, audit);
}
