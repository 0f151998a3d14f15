/**
 * Webhooks and their deliveries as every adapter keeps them: columns, how rows read back, and
 * the cursor-paged list of a webhook's deliveries, written once for both dialects.
 */
import type { EventType } from '../../domain/events.js';
import type { DeliveryState, Webhook, WebhookDelivery } from '../../domain/webhooks.js';
import type { ClaimedDelivery, DeliveryQuery } from '../port.js';
import { raw, sql, type Sql } from './builder.js';
import { toAuditEvent } from './audit.js';
import { array, milliseconds, seconds, type Row } from './rows.js';

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
  a.attributes AS event_attributes, a.consent_change AS event_consent_change`;

export function toWebhookDelivery(row: Row): WebhookDelivery {
  return {
    id: String(row.id),
    webhookId: String(row.webhook_id),
    eventId: String(row.event_id),
    eventType: row.event_type as EventType,
    userId: row.user_id as string | null,
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
      event_type: row.event_type,
      consent_change: row.event_consent_change,
    }),
  };
}

/** A page of a webhook's deliveries in id order, after `afterId`, in one state when the query names it. */
export function deliveriesQuery(webhookId: string, query: DeliveryQuery): Sql {
  const state = query.state === undefined ? raw('') : sql`AND state = ${query.state}`;
  return sql`SELECT ${raw(DELIVERY_COLUMNS)} FROM webhook_deliveries
    WHERE webhook_id = ${webhookId} AND id > ${query.afterId ?? 0} ${state}
    ORDER BY id LIMIT ${query.limit}`;
}
