/** A reader's subscriptions as the console changes them, and the catalogue it picks from. */
import { api } from './client';
import { everyPage, pageQuery } from './pages';

/**
 * The catalogue, every page of it up to the most a screen reads (pages.ts): a product past the
 * first page showed on a reader's page by its id, as giving nothing, and could not be picked.
 */
export async function listProducts() {
  return (await everyPage((after) => api.GET('/products', { params: { query: pageQuery(after) } }))).records;
}

export async function listNewsletters() {
  return (await everyPage((after) => api.GET('/newsletters', { params: { query: pageQuery(after) } }))).records;
}

/** A day as the API's instants have it: its start, in UTC. */
export const startOfDay = (day: string) => `${day}T00:00:00Z`;

/** The day of an instant, as a date input shows it. */
export const dayOf = (instant: string | null | undefined) => instant?.slice(0, 10) ?? '';

export function addSubscription(userId: string, productId: string, dateStarted: string, dateEnded: string | null) {
  return api.POST('/users/{user_id}/subscriptions', {
    params: { path: { user_id: userId } },
    body: {
      data: {
        type: 'subscriptions',
        attributes: {
          dateStarted: startOfDay(dateStarted),
          dateEnded: dateEnded === null ? null : startOfDay(dateEnded),
        },
        relationships: { product: { data: { type: 'products', id: productId } } },
      },
    },
  });
}

/** Moves a subscription's end, sending the ETag it has now as If-Match. */
export async function extendSubscription(userId: string, id: string, dateEnded: string | null) {
  const path = { user_id: userId, subscription_id: id };
  const current = await api.GET('/users/{user_id}/subscriptions/{subscription_id}', { params: { path } });
  const etag = current.response.headers.get('etag') ?? '*';
  return api.PATCH('/users/{user_id}/subscriptions/{subscription_id}', {
    params: { path, header: { 'if-match': etag } },
    body: {
      data: { type: 'subscriptions', id, attributes: { dateEnded: dateEnded === null ? null : startOfDay(dateEnded) } },
    },
  });
}

export function expireSubscription(userId: string, id: string) {
  return api.PUT('/users/{user_id}/subscriptions/{subscription_id}/expire', {
    params: { path: { user_id: userId, subscription_id: id } },
  });
}

export function deleteSubscription(userId: string, id: string) {
  return api.DELETE('/users/{user_id}/subscriptions/{subscription_id}', {
    params: { path: { user_id: userId, subscription_id: id } },
  });
}
