/**
 * The audit trail on SQLite (each write records its entry through `SqliteDatabase.record`).
 */
import type { AuditEvent } from '../../domain/audit.js';
import type { AuditQuery, AuditStore } from '../port.js';
import { auditEventsQuery, toAuditEvent } from '../sql/audit.js';
import type { SqliteDatabase } from './database.js';

export function sqliteAudit(database: SqliteDatabase): AuditStore {
  async function listAuditEvents(query: AuditQuery): Promise<AuditEvent[]> {
    return database.all(auditEventsQuery(query)).map(toAuditEvent);
  }

  return { list: listAuditEvents };
}
