/**
 * The port for password reset tokens: single-use, short-lived, kept only as hashes, and void as
 * soon as the user's password, or their email address, changes by any route.
 */
import type { AuditContext } from '../../domain/audit.js';

export interface PasswordResetToken {
  id: string;
  userId: string;
  /** Epoch seconds. */
  createdAt: number;
  expiresAt: number;
}

export interface NewPasswordResetToken {
  userId: string;
  tokenHash: Buffer;
  createdAt: number;
  expiresAt: number;
}

export interface PasswordResetStore {
  /** Keeps a token's hash and records its issue; undefined when there is no such user. */
  createToken(token: NewPasswordResetToken, audit: AuditContext): Promise<PasswordResetToken | undefined>;
  /**
   * Voids one token of the user (one issued for a mail that could not be sent) and records it;
   * false when it was already gone.
   */
  voidToken(userId: string, id: string, audit: AuditContext): Promise<boolean>;
  /** Whether the user has this token, unexpired at `now`. */
  hasToken(userId: string, tokenHash: Buffer, now: number): Promise<boolean>;
  /**
   * Uses the token, if it is still there and unexpired at `now`, in one transaction: the user's
   * password hash is replaced, every token of theirs is voided, the sign-in attempts of their
   * email are forgotten, and the change is recorded. False when the token was not (or no longer)
   * there, so that of two uses at once only one succeeds.
   */
  resetPassword(
    userId: string,
    tokenHash: Buffer,
    passwordHash: string,
    now: number,
    audit: AuditContext,
  ): Promise<boolean>;
  /** Forgets every token expired at `now`; answers how many. */
  forgetExpiredTokens(now: number): Promise<number>;
}
