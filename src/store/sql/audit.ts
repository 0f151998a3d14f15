/**
 * The audit trail as every adapter keeps it: its columns, how a row reads back, and the
 * filtered, cursor-paged read of it, written once for both dialects.
 */
import type { AuditAction, AuditEvent } from '../../domain/audit.js';
import type { ConsentTransition } from '../../domain/consent.js';
import { EVENT_TYPES } from '../../domain/events.js';
import type { AuditQuery } from '../port.js';
import { join, raw, sql, where, type Sql } from './builder.js';
import { array, seconds, type Row } from './rows.js';

export const AUDIT_COLUMNS =
  'id, occurred_at, actor, action, resource_type, resource_id, user_id, attributes, event_type, consent_change';

export function toAuditEvent(row: Row): AuditEvent {
  return {
    id: String(row.id),
    occurredAt: seconds(row.occurred_at),
    actor: row.actor as string | null,
    action: row.action as AuditAction,
    resourceType: row.resource_type as string,
    resourceId: row.resource_id as string,
    userId: row.user_id as string | null,
    attributes: array(row.attributes),
    eventType: (row.event_type as string | null) ?? null,
    consent: consentChangeOf(row.consent_change),
  };
}

/** A consent change as the audit trail keeps it: JSON text on SQLite, a jsonb object on PostgreSQL. */
function consentChangeOf(value: unknown): ConsentTransition | null {
  if (value === null || value === undefined) return null;
  return (typeof value === 'string' ? JSON.parse(value) : value) as ConsentTransition;
}

/** A page of the trail in id order (or its reverse), after `afterId`, with every filter the query names. */
export function auditEventsQuery(query: AuditQuery): Sql {
  const conditions: Sql[] = [];
  if (!query.descending) conditions.push(sql`id > ${query.afterId ?? 0}`);
  else if (query.afterId !== undefined) conditions.push(sql`id < ${query.afterId}`);
  if (query.actor !== undefined) conditions.push(sql`actor = ${query.actor}`);
  if (query.resourceType !== undefined) conditions.push(sql`resource_type = ${query.resourceType}`);
  if (query.resourceId !== undefined) conditions.push(sql`resource_id = ${query.resourceId}`);
  if (query.userId !== undefined) conditions.push(sql`user_id = ${query.userId}`);
  if (query.eventTypes && EVENT_TYPES.every((type) => query.eventTypes?.includes(type))) {
    // Every event: read in id order, rather than each type's entries gathered and sorted.
    conditions.push(sql`event_type IS NOT NULL`);
  } else if (query.eventTypes) {
    const types = [...new Set(query.eventTypes)].map((type) => sql`${type}`);
    conditions.push(sql`event_type IN (${join(types, ', ', raw('NULL'))})`);
  }
  const order = raw(query.descending ? 'DESC' : 'ASC');
  return sql`SELECT ${raw(AUDIT_COLUMNS)} FROM audit_log ${where(conditions)} ORDER BY id ${order} LIMIT ${query.limit}`;
}
