/**
 * What the service does with a user's subscriptions: gives one (its delivery days checked against
 * its product's), lists and reads them with their products, changes one. Each answers undefined
 * where the user or the subscription does not exist. Deleting and expiring one are a store call
 * each, which the routes make.
 */
import type { AuditContext } from '../domain/audit.js';
import type { Product } from '../domain/product.js';
import { EVERY_DAY } from '../domain/delivery-days.js';
import {
  changedSubscription,
  requireProductDeliveryDays,
  type StoredSubscription,
  type SubscriptionUpdate,
  type SubscriptionValues,
} from '../domain/subscription.js';
import type { IfVersion, Store, SubscriptionPageQuery } from '../store/port.js';
import { requireVersion } from '../store/ports/versions.js';

export async function createSubscription(
  store: Store,
  userId: string,
  values: SubscriptionValues,
  audit: AuditContext,
): Promise<StoredSubscription | undefined> {
  await checkDeliveryDays(store, values.deliveryDays, values.productId);
  return store.subscriptions.create(userId, values, audit);
}

/**
 * A page of the user's subscriptions (the query reads one more than `size`, to know whether
 * another follows) and, when asked for, the products of the page's; undefined without the user.
 */
export async function listSubscriptions(
  store: Store,
  userId: string,
  query: SubscriptionPageQuery,
  size: number,
  withProducts: boolean,
): Promise<{ fetched: StoredSubscription[]; products?: Product[] } | undefined> {
  const fetched = await store.subscriptions.list(userId, query);
  if (!fetched) return undefined;
  return { fetched, products: withProducts ? await productsOf(store, fetched.slice(0, size)) : undefined };
}

/** The subscription and, when asked for, its product. */
export async function readSubscription(
  store: Store,
  userId: string,
  id: string,
  withProducts: boolean,
): Promise<{ subscription: StoredSubscription; products?: Product[] } | undefined> {
  const subscription = await store.subscriptions.get(userId, id);
  if (!subscription) return undefined;
  return { subscription, products: withProducts ? await productsOf(store, [subscription]) : undefined };
}

/** What a change of a subscription sends: attributes, and the product (undefined when not sent, null for none). */
export interface SubscriptionChange {
  attributes: SubscriptionUpdate;
  productId: string | null | undefined;
  ifVersion: IfVersion;
}

/**
 * Changes the subscription and answers it as it now is. A change of nothing answers it as it
 * stands, with no new version, audit entry or event, once the version is checked.
 */
export async function updateSubscription(
  store: Store,
  userId: string,
  id: string,
  { attributes, productId, ifVersion }: SubscriptionChange,
  audit: AuditContext,
): Promise<StoredSubscription | undefined> {
  if (Object.keys(attributes).length === 0 && productId === undefined) {
    const current = await store.subscriptions.get(userId, id);
    if (!current) return undefined;
    requireVersion(current.version, ifVersion);
    return current;
  }
  if (attributes.deliveryDays != null || productId !== undefined) {
    const current = await store.subscriptions.get(userId, id);
    if (!current) return undefined;
    const next = changedSubscription(current, { deliveryDays: attributes.deliveryDays }, productId);
    await checkDeliveryDays(store, next.deliveryDays, next.productId);
  }
  return store.subscriptions.update(
    userId,
    id,
    (current) => changedSubscription(current, attributes, productId),
    audit,
    ifVersion,
  );
}

/**
 * Refuses delivery days of a subscription's own that its product is not delivered on. Read
 * before the write: a product narrowed meanwhile still wins, as a subscription is delivered on
 * the days both have.
 */
async function checkDeliveryDays(store: Store, deliveryDays: number | null, productId: string | null) {
  if (deliveryDays === null || productId === null) return;
  const [product] = await store.products.getMany([productId]);
  requireProductDeliveryDays(deliveryDays, product?.deliveryDays ?? EVERY_DAY);
}

/** The products these subscriptions are of, each once. */
async function productsOf(store: Store, subscriptions: StoredSubscription[]): Promise<Product[]> {
  const ids = [...new Set(subscriptions.flatMap((s) => (s.productId === null ? [] : [s.productId])))];
  return store.products.getMany(ids);
}
