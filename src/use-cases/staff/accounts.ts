/**
 * Opening a staff account: the password given, or a random one made here and shown once (by the
 * command, or in the create response), hashed like a reader's. Changing one: its name, role,
 * whether it is disabled, and its password (a staff member's own verified as a sign-in is).
 */
import type { AuditContext } from '../../domain/audit.js';
import { nowInSeconds } from '../../domain/dates.js';
import { failures } from '../../domain/failures.js';
import { hashPassword } from '../../domain/password.js';
import type { StaffCreate, StaffMember } from '../../domain/staff.js';
import type { AttemptLimits, IfVersion, PasswordChange, StaffChanges, Store } from '../../store/port.js';
import { changeOwnPassword, makeStaffPassword, type OwnPasswordChange } from './passwords.js';

export interface OpenedAccount {
  member: StaffMember;
  /** The password made for the account when none was given: shown this once. */
  initialPassword?: string;
}

export async function openStaffAccount(store: Store, input: StaffCreate, audit: AuditContext): Promise<OpenedAccount> {
  const initialPassword = input.password === undefined ? makeStaffPassword() : undefined;
  const passwordHash = await hashPassword(input.password ?? (initialPassword as string));
  const member = await store.staff.create(
    { email: input.email, name: input.name, role: input.role, passwordHash, createdAt: nowInSeconds() },
    audit,
  );
  return initialPassword === undefined ? { member } : { member, initialPassword };
}

/** A change of an account, its values already checked. */
export interface AccountChange {
  name?: StaffChanges['name'];
  role?: StaffChanges['role'];
  /** True disables the account (and ends its sessions), false enables it. */
  disabled?: boolean;
  /** A new password set as it is (an admin's change): its sessions all end. */
  password?: string;
  /** A staff member's own new password, with the current one to verify first; their session goes on. */
  ownPassword?: OwnPasswordChange;
  ifVersion: IfVersion;
}

/** What a change of an account came to: the account as it now is, none, or too many guesses of a password. */
export type AccountChanged =
  | { outcome: 'changed'; member: StaffMember }
  | { outcome: 'none' }
  | { outcome: 'throttled'; retryAfterSeconds: number };

/**
 * Changes the account. A staff member's own current password is verified (and the attempt
 * counted) before anything is written: an incorrect one is the failure that says so.
 */
export async function changeStaffAccount(
  store: Store,
  id: string,
  change: AccountChange,
  { limits, now, deadline }: { limits: AttemptLimits; now: number; deadline: number },
  audit: AuditContext,
): Promise<AccountChanged> {
  const { name, role, disabled, password, ownPassword, ifVersion } = change;
  let passwordChange: PasswordChange | undefined;
  if (ownPassword !== undefined) {
    const checked = await changeOwnPassword(store, ownPassword, limits, now, deadline);
    if (checked.outcome === 'throttled') return checked;
    if (checked.outcome === 'incorrect') throw failures.currentPasswordIncorrect();
    passwordChange = checked.change;
  } else if (password !== undefined) {
    passwordChange = { hash: await hashPassword(password, { deadline }) };
  }
  const member = await store.staff.update(
    id,
    {
      ...(name === undefined ? {} : { name }),
      ...(role === undefined ? {} : { role }),
      ...(disabled === undefined ? {} : { disabledAt: disabled ? now : null }),
      ...(passwordChange === undefined ? {} : { password: passwordChange }),
    },
    audit,
    ifVersion,
  );
  return member ? { outcome: 'changed', member } : { outcome: 'none' };
}
