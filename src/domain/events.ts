/**
 * Events: what changed, for the rest of the publisher. Each is an entry of the audit trail about
 * a user or a subscription, which is written in the same transaction as the change itself, so no
 * change is ever without its event and no event without its change (the trail is the outbox).
 * An event carries ids and the names of the attributes sent, never a value.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { AuditAction, AuditEvent } from './audit.js';
import { formatInstant } from './dates.js';

export const EVENTS = 'events';

export const EVENT_TYPES = [
  'user.created',
  'user.updated',
  'user.deleted',
  'subscription.created',
  'subscription.updated',
  'subscription.deleted',
  'subscription.expired',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

const RESOURCE_OF = { user: 'users', subscription: 'subscriptions' } as const;
const ACTION_OF: Record<string, AuditAction> = {
  created: 'create',
  updated: 'update',
  deleted: 'delete',
  expired: 'expire',
};
const PAST: Record<string, string> = { create: 'created', update: 'updated', delete: 'deleted', expire: 'expired' };

/** The audit entries an event type is made of. */
export function auditEntryOf(type: EventType): { resourceType: string; action: AuditAction } {
  const [resource, past] = type.split('.') as [keyof typeof RESOURCE_OF, string];
  return { resourceType: RESOURCE_OF[resource], action: ACTION_OF[past] as AuditAction };
}

export function eventTypeOf(entry: AuditEvent): EventType {
  const resource = entry.resourceType === 'users' ? 'user' : 'subscription';
  return `${resource}.${PAST[entry.action]}` as EventType;
}

export const EventAttributes = Type.Object({
  eventType: Type.Union(EVENT_TYPES.map((t) => Type.Literal(t))),
  occurredAt: Type.String({ format: 'date-time' }),
  userId: Type.Union([Type.String(), Type.Null()]),
  resourceType: Type.String(),
  resourceId: Type.String(),
  changed: Type.Array(Type.String(), { description: 'The names of the attributes the change sent; never values.' }),
});

/** An audit entry as an event resource object: what the feed lists and a webhook delivers. */
export function toEventResource(entry: AuditEvent) {
  const attributes: Static<typeof EventAttributes> = {
    eventType: eventTypeOf(entry),
    occurredAt: formatInstant(entry.occurredAt),
    userId: entry.userId,
    resourceType: entry.resourceType,
    resourceId: entry.resourceId,
    changed: entry.attributes,
  };
  return { type: EVENTS, id: entry.id, attributes };
}
