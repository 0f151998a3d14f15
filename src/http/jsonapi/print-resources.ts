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
import { resourceObject } from './documents.js';
import { Type } from '@sinclair/typebox';
import { Identifier } from './resources.js';

const SubscriptionLink = Type.Object({ subscription: Type.Object({ data: Identifier(SUBSCRIPTIONS) }) });
const UserLink = Type.Object({ user: Type.Object({ data: Identifier(USERS) }) });

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
