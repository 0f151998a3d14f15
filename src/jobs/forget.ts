/**
 * Forgetting what has served its purpose: the sign-in attempts of windows that have passed
 * (emails, which are personal data, kept no longer than they count for anything), and password
 * reset tokens that have expired, and console sessions idle past their timeout or older than
 * their lifetime (which could not be resumed anyway). A serving process does it every minute;
 * any number may at once.
 */
import { liveSessionsAt, type ConsoleSettings } from '../use-cases/staff/sessions.js';
import type { Store } from '../store/port.js';

export async function forgetExpired(
  store: Store,
  signInWindowSeconds: number,
  now: number,
  sessions: Pick<ConsoleSettings, 'idleSeconds' | 'maxAgeSeconds'>,
): Promise<{ attempts: number; resetTokens: number; staffSessions: number }> {
  const attempts = await store.signIns.forgetAttempts(now - signInWindowSeconds);
  const resetTokens = await store.passwordResets.forgetExpiredTokens(now);
  const staffSessions = await store.staff.forgetEndedSessions(liveSessionsAt(now, sessions));
  return { attempts, resetTokens, staffSessions };
}
