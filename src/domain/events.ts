/**
 * Events: what changed, for the rest of the publisher. Each is an entry of the audit trail about
 * a user, a subscription, a product or a newsletter, or a user's holds, temporary addresses,
 * delivery complaints and their site licences' seats, recorded with its event type in the same
 * transaction as the change itself, so no change is ever without its event and no event without
 * its change (the trail is the outbox: a database trigger turns each event into its webhook
 * deliveries).
 * An event carries ids and the names of the attributes sent, never a value; a newsletter consent's
 * change (newsletter_consent.changed) also its old and new state and its source, words of
 * domain/consent.ts.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { AuditAction, AuditEvent } from './audit.js';
import { ConsentTransitionSchema } from './consent.js';
import { formatInstant } from './dates.js';

export const EVENTS = 'events';

export const EVENT_TYPES = [
  'user.created',
  'user.updated',
  'user.deleted',
  'user.signed_in',
  'subscription.created',
  'subscription.updated',
  'subscription.deleted',
  'subscription.expired',
  'product.created',
  'product.updated',
  'product.deleted',
  'newsletter.created',
  'newsletter.updated',
  'newsletter.deleted',
  'hold.created',
  'hold.updated',
  'hold.withdrawn',
  'temporary_address.created',
  'temporary_address.updated',
  'temporary_address.deleted',
  'delivery_complaint.created',
  'newsletter_consent.changed',
  'privacy_request.created',
  'privacy_request.updated',
  'seat.created',
  'seat.deleted',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Which changes are events: a change to a user, a subscription or the catalogue, and a reader
 * signing in. Credentials, webhooks and password reset tokens are not. Events about the
 * catalogue have no user.
 */
const EVENT_OF: Readonly<Record<string, Partial<Record<AuditAction, EventType>>>> = {
  users: { create: 'user.created', update: 'user.updated', delete: 'user.deleted', 'sign-in': 'user.signed_in' },
  subscriptions: {
    create: 'subscription.created',
    update: 'subscription.updated',
    delete: 'subscription.deleted',
    expire: 'subscription.expired',
  },
  products: { create: 'product.created', update: 'product.updated', delete: 'product.deleted' },
  newsletters: { create: 'newsletter.created', update: 'newsletter.updated', delete: 'newsletter.deleted' },
  holds: { create: 'hold.created', update: 'hold.updated', withdraw: 'hold.withdrawn' },
  'temporary-addresses': {
    create: 'temporary_address.created',
    update: 'temporary_address.updated',
    delete: 'temporary_address.deleted',
  },
  'delivery-complaints': { create: 'delivery_complaint.created' },
  // A reader's first consent for a newsletter is created, later ones update it: either is a change.
  'newsletter-consents': { create: 'newsletter_consent.changed', update: 'newsletter_consent.changed' },
  'privacy-requests': { create: 'privacy_request.created', update: 'privacy_request.updated' },
  // A seat is its licence owner's record: the event names the owner as its user.
  seats: { create: 'seat.created', delete: 'seat.deleted' },
};

/** The event a change is, recorded with its audit entry; null when the change is not one. */
export function eventTypeOf(resourceType: string, action: AuditAction): EventType | null {
  return EVENT_OF[resourceType]?.[action] ?? null;
}

export const EventAttributes = Type.Object({
  eventType: Type.Union(EVENT_TYPES.map((t) => Type.Literal(t))),
  occurredAt: Type.String({ format: 'date-time' }),
  userId: Type.Union([Type.String(), Type.Null()]),
  resourceType: Type.String(),
  resourceId: Type.String(),
  changed: Type.Array(Type.String(), { description: 'The names of the attributes the change sent; never values.' }),
  consent: Type.Optional(ConsentTransitionSchema),
});

/** An audit entry that is an event, as an event resource object: what the feed lists and a webhook delivers. */
export function toEventResource(entry: AuditEvent) {
  const attributes: Static<typeof EventAttributes> = {
    eventType: entry.eventType as EventType,
    occurredAt: formatInstant(entry.occurredAt),
    userId: entry.userId,
    resourceType: entry.resourceType,
    resourceId: entry.resourceId,
    changed: entry.attributes,
    ...(entry.consent === null ? {} : { consent: entry.consent }),
  };
  return { type: EVENTS, id: entry.id, attributes };
}
