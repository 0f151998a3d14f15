/**
 * How console sign-ins are throttled. Counted per email alone, ten wrong passwords from anywhere
 * would lock a staff member out of the console from everywhere, and one request every 90 seconds
 * would keep them out; so failures are counted per email and client network (an IPv4 address or
 * an IPv6 /64), which locks out the network that guesses and not the staff member elsewhere.
 * A guess spread over many networks is bounded by a per-email ceiling, ten times the pair's limit
 * in the same window, past which every network is refused. A success forgets the count of its
 * pair, not the ceiling's: the ceiling bounds the guesses of a window whoever signs in meanwhile,
 * and the staff member's own few attempts hardly move it.
 *
 * The rows hold an email and an address, which are personal data; they share the readers' window,
 * so the job that forgets passed windows (jobs/forget.ts) forgets them too.
 */
import { createHash } from 'node:crypto';
import { staffAttemptsKey } from '../../domain/staff.js';
import type { AttemptDecision, AttemptLimits, Store } from '../../store/port.js';

/** How many times the limit of one (email, network) the email may have from every network together. */
export const EMAIL_CEILING_FACTOR = 10;

/**
 * The throttle's keys. Both start with `staff:` and so hold a colon before the email's @, as no
 * reader's key (a bare email) can; the pair's has a space, which no email has, so neither staff
 * key can be the other. A network not written as an address (a forwarded header may say anything)
 * is kept as its hash, so the key stays short.
 */
export function staffAttemptKeys(email: string, network: string): { pair: string; email: string } {
  const emailKey = staffAttemptsKey(email);
  const shortNetwork = /^[0-9a-f.:/]{1,45}$/i.test(network)
    ? network.toLowerCase()
    : `#${createHash('sha256').update(network).digest('base64url')}`;
  return { pair: `${emailKey} ${shortNetwork}`, email: emailKey };
}

/** The limits of an email from every network together: the ceiling, in the pair's window. */
export function emailCeiling(limits: AttemptLimits): AttemptLimits {
  return { maxAttempts: limits.maxAttempts * EMAIL_CEILING_FACTOR, windowSeconds: limits.windowSeconds };
}

/**
 * Counts an attempt, before its password is verified (so that guesses sent at once cannot outrun
 * the limit), against the pair and then the email. The pair first: an attempt its own network may
 * no longer make does not use up the email's ceiling, or one network could reach it alone.
 */
export async function countStaffSignInAttempt(
  store: Store,
  keys: { pair: string; email: string },
  now: number,
  limits: AttemptLimits,
): Promise<AttemptDecision> {
  const pair = await store.signIns.countAttempt(keys.pair, now, limits);
  if (!pair.allowed) return pair;
  return store.signIns.countAttempt(keys.email, now, emailCeiling(limits));
}
