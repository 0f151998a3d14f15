/**
 * Rows as the adapters read them, turned into the port's records. SQLite answers integers for
 * ids, booleans and instants and JSON text for arrays; PostgreSQL answers strings for bigint
 * ids, booleans, Dates and arrays: both read the same here.
 */
import type { ApiKey, Scope } from '../domain/api-key.js';
import type { AuditAction, AuditEvent } from '../domain/audit.js';
import type { License, Resource, StoredSubscription } from '../domain/subscription.js';
import { fieldsOfRow } from './columns.js';
import type { IdempotencyState, StoredUser } from './port.js';

export type Row = Record<string, unknown>;

function seconds(value: unknown): number {
  return value instanceof Date ? Math.floor(value.getTime() / 1000) : (value as number);
}

export function toStoredUser(row: Row): StoredUser {
  return {
    id: String(row.id),
    email: row.email as string,
    fields: fieldsOfRow(row),
    newsletters: array(row.newsletters),
    version: Number(row.version),
  };
}

export function toStoredSubscription(row: Row): StoredSubscription {
  return {
    id: String(row.id),
    userId: String(row.user_id),
    dateStarted: seconds(row.date_started),
    dateEnded: row.date_ended === null ? null : seconds(row.date_ended),
    externalIdentifier: row.external_identifier as string | null,
    license: row.license as License | null,
    resource: row.resource as Resource | null,
    trial: row.trial === true || row.trial === 1,
    expired: row.expired === true || row.expired === 1,
    productId: row.product_id as string | null,
    version: Number(row.version),
  };
}

export const API_KEY_COLUMNS = 'id, name, scopes, rate_limit, created_at, revoked_at';

/** SQLite keeps arrays as JSON text, PostgreSQL as arrays. */
function array(value: unknown): string[] {
  return typeof value === 'string' ? (JSON.parse(value) as string[]) : (value as string[]);
}

export function toApiKey(row: Row): ApiKey {
  return {
    id: String(row.id),
    name: row.name as string,
    scopes: array(row.scopes) as Scope[],
    rateLimit: row.rate_limit as number | null,
    createdAt: seconds(row.created_at),
    revokedAt: row.revoked_at === null ? null : seconds(row.revoked_at),
  };
}

export const AUDIT_COLUMNS = 'id, occurred_at, actor, action, resource_type, resource_id, user_id, attributes';

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
  };
}

/** What a stored idempotency key means for a new request with `fingerprint`. */
export function idempotencyState(
  row: Row,
  fingerprint: string,
  now: number,
  staleAfter: number,
  takeOver: () => unknown,
): IdempotencyState {
  if (row.fingerprint !== fingerprint) return { state: 'mismatch' };
  if (row.status === null) {
    // The process that claimed it died before it answered: this retry runs the request instead.
    if (Number(row.created_at) < now - staleAfter) {
      takeOver();
      return { state: 'new' };
    }
    return { state: 'in-progress' };
  }
  return {
    state: 'replay',
    response: {
      status: Number(row.status),
      headers: JSON.parse(row.headers as string) as Record<string, string>,
      body: row.body as string,
    },
  };
}
