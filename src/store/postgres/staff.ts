/**
 * Staff and their console sessions on PostgreSQL.
 */
import type { AuditContext } from '../../domain/audit.js';
import { emailKeys } from '../../domain/email.js';
import { failures } from '../../domain/failures.js';
import { STAFF, type StaffMember } from '../../domain/staff.js';
import type { IfVersion, LiveSessions, NewStaffMember, NewStaffSession, StaffChanges, StaffStore } from '../port.js';
import type { Sql } from '../sql/builder.js';
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
import { auditInsert, versionCondition, violates, type PostgresDatabase } from './database.js';

export function postgresStaff(database: PostgresDatabase): StaffStore {
  async function createStaff(member: NewStaffMember, audit: AuditContext): Promise<StaffMember> {
    const { email, name, role, passwordHash, createdAt } = member;
    const params: unknown[] = [email, emailKeys(email).lower, name, role, passwordHash, createdAt];
    const record = auditInsert(params, audit, {
      action: 'create',
      resourceType: STAFF,
      userIdColumn: 'NULL',
      from: 's',
    });
    try {
      const [row] = await database.rows(
        `WITH s AS (
           INSERT INTO staff (email, email_lower, name, role, password_hash, created_at)
           VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${STAFF_COLUMNS}
         ), a AS (${record})
         SELECT * FROM s`,
        params,
      );
      return toStaffMember(row as Row);
    } catch (error) {
      if (violates(error, '23505', 'staff_email_lower')) throw failures.emailTaken();
      throw error;
    }
  }

  async function getStaff(id: string) {
    const [row] = await database.rows(`SELECT ${STAFF_COLUMNS} FROM staff WHERE id = $1`, [id]);
    return row && toStaffMember(row);
  }

  async function listStaff() {
    return (await database.rows(`SELECT ${STAFF_COLUMNS} FROM staff ORDER BY id`)).map(toStaffMember);
  }

  async function updateStaff(id: string, changes: StaffChanges, audit: AuditContext, ifVersion?: IfVersion) {
    return database.transaction(async (client) => {
      const query = (statement: Sql) => {
        const { text, values } = statement.render('postgres');
        return client.query(text, values);
      };
      const params: unknown[] = [id];
      const condition = versionCondition(params, ifVersion);
      const { rows: current } = await client.query(
        `SELECT version FROM staff WHERE id = $1 ${condition} FOR UPDATE`,
        params,
      );
      if (current.length === 0) {
        const exists = await client.query('SELECT 1 FROM staff WHERE id = $1', [id]);
        if (exists.rows.length > 0) throw failures.preconditionFailed();
        return undefined;
      }
      const { rowCount } = await query(updateStaffRow(id, changes));
      // The row is locked and there: the password the change replaces is not (and nothing is written).
      if (rowCount === 0) throw failures.currentPasswordIncorrect();
      const ended = sessionsEndedBy(id, changes);
      if (ended) await query(ended);
      const auditParams: unknown[] = [id];
      await client.query(
        auditInsert(auditParams, audit, {
          action: 'update',
          resourceType: STAFF,
          idColumn: '$1',
          userIdColumn: 'NULL',
          from: '(SELECT 1) x',
        }),
        auditParams,
      );
      const { rows } = await client.query(`SELECT ${STAFF_COLUMNS} FROM staff WHERE id = $1`, [id]);
      const member = rows[0] && toStaffMember(rows[0] as Row);
      const forgotten = member && attemptsForgottenBy(member, changes);
      if (forgotten) await query(forgotten);
      return member;
    });
  }

  async function findStaffSignIn(email: string) {
    const [row] = await database.rows(staffSignIn(emailKeys(email).lower));
    return row && { id: String(row.id), passwordHash: row.password_hash as string, disabled: row.disabled_at !== null };
  }

  async function createStaffSession(session: NewStaffSession, audit: AuditContext) {
    await database.transaction(async (client) => {
      const query = (statement: Sql) => {
        const { text, values } = statement.render('postgres');
        return client.query(text, values);
      };
      await query(insertSession(session.idHash, session.staffId, session.now));
      await query(forgetAttemptsOf(session.attemptsKey));
      if (session.rehash) await query(rehashStaff(session.staffId, session.rehash.from, session.rehash.to));
      const params: unknown[] = [session.staffId];
      await client.query(
        auditInsert(params, audit, {
          action: 'sign-in',
          resourceType: STAFF,
          idColumn: '$1',
          userIdColumn: 'NULL',
          from: '(SELECT 1) x',
        }),
        params,
      );
    });
  }

  async function resumeStaffSession(idHash: Buffer, now: number, live: LiveSessions) {
    const touch = touchSession(idHash, now, live).render('postgres');
    const [row] = await database.rows(
      `WITH s AS (${touch.text})
       SELECT ${STAFF_COLUMNS.split(', ')
         .map((column) => `st.${column}`)
         .join(', ')} FROM s JOIN staff st ON st.id = s.staff_id WHERE st.disabled_at IS NULL`,
      touch.values,
    );
    return row && toStaffMember(row);
  }

  async function endStaffSession(idHash: Buffer) {
    return (await database.changes(endSession(idHash))) > 0;
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
