/**
 * Who is entitled to what: the paywall's question (may this reader see online content now, do
 * they get the print edition) and the fulfilment lists' (who gets the print edition, who is on a
 * newsletter). A subscription gives its own `resource`, or, when it names none, its product's;
 * `print-online` gives both print and online. Only active subscriptions give anything.
 */
import { Type, type Static } from '@sinclair/typebox';
import { formatInstant } from './dates.js';
import { Nullable } from './schema.js';
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
  productId: string | null;
  resource: Resource | null;
  dateEnded: number | null;
}

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
