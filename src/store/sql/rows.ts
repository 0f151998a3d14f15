/**
 * Rows as the adapters read them, turned into the port's records. SQLite answers integers for
 * ids, booleans and instants and JSON text for arrays; PostgreSQL answers strings for bigint
 * ids, booleans, Dates and arrays: both read the same here.
 */
import type { ApiKey, Scope } from '../../domain/api-key.js';
import type { AuditAction, AuditEvent } from '../../domain/audit.js';
import type { License, Resource, StoredSubscription } from '../../domain/subscription.js';
import { fieldsOfRow } from './columns.js';
import type { EventType } from '../../domain/events.js';
import type { DeliveryState, Webhook, WebhookDelivery } from '../../domain/webhooks.js';
import type { ClaimedDelivery, IdempotencyState, StoredUser } from '../port.js';

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

export const API_KEY_COLUMNS = 'id, name, scopes, rate_limit, created_at, revoked_at, version';

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
    version: Number(row.version),
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

export const WEBHOOK_COLUMNS = 'id, url, events, secret_salt, created_at, updated_at, version';

export function toWebhook(row: Row): Webhook {
  return {
    id: String(row.id),
    url: row.url as string,
    events: array(row.events) as EventType[],
    secretSalt: row.secret_salt as string,
    createdAt: seconds(row.created_at),
    updatedAt: seconds(row.updated_at),
    version: Number(row.version),
  };
}

export const DELIVERY_COLUMNS = `id, webhook_id, event_id, event_type, user_id, state, attempts, created_at,
  next_attempt_at, last_attempt_at, last_status, last_error, delivered_at, version`;

/** The columns a claimed delivery is read with: the delivery's (as `d`), its webhook's (`w`) and its event's (`a`). */
export const CLAIMED_DELIVERY_COLUMNS = `${DELIVERY_COLUMNS.split(',')
  .map((c) => `d.${c.trim()}`)
  .join(', ')}, w.url, w.secret_salt, a.occurred_at AS event_occurred_at, a.actor AS event_actor,
  a.action AS event_action, a.resource_type AS event_resource_type, a.resource_id AS event_resource_id,
  a.attributes AS event_attributes`;

/** PostgreSQL answers bigints as strings. */
function milliseconds(value: unknown): number | null {
  return value === null ? null : Number(value);
}

export function toWebhookDelivery(row: Row): WebhookDelivery {
  return {
    id: String(row.id),
    webhookId: String(row.webhook_id),
    eventId: String(row.event_id),
    eventType: row.event_type as EventType,
    userId: row.user_id as string,
    state: row.state as DeliveryState,
    attempts: Number(row.attempts),
    createdAt: Number(row.created_at),
    nextAttemptAt: milliseconds(row.next_attempt_at),
    lastAttemptAt: milliseconds(row.last_attempt_at),
    lastStatus: row.last_status === null ? null : Number(row.last_status),
    lastError: row.last_error as string | null,
    deliveredAt: milliseconds(row.delivered_at),
    version: Number(row.version),
  };
}

/** A claimed delivery joined with its webhook (`url`, `secret_salt`) and its event (`event_*`). */
export function toClaimedDelivery(row: Row): ClaimedDelivery {
  return {
    delivery: toWebhookDelivery(row),
    url: row.url as string,
    secretSalt: row.secret_salt as string,
    event: toAuditEvent({
      id: row.event_id,
      occurred_at: row.event_occurred_at,
      actor: row.event_actor,
      action: row.event_action,
      resource_type: row.event_resource_type,
      resource_id: row.event_resource_id,
      user_id: row.user_id,
      attributes: row.event_attributes,
    }),
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
