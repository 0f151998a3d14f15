/**
 * Readers as the console finds and changes them. `searchReaders` is the one place that decides
 * how a search box's text finds readers: GET /users with `filter[q]`, which the service matches
 * against email, family and given name (by their start, without regard to case or accents),
 * circulation number and id.
 */
import { api, describe, type paths } from './client';

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

/** What a search found: up to SEARCH_PAGE_SIZE readers, or the service's word on why it would not search. */
export type SearchResult = { readers: ReaderSummary[] } | { refused: string };

/** The first SEARCH_PAGE_SIZE readers the text finds. */
export async function searchReaders(text: string): Promise<SearchResult> {
  const q = text.trim();
  if (q === '') return { readers: [] };
  const { data, error, response } = await api.GET('/users', {
    params: { query: { 'filter[q]': q, 'page[size]': String(SEARCH_PAGE_SIZE) } },
  });
  if (data) return { readers: data.data };
  return { refused: describe(error, response.status) };
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
