/**
 * Opening a staff account: the password given, or a random one made here and shown once (by the
 * command, or in the create response), hashed like a reader's.
 */
import type { AuditContext } from '../../domain/audit.js';
import { nowInSeconds } from '../../domain/dates.js';
import { hashPassword } from '../../domain/password.js';
import type { StaffCreate, StaffMember } from '../../domain/staff.js';
import type { Store } from '../../store/port.js';
import { makeStaffPassword } from './passwords.js';

export interface OpenedAccount {
  member: StaffMember;
  /** The password made for the account when none was given: shown this once. */
  initialPassword?: string;
}

export async function openStaffAccount(store: Store, input: StaffCreate, audit: AuditContext): Promise<OpenedAccount> {
  const initialPassword = input.password === undefined ? makeStaffPassword() : undefined;
  const passwordHash = await hashPassword(input.password ?? (initialPassword as string));
  const member = await store.createStaff(
    { email: input.email, name: input.name, role: input.role, passwordHash, createdAt: nowInSeconds() },
    audit,
  );
  return initialPassword === undefined ? { member } : { member, initialPassword };
}
