/**
 * Changing a staff password. A staff member changes their own by giving the current one, which is
 * verified like a console sign-in and counted with the same keys (their email and the client
 * network, and the email's ceiling): otherwise a session left open, or taken, would be an oracle
 * for the password at the request rate, a password that may open more than the console. An admin
 * (or the command line, for an operator locked out of the console) sets another's without it.
 * Either way every other session of the account ends in the same write (the store's staff.update).
 */
import { randomBytes } from 'node:crypto';
import type { AuditContext } from '../../domain/audit.js';
import { hashPassword, verifyPassword } from '../../domain/password.js';
import type { StaffMember } from '../../domain/staff.js';
import type { AttemptLimits, PasswordChange, Store } from '../../store/port.js';
import { countStaffSignInAttempt, staffAttemptKeys } from './sign-in-attempts.js';

/** A password made for a staff member (a new account's, a reset's): 144 random bits, shown once. */
export function makeStaffPassword(): string {
  return randomBytes(18).toString('base64url');
}

export type OwnPasswordCheck =
  /** The new password's change, to be written with the account's other changes. */
  | { outcome: 'verified'; change: PasswordChange }
  | { outcome: 'incorrect' }
  | { outcome: 'throttled'; retryAfterSeconds: number };

/**
 * Verifies a staff member's current password and hashes their new one, to be written keeping
 * `sessionIdHash`'s session.
 */
export async function changeOwnPassword(
  store: Store,
  { member, currentPassword, password, network, sessionIdHash }: OwnPasswordChange,
  limits: AttemptLimits,
  now: number,
  deadline: number,
): Promise<OwnPasswordCheck> {
  // Counted first, as a sign-in is, so that guesses sent at once cannot outrun the limit.
  const attempt = await countStaffSignInAttempt(store, staffAttemptKeys(member.email, network), now, limits);
  if (!attempt.allowed) return { outcome: 'throttled', retryAfterSeconds: attempt.retryAfterSeconds };
  const account = await store.staff.findSignIn(member.email);
  if (!account || account.id !== member.id) return { outcome: 'incorrect' };
  if (!(await verifyPassword(account.passwordHash, currentPassword, { deadline }))) return { outcome: 'incorrect' };
  const hash = await hashPassword(password, { deadline });
  return { outcome: 'verified', change: { hash, keepSession: sessionIdHash, replacing: account.passwordHash } };
}

export interface OwnPasswordChange {
  member: StaffMember;
  currentPassword: string;
  password: string;
  /** The client network the change comes from, as a sign-in's (domain/client-network.ts). */
  network: string;
  /** The session that makes the change, which goes on. */
  sessionIdHash: Buffer;
}

/**
 * Sets a password made here for the staff member `email` names (to be shown once), and ends every
 * session of theirs; undefined when there is no such staff member.
 */
export async function resetStaffPassword(
  store: Store,
  email: string,
  audit: AuditContext,
): Promise<{ member: StaffMember; password: string } | undefined> {
  const account = await store.staff.findSignIn(email);
  if (!account) return undefined;
  const password = makeStaffPassword();
  const member = await store.staff.update(account.id, { password: { hash: await hashPassword(password) } }, audit);
  return member && { member, password };
}
