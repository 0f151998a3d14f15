/**
 * Console sessions: a staff member signs in with email and password (counted per email and
 * client network, see sign-in-attempts.ts, and verified by the readers' module), and gets a
 * random session id for a cookie, of which only a SHA-256 is stored. The CSRF token is derived
 * from the session id, so a page that cannot read the cookie cannot know it, and nothing more
 * need be stored.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { staffActor, type StaffMember } from '../../domain/staff.js';
import { hashPassword, needsRehash, verifyPassword } from '../../domain/password.js';
import type { AttemptLimits, LiveSessions, Store } from '../../store/port.js';
import { countStaffSignInAttempt, staffAttemptKeys } from './sign-in-attempts.js';

export const DEFAULT_CONSOLE_IDLE_MINUTES = 30;
/**
 * A working day: a session ends this long after its sign-in however much it is used, so that a
 * session id taken from a browser left signed in cannot be kept alive for ever by using it.
 */
export const DEFAULT_CONSOLE_MAX_HOURS = 12;

export interface ConsoleSettings {
  /** A session not used for this long ends. */
  idleSeconds: number;
  /** A session ends this long after it began, however much it is used. */
  maxAgeSeconds: number;
  /** The public URL is https: the cookie is `Secure` and takes the `__Host-` prefix. */
  secure: boolean;
}

export const DEFAULT_CONSOLE_SETTINGS: ConsoleSettings = {
  idleSeconds: DEFAULT_CONSOLE_IDLE_MINUTES * 60,
  maxAgeSeconds: DEFAULT_CONSOLE_MAX_HOURS * 3600,
  secure: false,
};

/** Which sessions are live at `now`: those neither idle nor too old. */
export function liveSessionsAt(
  now: number,
  settings: Pick<ConsoleSettings, 'idleSeconds' | 'maxAgeSeconds'>,
): LiveSessions {
  return { seenAfter: now - settings.idleSeconds, begunAfter: now - settings.maxAgeSeconds };
}

export type StaffSignInResult =
  | { outcome: 'signed-in'; sessionId: string; csrfToken: string; member: StaffMember }
  /** Wrong password, unknown email or a disabled account: nobody may learn which. */
  | { outcome: 'invalid' }
  | { outcome: 'throttled'; retryAfterSeconds: number };

export function sessionIdHash(sessionId: string): Buffer {
  return createHash('sha256').update(sessionId).digest();
}

export function csrfTokenOf(sessionId: string): string {
  return createHash('sha256').update(`csrf\0${sessionId}`).digest('base64url');
}

/** Compares in constant time, so the answer's timing tells nothing of how much matched. */
export function csrfTokenMatches(sessionId: string, presented: string): boolean {
  const expected = Buffer.from(csrfTokenOf(sessionId));
  const given = Buffer.from(presented);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export async function signInStaff(
  store: Store,
  { email, password, network }: { email: string; password: string; network: string },
  limits: AttemptLimits,
  now: number,
  deadline: number,
): Promise<StaffSignInResult> {
  const keys = staffAttemptKeys(email, network);
  const attempt = await countStaffSignInAttempt(store, keys, now, limits);
  // A success forgets its network's count only: the email's ceiling bounds every guess in the window.
  const attemptsKey = keys.pair;
  if (!attempt.allowed) return { outcome: 'throttled', retryAfterSeconds: attempt.retryAfterSeconds };
  const account = await store.staff.findSignIn(email);
  const stored = account?.passwordHash ?? null;
  // Verified even without an account (against a dummy): an early answer would tell the email is unknown.
  const verified = await verifyPassword(stored, password, { deadline, queue: 'public' });
  if (!account || stored === null || !verified || account.disabled) return { outcome: 'invalid' };
  const rehash = needsRehash(stored)
    ? { from: stored, to: await hashPassword(password, { deadline, queue: 'public' }) }
    : undefined;
  const sessionId = randomBytes(32).toString('base64url');
  await store.staff.createSession(
    { idHash: sessionIdHash(sessionId), staffId: account.id, now, attemptsKey, ...(rehash ? { rehash } : {}) },
    { actor: staffActor(account.id), attributes: [] },
  );
  const member = await store.staff.get(account.id);
  if (!member) return { outcome: 'invalid' };
  return { outcome: 'signed-in', sessionId, csrfToken: csrfTokenOf(sessionId), member };
}
