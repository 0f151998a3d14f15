/**
 * Who is entitled to what: the paywall's question (may this reader see online content now, do
 * they get the print edition) and the fulfilment lists' (who gets the print edition, who is on a
 * newsletter). A subscription gives its own `resource`, or, when it names none, its product's;
 * `print-online` gives both print and online. Only active subscriptions give anything.
 */
import { Type, type Static } from '@sinclair/typebox';
import { formatInstant } from './dates.js';
import { Nullable, StringEnum } from './schema.js';
import { RESOURCES, type Resource, type SubscriptionStatus } from './subscription.js';

export const ACCESS = 'access';

/**
 * The resources a subscription may give that give `wanted`: a filter by `print` means the print
 * edition, which `print` and `print-online` subscriptions both give.
 */
export const GIVING: Readonly<Record<Resource, readonly Resource[]>> = {
  online: ['online', 'print-online'],
  print: ['print', 'print-online'],
  'print-online': ['print-online'],
};

/** An active subscription, as much as access needs of it: the resource it gives (its own or its product's). */
export interface ActiveSubscription {
  /** Its id, which the access names among its sources. */
  id: string;
  productId: string | null;
  resource: Resource | null;
  dateEnded: number | null;
}

/** An active site licence that holds an address or a reader's domain, and whose it is. */
export interface ActiveLicence extends ActiveSubscription {
  userId: string;
}

/** Through what a reader has a subscription's access: their own, their email's domain, a seat. */
export const VIAS = ['own', 'email-domain', 'seat'] as const;
export type Via = (typeof VIAS)[number];

export const AccessAttributes = Type.Object({
  online: Type.Boolean({ description: 'An active subscription gives online (online or print-online).' }),
  print: Type.Boolean({ description: 'An active subscription gives print (print or print-online).' }),
  until: Nullable(
    Type.String({
      format: 'date-time',
      description:
        'The latest dateEnded of the active subscriptions; null when one of them is open-ended, or none is active.',
    }),
  ),
  products: Type.Array(Type.String(), { description: 'The products of the active subscriptions, by id.' }),
});

export type Access = Static<typeof AccessAttributes>;

export const Source = Type.Object({
  subscription: Type.String({ description: "The subscription's id." }),
  via: StringEnum(VIAS, {
    description:
      "own: the reader's own subscription; email-domain: a site licence whose emailDomains hold the reader's email's domain; seat: a site licence of which the reader holds a seat.",
  }),
});

export const ReaderAccessAttributes = Type.Object({
  ...AccessAttributes.properties,
  sources: Type.Array(Source, {
    description:
      'Each active subscription that gives the reader access, once, and through what (own before email-domain before seat), by id.',
  }),
});

export type ReaderAccess = Static<typeof ReaderAccessAttributes>;

/**
 * What a site licence gives those it reaches beyond its owner (a network, a domain): online, for a
 * licence that gives it, and its product; never print, which is delivered to the owner alone. A
 * licence that gives only print reaches no one else: undefined.
 */
export function sharedGrant<T extends ActiveSubscription>(licence: T): T | undefined {
  if (licence.resource === 'print') return undefined;
  return licence.resource === 'print-online' ? { ...licence, resource: 'online' } : licence;
}

/** A site licence that gave a reader access, and how it reached them. */
export interface Grant {
  licence: ActiveLicence;
  via: Exclude<Via, 'own'>;
}

/**
 * A reader's access: what their own active subscriptions give, and what the active site licences
 * that reach them through their email's domain or a seat they hold give others (see `sharedGrant`);
 * each subscription named once among the sources: as their own when it is, else through their
 * domain before a seat. `granted` are the licences named through a domain or a seat.
 */
export function readerGrantsOf(
  own: readonly ActiveSubscription[],
  byDomain: readonly ActiveLicence[],
  bySeat: readonly ActiveLicence[],
): { access: ReaderAccess; granted: Grant[] } {
  const named = new Set(own.map((s) => s.id));
  const granted: Grant[] = [];
  const reach = (licences: readonly ActiveLicence[], via: Grant['via']) => {
    for (const licence of [...licences].sort(byId)) {
      if (named.has(licence.id)) continue;
      const grant = sharedGrant(licence);
      if (!grant) continue;
      named.add(licence.id);
      granted.push({ licence: grant, via });
    }
  };
  reach(byDomain, 'email-domain');
  reach(bySeat, 'seat');
  // Stryker disable next-line ArithmeticOperator: sorted, the last of equal ids names the same id as the first
  const unique = (list: ActiveSubscription[]) => list.filter((s, i) => list[i - 1]?.id !== s.id);
  const ownSources = unique([...own].sort(byId)).map((s) => ({ subscription: s.id, via: 'own' as const }));
  const sharedSources = granted.map(({ licence, via }) => ({ subscription: licence.id, via }));
  return {
    access: { ...accessOf([...own, ...granted.map((g) => g.licence)]), sources: [...ownSources, ...sharedSources] },
    granted,
  };
}

