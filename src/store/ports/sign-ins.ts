/**
 * The port for readers signing in: the password hash a sign-in verifies, the attempts counted
 * per email (in the database, so that every process counts the same attempts), and the record of
 * a sign-in that succeeded.
 */
import type { AuditContext } from '../../domain/audit.js';

/** What a sign-in verifies: the user an email names, and their password hash (null: none). */
export interface SignInAccount {
  id: string;
  passwordHash: string | null;
}

/** How many attempts an email may have in a window of how many seconds. */
export interface AttemptLimits {
  maxAttempts: number;
  windowSeconds: number;
}

export type AttemptDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface SuccessfulSignIn {
  /** The email signed in with: its attempts are forgotten. */
  email: string;
  /** Epoch seconds: the user's new `lastSignInAt`. */
  at: number;
  /** A new hash of the password, to replace the one verified (`from`) if it is still the stored one. */
  rehash?: { from: string; to: string };
}

export interface SignInStore {
  /** The user with this email (compared without regard to case) and their password hash. */
  findAccount(email: string): Promise<SignInAccount | undefined>;
  /**
   * Counts an attempt to sign in with this email (compared without regard to case), atomically
   * across processes. A window opens with the first attempt; once it holds `maxAttempts`, further
   * attempts are refused, and not counted, until it has passed. A refusal says in how many seconds.
   */
  countAttempt(email: string, now: number, limits: AttemptLimits): Promise<AttemptDecision>;
  /**
   * Records a sign-in that succeeded, in one transaction: the user's last sign-in time (a change
   * of the user: its version goes up), the rehash, the attempts of the email forgotten, and the
   * `user.signed_in` event. Answers the event's id, or undefined when the user is gone.
   */
  record(userId: string, signIn: SuccessfulSignIn, audit: AuditContext): Promise<string | undefined>;
  /** Forgets the attempts of every window that began at or before `before`; answers how many. */
  forgetAttempts(before: number): Promise<number>;
}
