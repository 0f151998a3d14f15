/**
 * The audit trail on PostgreSQL (each write records its entry in its own statement, through
 * `auditInsert`).
 */
import type { AuditEvent } from '../../domain/audit.js';
import type { AuditQuery, AuditStore } from '../port.js';
import { auditEventsQuery, toAuditEvent } from '../sql/audit.js';
import type { PostgresDatabase } from './database.js';

export function postgresAudit(database: PostgresDatabase): AuditStore {
  async function listAuditEvents(query: AuditQuery): Promise<AuditEvent[]> {
    return (await database.rows(auditEventsQuery(query))).map(toAuditEvent);
  }

  return { list: listAuditEvents };
}
