/**
 * Staff and their sessions as every adapter keeps them: the columns, how a row reads back, and
 * the statements that are the same in both dialects. Instants are epoch seconds in both.
 */
import type { Role, StaffMember } from '../../domain/staff.js';
import type { LiveSessions, StaffChanges } from '../ports/staff.js';
import { sql, type Sql } from './builder.js';
import { forgetStaffAttemptsOf } from './sign-ins.js';
import type { Row } from './rows.js';

export const STAFF_COLUMNS = 'id, email, name, role, created_at, disabled_at, version';

export function toStaffMember(row: Row): StaffMember {
  return {
    id: String(row.id),
    email: row.email as string,
    name: row.name as string,
    role: row.role as Role,
    createdAt: Number(row.created_at),
    disabledAt: row.disabled_at === null ? null : Number(row.disabled_at),
    version: Number(row.version),
  };
}

/**
 * The update of an account's changed columns; a change of `disabledAt` keeps the first instant.
 * It changes no row when the password it replaces is no longer the stored one.
 */
export function updateStaffRow(id: string, changes: StaffChanges): Sql {
  const disabled = changes.disabledAt === undefined ? null : changes.disabledAt === null ? 'enable' : 'disable';
  return sql`UPDATE staff SET
      name = coalesce(${changes.name ?? null}, name),
      role = coalesce(${changes.role ?? null}, role),
      disabled_at = CASE ${disabled} WHEN 'enable' THEN NULL
        WHEN 'disable' THEN coalesce(disabled_at, ${changes.disabledAt ?? null}) ELSE disabled_at END,
      password_hash = coalesce(${changes.password?.hash ?? null}, password_hash),
      version = version + 1
    WHERE id = ${id} AND password_hash = coalesce(${changes.password?.replacing ?? null}, password_hash)`;
}

/** The sessions a change ends: all of them when it disables the account, all but the one kept for a new password. */
export function sessionsEndedBy(id: string, changes: StaffChanges): Sql | undefined {
  if (changes.disabledAt != null) return endSessionsOf(id);
  if (changes.password === undefined) return undefined;
  const keep = changes.password.keepSession;
  return keep === undefined
    ? endSessionsOf(id)
    : sql`DELETE FROM staff_sessions WHERE staff_id = ${id} AND id_hash <> ${keep}`;
}

/**
 * The sign-in attempts a change forgets: every one against the email when an admin or the command
 * line resets the password (none replaced), so that the reset also lifts a lockout. A staff
 * member's change of their own keeps them: it has just been counted as one.
 */
export function attemptsForgottenBy(member: StaffMember, changes: StaffChanges): Sql | undefined {
  return changes.password !== undefined && changes.password.replacing === undefined
    ? forgetStaffAttemptsOf(member.email)
    : undefined;
}

export function staffSignIn(emailLower: string): Sql {
  return sql`SELECT id, password_hash, disabled_at FROM staff WHERE email_lower = ${emailLower}`;
}

export function rehashStaff(staffId: string, from: string, to: string): Sql {
  return sql`UPDATE staff SET password_hash = ${to} WHERE id = ${staffId} AND password_hash = ${from}`;
}

export function insertSession(idHash: Buffer, staffId: string, now: number): Sql {
  return sql`INSERT INTO staff_sessions (id_hash, staff_id, created_at, last_seen_at)
    VALUES (${idHash}, ${staffId}, ${now}, ${now})`;
}

export function touchSession(idHash: Buffer, now: number, live: LiveSessions): Sql {
  return sql`UPDATE staff_sessions SET last_seen_at = ${now}
    WHERE id_hash = ${idHash} AND last_seen_at > ${live.seenAfter} AND created_at > ${live.begunAfter}
    RETURNING staff_id`;
}

export function endSession(idHash: Buffer): Sql {
  return sql`DELETE FROM staff_sessions WHERE id_hash = ${idHash}`;
}

export function endSessionsOf(staffId: string): Sql {
  return sql`DELETE FROM staff_sessions WHERE staff_id = ${staffId}`;
}

/** A scan when it is not idleness that ends them: a handful of rows, which no index need serve. */
export function forgetEndedSessions(live: LiveSessions): Sql {
  return sql`DELETE FROM staff_sessions WHERE last_seen_at <= ${live.seenAfter} OR created_at <= ${live.begunAfter}`;
}