/** A reader's access (see `readerGrantsOf`). */
export function readerAccessOf(
  own: readonly ActiveSubscription[],
  byDomain: readonly ActiveLicence[],
  bySeat: readonly ActiveLicence[] = [],
): ReaderAccess {
  return readerGrantsOf(own, byDomain, bySeat).access;
}

const byId = (a: ActiveSubscription, b: ActiveSubscription) => Number(a.id) - Number(b.id);

/** What a network is given by the active site licences whose ranges hold it, and which they are, by id. */
export function networkAccessOf(licences: readonly ActiveLicence[]): { access: Access; licences: ActiveLicence[] } {
  const granting = new Map<string, ActiveLicence>();
  for (const licence of licences) {
    const grant = sharedGrant(licence);
    if (grant) granting.set(grant.id, grant);
  }
  const list = [...granting.values()].sort((a, b) => Number(a.id) - Number(b.id));
  return { access: accessOf(list), licences: list };
}

/** What a user's active subscriptions entitle them to, in one pass: it answers every paywall check. */
export function accessOf(active: readonly ActiveSubscription[]): Access {
  let online = false;
  let print = false;
  let openEnded = false;
  let latestEnd = 0;
  const products = new Set<string>();
  for (const { resource, dateEnded, productId } of active) {
    // Stryker disable next-line ConditionalExpression: GIVING's lists hold no null, so without the check nothing changes
    if (resource !== null) {
      online ||= GIVING.online.includes(resource);
      print ||= GIVING.print.includes(resource);
    }
    if (dateEnded === null) openEnded = true;
    else latestEnd = Math.max(latestEnd, dateEnded);
    if (productId !== null) products.add(productId);
  }
  return {
    online,
    print,
    until: openEnded || active.length === 0 ? null : formatInstant(latestEnd),
    products: [...products].sort(),
  };
}

/** How a list of subscriptions may be narrowed: by status at an instant, resource given, product. */
export interface SubscriptionFilter {
  /** The instant statuses are judged at (epoch seconds). */
  at: number;
  statuses?: readonly SubscriptionStatus[];
  /** Only subscriptions that give this (see GIVING). */
  resource?: Resource;
  product?: string;
}

/** The users filter by their subscriptions: those with one active at `at`, of this resource and product. */
export interface ActiveSubscriptionFilter {
  at: number;
  resource?: Resource;
  product?: string;
}

/** The filters a user list takes on subscriptions, as sent (query parameters, command options). */
export interface UserSubscriptionFilters {
  status?: string;
  resource?: string;
  product?: string;
}

/**
 * The subscription filter of a user list, or the problem with it: users are found by their active
 * subscriptions, so `resource` and `product` narrow `status=active` and need it.
 */
export function userSubscriptionFilter(
  filters: UserSubscriptionFilters,
  at: number,
): { filter?: ActiveSubscriptionFilter; problem?: { name: keyof UserSubscriptionFilters; detail: string } } {
  const { status, resource, product } = filters;
  if (status !== undefined && status !== 'active') {
    return {
      problem: { name: 'status', detail: 'can only be active: users are found by their active subscriptions' },
    };
  }
  if (resource !== undefined && !(RESOURCES as readonly string[]).includes(resource)) {
    return { problem: { name: 'resource', detail: `must be one of: ${RESOURCES.join(', ')}` } };
  }
  if (status === undefined) {
    const name = resource !== undefined ? 'resource' : product !== undefined ? 'product' : undefined;
    if (name)
      return { problem: { name, detail: 'needs status active: it narrows the users with an active subscription' } };
    return {};
  }
  return {
    filter: {
      at,
      ...(resource === undefined ? {} : { resource: resource as Resource }),
      ...(product === undefined ? {} : { product }),
    },
  };
}
