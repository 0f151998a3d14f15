/**
 * Readers as the console finds and changes them. `searchReaders` is the one place that decides
 * how a search box's text finds readers: today by exact email, circulation number or user id
 * with the filters GET /users has; a free-text filter can replace it here alone.
 */
import { api, type paths } from './client';

export const SEARCH_PAGE_SIZE = 20;
/** The most subscriptions a reader's page lists. */
const SUBSCRIPTIONS_SHOWN = 100;

type UserList = paths['/users']['get']['responses'][200]['content']['application/vnd.api+json'];
export type ReaderSummary = UserList['data'][number];
type UserDocument = paths['/users/{user_id}']['get']['responses'][200]['content']['application/vnd.api+json'];
export type Reader = UserDocument['data'];
type SubscriptionList =
  paths['/users/{user_id}/subscriptions']['get']['responses'][200]['content']['application/vnd.api+json'];
export type Subscription = SubscriptionList['data'][number];
export type Profile = NonNullable<
  paths['/users/{user_id}']['patch']['requestBody']
>['content']['application/vnd.api+json']['data']['attributes'];

const USER_ID = /^[A-Za-z0-9_-]{1,200}$/;

/** At most SEARCH_PAGE_SIZE readers whose email, circulation number or id is the text given. */
export async function searchReaders(text: string): Promise<ReaderSummary[]> {
  const q = text.trim();
  if (q === '') return [];
  const page = { 'page[size]': String(SEARCH_PAGE_SIZE) };
  if (q.includes('@')) {
    const { data } = await api.GET('/users', { params: { query: { 'filter[email]': q, ...page } } });
    return data?.data ?? [];
  }
  const [byNumber, byId] = await Promise.all([
    api.GET('/users', { params: { query: { 'filter[circulationNumber]': q, ...page } } }),
    USER_ID.test(q) ? api.GET('/users/{user_id}', { params: { path: { user_id: q } } }) : undefined,
  ]);
  const found = [...(byId?.data ? [byId.data.data] : []), ...(byNumber.data?.data ?? [])];
  return found.filter((r, i) => found.findIndex((s) => s.id === r.id) === i).slice(0, SEARCH_PAGE_SIZE);
}

/** A reader with their subscriptions, and the ETag a change must send back as If-Match. */
export interface LoadedReader {
  reader: Reader;
  subscriptions: Subscription[];
  etag: string;
}

/** The reader and their subscriptions, read apart: only the reader's own document has an ETag. */
export async function loadReader(id: string): Promise<LoadedReader | undefined> {
  const [user, subscriptions] = await Promise.all([
    api.GET('/users/{user_id}', { params: { path: { user_id: id } } }),
    api.GET('/users/{user_id}/subscriptions', {
      params: { path: { user_id: id }, query: { 'page[size]': String(SUBSCRIPTIONS_SHOWN) } },
    }),
  ]);
  if (!user.data) return undefined;
  return {
    reader: user.data.data,
    subscriptions: subscriptions.data?.data ?? [],
    etag: user.response.headers.get('etag') ?? '',
  };
}

export function updateReader(id: string, etag: string, attributes: Profile) {
  return api.PATCH('/users/{user_id}', {
    params: { path: { user_id: id }, header: { 'if-match': etag } },
    body: { data: { type: 'users', id, attributes } },
  });
}

export function eraseReader(id: string) {
  return api.DELETE('/users/{user_id}', { params: { path: { user_id: id } } });
}

export function issueResetToken(id: string) {
  return api.POST('/users/{user_id}/password-reset-tokens', { params: { path: { user_id: id } } });
}
