/**
 * Forgetting what has served its purpose: the sign-in attempts of windows that have passed
 * (emails, which are personal data, kept no longer than they count for anything), and password
 * reset tokens that have expired. A serving process does it every minute; any number may at once.
 */
import type { Store } from '../store/port.js';

export async function forgetExpired(
  store: Store,
  signInWindowSeconds: number,
  now: number,
): Promise<{ attempts: number; resetTokens: number }> {
  const attempts = await store.forgetSignInAttempts(now - signInWindowSeconds);
  const resetTokens = await store.forgetExpiredPasswordResetTokens(now);
  return { attempts, resetTokens };
}
