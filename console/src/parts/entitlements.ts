/**
 * What a subscription gives, as an agent explains it on the phone: its own resource, or its
 * product's when it names none (as the service decides access), and why a reader does not get
 * online or print now, from the subscriptions that would give it.
 */
import type { Subscription } from '../api/readers';
import { dayOf } from '../api/subscriptions';

export type Resource = 'online' | 'print' | 'print-online';
export type Entitlement = 'online' | 'print';

/** A product as the reader's page knows it. */
export interface CatalogueProduct {
  id: string;
  name: string;
  active: boolean;
  resource: Resource | null;
  /** The weekdays it is delivered on ("monday" …); every day when the service names none. */
  deliveryDays: readonly string[];
}

const GIVES: Record<Resource, readonly Entitlement[]> = {
  online: ['online'],
  print: ['print'],
  'print-online': ['print', 'online'],
};

const RESOURCE_NAMES: Record<Resource, string> = {
  online: 'online',
  print: 'print',
  'print-online': 'print and online',
};

export function productOf(subscription: Subscription, products: CatalogueProduct[]): CatalogueProduct | undefined {
  const id = subscription.relationships?.product?.data?.id;
  return id === undefined ? undefined : products.find((p) => p.id === id);
}

/** The resource a subscription gives: its own, else its product's; null when neither names one. */
export function resourceOf(subscription: Subscription, products: CatalogueProduct[]): Resource | null {
  return (subscription.attributes.resource as Resource | null) ?? productOf(subscription, products)?.resource ?? null;
}

/** "print and online", "online", or a plain "nothing" when no resource is named. */
export function givesText(resource: Resource | null): string {
  return resource === null ? 'nothing (no resource named)' : RESOURCE_NAMES[resource];
}

export function gives(resource: Resource | null, what: Entitlement): boolean {
  return resource !== null && GIVES[resource].includes(what);
}

/** The subscription as an agent names it: its product's name, or what it gives when it has none. */
export function subscriptionName(subscription: Subscription, products: CatalogueProduct[]): string {
  const id = subscription.relationships?.product?.data?.id;
  if (id !== undefined) return productOf(subscription, products)?.name ?? id;
  const resource = subscription.attributes.resource as Resource | null;
  return resource === null ? 'Subscription without a product' : `${capitalised(RESOURCE_NAMES[resource])} subscription`;
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Why the reader does not get `what` now: each subscription that would give it, and why it does not. */
export function whyNot(what: Entitlement, subscriptions: Subscription[], products: CatalogueProduct[]): string {
  const candidates = subscriptions.filter((s) => gives(resourceOf(s, products), what));
  if (candidates.length === 0) return `No subscription gives ${what}.`;
  const reasons = candidates.map((s) => {
    const a = s.attributes;
    const name = subscriptionName(s, products);
    if (a.status === 'expired') return `${name} was expired (ended early) on ${dayOf(a.dateEnded)}`;
    if (a.status === 'ended') return `${name} ended on ${dayOf(a.dateEnded)}`;
    if (a.status === 'scheduled') return `${name} starts on ${dayOf(a.dateStarted)}`;
    return `${name} is ${a.status}`;
  });
  return `${reasons.join('; ')}.`;
}

/**
 * Until when the reader gets `what`: the latest end of the active subscriptions that give it,
 * null when one of them is open-ended, undefined when none listed gives it.
 */
export function untilOf(
  what: Entitlement,
  subscriptions: Subscription[],
  products: CatalogueProduct[],
): string | null | undefined {
  const giving = subscriptions.filter((s) => s.attributes.status === 'active' && gives(resourceOf(s, products), what));
  if (giving.length === 0) return undefined;
  if (giving.some((s) => !s.attributes.dateEnded)) return null;
  return giving
    .map((s) => s.attributes.dateEnded as string)
    .sort()
    .at(-1);
}

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

/** The days a subscription is delivered on: its own, within its product's (every day without either). */
export function deliveryDaysOf(subscription: Subscription, products: CatalogueProduct[]): string[] {
  const product = productOf(subscription, products)?.deliveryDays ?? WEEKDAYS;
  const own = subscription.attributes.deliveryDays ?? WEEKDAYS;
  return WEEKDAYS.filter((day) => own.includes(day) && product.includes(day));
}

/** "every day", "Monday to Saturday", "Saturday and Sunday", "Monday, Wednesday and Friday", or "no day". */
export function deliveryDaysText(days: readonly string[]): string {
  const names = days.map(capitalised);
  if (days.length === 7) return 'every day';
  if (days.length === 0) return 'no day';
  const first = WEEKDAYS.indexOf(days[0] as (typeof WEEKDAYS)[number]);
  const consecutive = days.every((day, i) => day === WEEKDAYS[first + i]);
  if (consecutive && days.length > 2) return `${names[0]} to ${names.at(-1)}`;
  return names.length === 1 ? (names[0] as string) : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}
