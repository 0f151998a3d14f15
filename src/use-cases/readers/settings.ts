/**
 * The settings of readers' sign-ins and password resets, with their defaults (see config.ts for
 * the environment variables). Ten attempts an email in 15 minutes is OWASP ASVS's limit (2.2.1).
 */
import type { AttemptLimits } from '../../store/port.js';

export const DEFAULT_SIGN_IN_MAX_ATTEMPTS = 10;
export const DEFAULT_SIGN_IN_WINDOW_MINUTES = 15;
export const DEFAULT_RESET_TOKEN_TTL_MINUTES = 60;
/**
 * The least time a failed sign-in takes (a reader's or a staff member's): a little above the
 * dearest hash an import may bring, bcrypt of cost 14, so that no failure answers sooner for one
 * email than for another. Successes do not wait.
 */
export const DEFAULT_SIGN_IN_FAILURE_FLOOR_MS = 1500;

export interface ReaderSettings {
  /** Sign-in attempts an email may have, in a window that opens with the first of them. */
  signIn: AttemptLimits;
  /** How long a password reset token stays valid. */
  resetTokenTtlSeconds: number;
  /** The least time a failed sign-in takes, in ms. */
  failureFloorMs: number;
  /**
   * PASSWORD_RESET_URL: the publisher's reset page, with `{token}` where the token goes; what a
   * mailed reset links to, and what an answer with the token offers as a link too.
   */
  resetPage?: string | undefined;
}

export const DEFAULT_READER_SETTINGS: ReaderSettings = {
  signIn: { maxAttempts: DEFAULT_SIGN_IN_MAX_ATTEMPTS, windowSeconds: DEFAULT_SIGN_IN_WINDOW_MINUTES * 60 },
  resetTokenTtlSeconds: DEFAULT_RESET_TOKEN_TTL_MINUTES * 60,
  failureFloorMs: DEFAULT_SIGN_IN_FAILURE_FLOOR_MS,
};
