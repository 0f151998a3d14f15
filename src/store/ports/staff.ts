/**
 * The port for staff accounts and their console sessions. A password is kept only as its hash,
 * a session only as a SHA-256 of its id, so that neither can be read back from the database.
 * Sessions live in the database, not in a process: ending one (a sign-out, a disabled account)
 * holds from the next request on, in every process.
 */
import type { AuditContext } from '../../domain/audit.js';
import type { Role, StaffMember } from '../../domain/staff.js';
import type { IfVersion } from './versions.js';

export interface NewStaffMember {
  email: string;
  name: string;
  role: Role;
  passwordHash: string;
  createdAt: number;
}

export interface StaffChanges {
  name?: string;
  role?: Role;
  /** An instant disables the account and ends its sessions; null enables it. */
  disabledAt?: number | null;
  /** A new password, which ends the account's sessions but one (see PasswordChange). */
  password?: PasswordChange;
}

export interface PasswordChange {
  /** The hash of the new password. */
  hash: string;
  /** The SHA-256 of the session that changed its own password, which goes on; every other ends. */
  keepSession?: Buffer;
  /**
   * The hash the current password was verified against: if another change has replaced it since,
   * nothing is written and the change fails at /data/attributes/currentPassword, so that a change
   * verified against a password an admin has just reset cannot undo the reset.
   */
  replacing?: string;
}

/** What a staff sign-in verifies: the account an email names, and its password hash. */
export interface StaffSignInAccount {
  id: string;
  passwordHash: string;
  disabled: boolean;
}

export interface NewStaffSession {
  /** SHA-256 of the session id the cookie carries. */
  idHash: Buffer;
  staffId: string;
  now: number;
  /** The throttle's key whose attempts are forgotten: the email and network signed in from, not the email's ceiling. */
  attemptsKey: string;
  /** A new hash of the password, to replace the one verified (`from`) if it is still the stored one. */
  rehash?: { from: string; to: string };
}

/**
 * Which sessions are live: seen after `seenAfter` (else idle too long) and begun after
 * `begunAfter` (else older than a session may be, however much it is used).
 */
export interface LiveSessions {
  seenAfter: number;
  begunAfter: number;
}

export interface StaffStore {
  /** A duplicate email (compared without regard to case) is the EMAIL_TAKEN failure. */
  create(member: NewStaffMember, audit: AuditContext): Promise<StaffMember>;
  get(id: string): Promise<StaffMember | undefined>;
  list(): Promise<StaffMember[]>;
  /**
   * Changes the account; disabling it deletes its sessions in the same transaction, and so does a
   * new password (but the session it keeps).
   */
  update(
    id: string,
    changes: StaffChanges,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<StaffMember | undefined>;
  findSignIn(email: string): Promise<StaffSignInAccount | undefined>;
  /** Starts a session, forgets the attempts of `attemptsKey`, applies the rehash and records the sign-in. */
  createSession(session: NewStaffSession, audit: AuditContext): Promise<void>;
  /**
   * The enabled staff member of a live session (see LiveSessions), whose last-seen time becomes
   * `now`; undefined for an unknown, idle, too old or disabled one.
   */
  resumeSession(idHash: Buffer, now: number, live: LiveSessions): Promise<StaffMember | undefined>;
  /** Ends a session; false when there was none. */
  endSession(idHash: Buffer): Promise<boolean>;
  /** Forgets the sessions that are no longer live; answers how many. */
  forgetEndedSessions(live: LiveSessions): Promise<number>;
}
