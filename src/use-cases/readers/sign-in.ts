/**
 * A reader signing in, for the website backend that asks: the attempt is counted first (so that
 * concurrent guesses cannot outrun the throttle), then the password is verified, against a dummy
 * hash when the email names nobody, and a failure answers no sooner than the failure floor after
 * the attempt began, so that the answer takes as long whether the email is unknown or names a
 * reader with a dear imported hash. On success the sign-in is recorded, at once, and a hash
 * brought from another system or made with older parameters is replaced by an argon2id hash of
 * today.
 */
import type { AuditContext } from '../../domain/audit.js';
import { hashPassword, needsRehash, notBeforeFloor, verifyPassword } from '../../domain/password.js';
import type { AttemptLimits, Store, StoredUser } from '../../store/port.js';

export interface Credentials {
  email: string;
  password: string;
}

export type SignInResult =
  | { outcome: 'signed-in'; id: string; at: number; user: StoredUser }
  /** Wrong password, unknown email, or a reader without a password: nobody may learn which. */
  | { outcome: 'invalid' }
  | { outcome: 'throttled'; retryAfterSeconds: number };

export async function signIn(
  store: Store,
  { email, password }: Credentials,
  limits: AttemptLimits,
  audit: AuditContext,
  now: number,
  deadline: number,
  failureFloorMs: number,
): Promise<SignInResult> {
  const started = performance.now();
  const invalid = async (): Promise<SignInResult> => {
    await notBeforeFloor(started, failureFloorMs);
    return { outcome: 'invalid' };
  };
  const attempt = await store.signIns.countAttempt(email, now, limits);
  if (!attempt.allowed) return { outcome: 'throttled', retryAfterSeconds: attempt.retryAfterSeconds };
  const account = await store.signIns.findAccount(email);
  const stored = account?.passwordHash ?? null;
  // Verified even without a hash (against a dummy): an early answer would tell the email is unknown.
  const verified = await verifyPassword(stored, password, { deadline });
  if (!account || stored === null || !verified) return invalid();
  const rehash = needsRehash(stored) ? { from: stored, to: await hashPassword(password, { deadline }) } : undefined;
  const id = await store.signIns.record(account.id, { email, at: now, ...(rehash ? { rehash } : {}) }, audit);
  const user = id === undefined ? undefined : await store.users.get(account.id);
  // Erased while signing in: as if the email had named nobody.
  if (id === undefined || !user) return invalid();
  return { outcome: 'signed-in', id, at: now, user };
}
