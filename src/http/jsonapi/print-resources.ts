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
import { collectionDocument, exampleLinks, resourceObject } from './documents.js';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
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

/** Where the cut-off stands, as /docs shows it beside a list: a Monday in July, changes closing at 19:00 in London. */
const CHANGES_EXAMPLE = {
  today: '2026-07-20',
  firstOpenDate: '2026-07-21',
  firstOpenCutoff: '2026-07-20T18:00:00+00:00',
  timeZone: 'Europe/London',
} satisfies Static<typeof ChangesMeta>;

/** A page of `resource` at `path`, as /docs shows it. */
export function datedListExample<R>(path: string, resource: R) {
  return { links: exampleLinks(path), data: [resource], meta: CHANGES_EXAMPLE };
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

/** Ada's paper stopped for a fortnight's holiday in August (Monday to Saturday: 12 delivery days). */
export const HOLD_EXAMPLE = { startDate: '2026-08-03', endDate: '2026-08-15', compensation: 'extend' } as const;
export const AdaHold = {
  type: HOLDS,
  id: '3',
  attributes: { ...HOLD_EXAMPLE, deliveriesMissed: 12, status: 'scheduled' },
  relationships: { subscription: { data: { type: SUBSCRIPTIONS, id: '7' } } },
  links: exampleLinks('/users/42/subscriptions/7/holds/3'),
} satisfies Static<typeof HoldResource>;

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

/** Ada's paper sent to her sister's for a week in September. */
export const TEMPORARY_ADDRESS_EXAMPLE = {
  startDate: '2026-09-07',
  endDate: '2026-09-12',
  address: {
    streetAddress: '4 Marine Parade',
    unitNumber: null,
    addressLocality: 'Brighton',
    addressRegion: null,
    addressCountry: 'GB',
    postalCode: 'BN2 1TL',
  },
};
export const AdaTemporaryAddress = {
  type: TEMPORARY_ADDRESSES,
  id: '5',
  attributes: { ...TEMPORARY_ADDRESS_EXAMPLE, status: 'scheduled' },
  relationships: { user: { data: { type: USERS, id: '42' } } },
  links: exampleLinks('/users/42/temporary-addresses/5'),
} satisfies Static<typeof TemporaryAddressResource>;

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

/** Ada's paper of a Friday in June came wet: brought again with Saturday's. */
export const COMPLAINT_EXAMPLE = { deliveryDate: '2026-06-12', reason: 'wet', remedy: 'redeliver' } as const;
export const AdaComplaint = {
  type: DELIVERY_COMPLAINTS,
  id: '2',
  attributes: { ...COMPLAINT_EXAMPLE, repeat: false, redeliveryDate: '2026-06-13' },
  relationships: { subscription: { data: { type: SUBSCRIPTIONS, id: '7' } } },
  links: exampleLinks('/users/42/subscriptions/7/delivery-complaints/2'),
} satisfies Static<typeof DeliveryComplaintResource>;

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
