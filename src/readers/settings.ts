/**
 * The settings of readers' sign-ins and password resets, with their defaults (see config.ts for
 * the environment variables). Ten attempts an email in 15 minutes is OWASP ASVS's limit (2.2.1).
 */
import type { AttemptLimits } from '../store/port.js';

export const DEFAULT_SIGN_IN_MAX_ATTEMPTS = 10;
export const DEFAULT_SIGN_IN_WINDOW_MINUTES = 15;
export const DEFAULT_RESET_TOKEN_TTL_MINUTES = 60;

export interface ReaderSettings {
  /** Sign-in attempts an email may have, in a window that opens with the first of them. */
  signIn: AttemptLimits;
  /** How long a password reset token stays valid. */
  resetTokenTtlSeconds: number;
}

export const DEFAULT_READER_SETTINGS: ReaderSettings = {
  signIn: { maxAttempts: DEFAULT_SIGN_IN_MAX_ATTEMPTS, windowSeconds: DEFAULT_SIGN_IN_WINDOW_MINUTES * 60 },
  resetTokenTtlSeconds: DEFAULT_RESET_TOKEN_TTL_MINUTES * 60,
};
