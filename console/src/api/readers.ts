/**
 * Readers as the console finds and changes them. `searchReaders` is the one place that decides
 * how a search box's text finds readers: GET /users with `filter[q]`, which the service matches
 * against email, family and given name (by their start, without regard to case or accents),
 * circulation number and id, and `sort=relevance`, so that a name one typo off comes after them.
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
type AccessDocument = paths['/users/{user_id}/access']['get']['responses'][200]['content']['application/vnd.api+json'];
export type Access = AccessDocument['data']['attributes'];
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
    params: { query: { 'filter[q]': q, sort: 'relevance', 'page[size]': String(SEARCH_PAGE_SIZE) } },
  });
  if (data) return { readers: data.data };
  return { refused: describe(error, response.status) };
}

/** A reader with their subscriptions, what they get now, and the ETag a change must send back as If-Match. */
export interface LoadedReader {
  reader: Reader;
  subscriptions: Subscription[];
  /** What the paywall and fulfilment answer for the reader now; undefined when it could not be read. */
  access: Access | undefined;
  etag: string;
}

/** The reader, their subscriptions and access, read apart: only the reader's own document has an ETag. */
export async function loadReader(id: string): Promise<LoadedReader | undefined> {
  const path = { user_id: id };
  const [user, subscriptions, access] = await Promise.all([
    api.GET('/users/{user_id}', { params: { path } }),
    api.GET('/users/{user_id}/subscriptions', {
      params: { path, query: { 'page[size]': String(SUBSCRIPTIONS_SHOWN) } },
    }),
    api.GET('/users/{user_id}/access', { params: { path } }),
  ]);
  if (!user.data) return undefined;
  return {
    reader: user.data.data,
    subscriptions: subscriptions.data?.data ?? [],
    access: access.data?.data.attributes,
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

/** A reset token in the answer: meta.token, and meta.resetUrl when the service knows the reset page. */
export function issueResetToken(id: string) {
  return api.POST('/users/{user_id}/password-reset-tokens', { params: { path: { user_id: id } } });
}

/** A reset link mailed to the reader: the answer holds no token. */
export function mailResetLink(id: string) {
  return api.POST('/users/{user_id}/password-reset-tokens', {
    params: { path: { user_id: id } },
    body: { data: { type: 'password-reset-tokens', attributes: { delivery: 'email' } } },
  });
}

/** How the console names a reader: their given and family name, or their email when they gave neither. */
export function readerName(reader: Reader): string {
  const name = [reader.attributes.givenName, reader.attributes.familyName].filter(Boolean).join(' ');
  return name || (reader.attributes.email ?? `Reader ${reader.id}`);
}

/** The names of the readers with these ids, read one by one; a reader gone (or unreadable) has none. */
export async function readerNames(ids: Iterable<string>): Promise<Map<string, string>> {
  const read = await Promise.all(
    [...new Set(ids)].map(async (id) => {
      const { data } = await api.GET('/users/{user_id}', { params: { path: { user_id: id } } });
      return [id, data ? readerName(data.data) : undefined] as const;
    }),
  );
  return new Map(read.filter((pair): pair is readonly [string, string] => pair[1] !== undefined));
}
