/**
 * Sign-in attempts as every adapter keeps them: one row per email (lower-cased) holding the
 * attempts of its current window. Counting is one statement, an upsert whose row lock (or
 * SQLite's single writer) makes concurrent attempts from any number of processes each count once.
 */
import type { AttemptDecision, AttemptLimits } from '../port.js';
import { staffAttemptsKey } from '../../domain/staff.js';
import { sql, type Sql } from './builder.js';

/**
 * Counts an attempt: a new window when there is none or it has passed, one more attempt while it
 * holds fewer than the limit; when it is full nothing changes and the statement answers no row.
 */
export function countAttempt(emailLower: string, now: number, limits: AttemptLimits): Sql {
  const passed = now - limits.windowSeconds;
  return sql`INSERT INTO sign_in_attempts (email_lower, attempts, window_started_at) VALUES (${emailLower}, 1, ${now})
    ON CONFLICT (email_lower) DO UPDATE SET
      attempts = CASE WHEN sign_in_attempts.window_started_at <= ${passed} THEN 1
        ELSE sign_in_attempts.attempts + 1 END,
      window_started_at = CASE WHEN sign_in_attempts.window_started_at <= ${passed} THEN ${now}
        ELSE sign_in_attempts.window_started_at END
    WHERE sign_in_attempts.window_started_at <= ${passed} OR sign_in_attempts.attempts < ${limits.maxAttempts}
    RETURNING attempts`;
}

export function windowStart(emailLower: string): Sql {
  return sql`SELECT window_started_at FROM sign_in_attempts WHERE email_lower = ${emailLower}`;
}

/** What a counted (a row answered) or refused attempt means, given when its window began. */
export function attemptDecision(
  counted: boolean,
  windowStartedAt: unknown,
  now: number,
  limits: AttemptLimits,
): AttemptDecision {
  if (counted) return { allowed: true };
  const endsAt = Number(windowStartedAt ?? now) + limits.windowSeconds;
  return { allowed: false, retryAfterSeconds: Math.max(1, endsAt - now) };
}

/** Forgets the attempts counted under one key: a reader's lower-cased email, or a staff member's `staff:` key. */
export function forgetAttemptsOf(attemptsKey: string): Sql {
  return sql`DELETE FROM sign_in_attempts WHERE email_lower = ${attemptsKey}`;
}

/**
 * Forgets every attempt counted against a staff member's email: the email's own key and that of
 * each (email, network) pair, which starts with it and a space (use-cases/staff/sign-in-attempts.ts), so
 * that a password reset also lifts a lockout. The table holds one window's rows: a scan is short.
 */
export function forgetStaffAttemptsOf(email: string): Sql {
  const key = staffAttemptsKey(email);
  const pairs = `${key} `;
  return sql`DELETE FROM sign_in_attempts
    WHERE email_lower = ${key} OR substr(email_lower, 1, length(${pairs})) = ${pairs}`;
}

export function forgetAttempts(before: number): Sql {
  return sql`DELETE FROM sign_in_attempts WHERE window_started_at <= ${before}`;
}
