/**
 * Staff and their console sessions on SQLite.
 */
import type { AuditContext } from '../../domain/audit.js';
import { emailKeys } from '../../domain/email.js';
import { failures } from '../../domain/failures.js';
import { STAFF, type StaffMember } from '../../domain/staff.js';
import type { IfVersion, LiveSessions, NewStaffMember, NewStaffSession, StaffChanges, StaffStore } from '../port.js';
import {
  attemptsForgottenBy,
  endSession,
  forgetEndedSessions,
  insertSession,
  rehashStaff,
  sessionsEndedBy,
  STAFF_COLUMNS,
  staffSignIn,
  toStaffMember,
  touchSession,
  updateStaffRow,
} from '../sql/staff.js';
import { forgetAttemptsOf } from '../sql/sign-ins.js';
import type { Row } from '../sql/rows.js';
import type { SqliteDatabase } from './database.js';

export function sqliteStaff(database: SqliteDatabase): StaffStore {
  const { db } = database;

  const insert = db.prepare(`
    INSERT INTO staff (email, email_lower, name, role, password_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)
    RETURNING ${STAFF_COLUMNS}`);

  async function createStaff(member: NewStaffMember, audit: AuditContext): Promise<StaffMember> {
    return db.transaction(() => {
      const { email, name, role, passwordHash, createdAt } = member;
      let row: Row;
      try {
        row = insert.get(email, emailKeys(email).lower, name, role, passwordHash, createdAt) as Row;
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw failures.emailTaken();
        throw error;
      }
      const created = toStaffMember(row);
      database.record(audit, { action: 'create', resourceType: STAFF, resourceId: created.id, userId: null });
      return created;
    })();
  }

  const selectOne = db.prepare(`SELECT ${STAFF_COLUMNS} FROM staff WHERE id = ?`);
  const one = (id: string) => {
    const row = selectOne.get(id) as Row | undefined;
    return row && toStaffMember(row);
  };

  async function getStaff(id: string) {
    return one(id);
  }

  const selectAll = db.prepare(`SELECT ${STAFF_COLUMNS} FROM staff ORDER BY id`);

  async function listStaff() {
    return (selectAll.all() as Row[]).map(toStaffMember);
  }

  const version = db.prepare('SELECT version FROM staff WHERE id = ?').pluck();

  async function updateStaff(id: string, changes: StaffChanges, audit: AuditContext, ifVersion?: IfVersion) {
    return db.transaction(() => {
      if (!database.meetsPrecondition(version, [id], ifVersion)) return undefined;
      if (database.changes(updateStaffRow(id, changes)) === 0) {
        // An account that is there, but not with the password the change replaces.
        if (changes.password?.replacing !== undefined && one(id)) throw failures.currentPasswordIncorrect();
        return undefined;
      }
      const ended = sessionsEndedBy(id, changes);
      if (ended) database.changes(ended);
      database.record(audit, { action: 'update', resourceType: STAFF, resourceId: id, userId: null });
      const member = one(id);
      const forgotten = member && attemptsForgottenBy(member, changes);
      if (forgotten) database.changes(forgotten);
      return member;
    })();
  }

  async function findStaffSignIn(email: string) {
    const row = database.all(staffSignIn(emailKeys(email).lower))[0];
    return row && { id: String(row.id), passwordHash: row.password_hash as string, disabled: row.disabled_at !== null };
  }

  async function createStaffSession(session: NewStaffSession, audit: AuditContext) {
    db.transaction(() => {
      database.changes(insertSession(session.idHash, session.staffId, session.now));
      database.changes(forgetAttemptsOf(session.attemptsKey));
      if (session.rehash) database.changes(rehashStaff(session.staffId, session.rehash.from, session.rehash.to));
      database.record(audit, { action: 'sign-in', resourceType: STAFF, resourceId: session.staffId, userId: null });
    })();
  }

  const enabled = db.prepare(`SELECT ${STAFF_COLUMNS} FROM staff WHERE id = ? AND disabled_at IS NULL`);

  async function resumeStaffSession(idHash: Buffer, now: number, live: LiveSessions) {
    return db.transaction(() => {
      const [session] = database.all(touchSession(idHash, now, live));
      const row = session && (enabled.get(session.staff_id) as Row | undefined);
      return row && toStaffMember(row);
    })();
  }

  async function endStaffSession(idHash: Buffer) {
    return database.changes(endSession(idHash)) > 0;
  }

  async function forgetEndedStaffSessions(live: LiveSessions) {
    return database.changes(forgetEndedSessions(live));
  }

  return {
    create: createStaff,
    get: getStaff,
    list: listStaff,
    update: updateStaff,
    findSignIn: findStaffSignIn,
    createSession: createStaffSession,
    resumeSession: resumeStaffSession,
    endSession: endStaffSession,
    forgetEndedSessions: forgetEndedStaffSessions,
  };
}
