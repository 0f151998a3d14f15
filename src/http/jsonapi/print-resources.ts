/**
 * The records of print circulation as JSON:API resource objects: holds, temporary addresses,
 * delivery complaints, each under its own reader's path, with its place in time on today's
 * publication date.
 */
import {
  DELIVERY_COMPLAINTS,
  DeliveryComplaintAttributes,
  toDeliveryComplaintAttributes,
  type StoredDeliveryComplaint,
} from '../../domain/delivery-complaint.js';
import { HoldAttributes, HOLDS, toHoldAttributes, type StoredHold } from '../../domain/hold.js';
import { SUBSCRIPTIONS } from '../../domain/subscription.js';
import {
  TEMPORARY_ADDRESSES,
  TemporaryAddressAttributes,
  toTemporaryAddressAttributes,
  type StoredTemporaryAddress,
} from '../../domain/temporary-address.js';
import { USERS } from '../../domain/user.js';
import { formatInstant } from '../../domain/dates.js';
import { cutoffOf, dateAt, firstOpenDate, formatDate, type PublicationCalendar } from '../../domain/publication.js';
import { collectionDocument, resourceObject } from './documents.js';
import { Type, type TSchema } from '@sinclair/typebox';
import { CursorLinks } from './paging.js';
import { Identifier } from './resources.js';

const SubscriptionLink = Type.Object({ subscription: Type.Object({ data: Identifier(SUBSCRIPTIONS) }) });
const UserLink = Type.Object({ user: Type.Object({ data: Identifier(USERS) }) });

/**
 * Where the cut-off stands now, for a client that shows it before a change is sent (the console's
 * "tomorrow can still be stopped until 19:00 today"): read here, so that no client copies the rule.
 */
const ChangesMeta = Type.Object({
  today: Type.String({ format: 'date', description: "Today's publication date, in PUBLICATION_TIME_ZONE." }),
  firstOpenDate: Type.String({
    format: 'date',
    description: 'The first publication date still open to changes by its cut-off (CHANGE_CUTOFF).',
  }),
  firstOpenCutoff: Type.String({
    format: 'date-time',
    description: 'The instant changes to firstOpenDate close; from then on, the date after it is the first open.',
  }),
  timeZone: Type.String({ description: 'PUBLICATION_TIME_ZONE: the IANA zone publication dates and cut-offs are in.' }),
});

/** A page of holds or temporary addresses, with `meta`: where the cut-off stands now. */
export function datedCollectionDocument(resource: TSchema) {
  const { properties } = collectionDocument(resource, CursorLinks);
  return Type.Object({ ...properties, meta: ChangesMeta });
}

/** Where the cut-off stands at `now` (epoch seconds). */
export function changesMeta(now: number, calendar: PublicationCalendar) {
  const firstOpen = firstOpenDate(now, calendar);
  return {
    today: formatDate(dateAt(now, calendar.zone)),
    firstOpenDate: formatDate(firstOpen),
    firstOpenCutoff: formatInstant(cutoffOf(firstOpen, calendar)),
    timeZone: calendar.zone,
  };
}

export const HoldResource = resourceObject(HOLDS, HoldAttributes, SubscriptionLink);

export function holdPath(hold: Pick<StoredHold, 'userId' | 'subscriptionId'>): string {
  return `/users/${hold.userId}/subscriptions/${hold.subscriptionId}/holds`;
}

/** A hold, with its status on the publication date `today`. */
export function renderHold(base: string, hold: StoredHold, today: number) {
  return {
    type: HOLDS,
    id: hold.id,
    attributes: toHoldAttributes(hold, today),
    relationships: { subscription: { data: { type: SUBSCRIPTIONS, id: hold.subscriptionId } } },
    links: { self: `${base}${holdPath(hold)}/${hold.id}` },
  };
}

export const TemporaryAddressResource = resourceObject(TEMPORARY_ADDRESSES, TemporaryAddressAttributes, UserLink);

export function temporaryAddressPath(userId: string): string {
  return `/users/${userId}/temporary-addresses`;
}

/** A temporary address, with its status on the publication date `today`. */
export function renderTemporaryAddress(base: string, stored: StoredTemporaryAddress, today: number) {
  return {
    type: TEMPORARY_ADDRESSES,
    id: stored.id,
    attributes: toTemporaryAddressAttributes(stored, today),
    relationships: { user: { data: { type: USERS, id: stored.userId } } },
    links: { self: `${base}${temporaryAddressPath(stored.userId)}/${stored.id}` },
  };
}

export const DeliveryComplaintResource = resourceObject(
  DELIVERY_COMPLAINTS,
  DeliveryComplaintAttributes,
  SubscriptionLink,
);

export function complaintPath(complaint: Pick<StoredDeliveryComplaint, 'userId' | 'subscriptionId'>): string {
  return `/users/${complaint.userId}/subscriptions/${complaint.subscriptionId}/delivery-complaints`;
}

export function renderDeliveryComplaint(base: string, complaint: StoredDeliveryComplaint) {
  return {
    type: DELIVERY_COMPLAINTS,
    id: complaint.id,
    attributes: toDeliveryComplaintAttributes(complaint),
    relationships: { subscription: { data: { type: SUBSCRIPTIONS, id: complaint.subscriptionId } } },
    links: { self: `${base}${complaintPath(complaint)}/${complaint.id}` },
  };
}
