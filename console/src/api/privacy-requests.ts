/**
 * Privacy requests as the console keeps them (admins only, as the service decides): the open ones
 * soonest due first, one opened for a reader, and one marked completed.
 */
import { api, type paths } from './client';
import { everyPage, pageQuery, type Listed } from './pages';

export type PrivacyRequest = Listed<'/privacy-requests'>['data'][number];
export type PrivacyRequestKind = PrivacyRequest['attributes']['kind'];
type PrivacyRequestCreate = NonNullable<
  paths['/privacy-requests']['post']['requestBody']
>['content']['application/vnd.api+json']['data']['attributes'];

/** The id of the reader a request is about; undefined once they are erased. */
export const readerOf = (request: PrivacyRequest) => request.relationships?.user.data?.id;

/** The requests not yet completed, the soonest due first, and whether every page could be read. */
export function listOpenPrivacyRequests() {
  return everyPage((after) =>
    api.GET('/privacy-requests', { params: { query: { 'filter[open]': 'true', sort: 'dueAt', ...pageQuery(after) } } }),
  );
}

export function openPrivacyRequest(userId: string, attributes: PrivacyRequestCreate) {
  return api.POST('/privacy-requests', {
    body: {
      data: { type: 'privacy-requests', attributes, relationships: { user: { data: { type: 'users', id: userId } } } },
    },
  });
}

/**
 * Closes a request as answered now; or as answered when it came, should this browser's clock be
 * behind the service's (the service refuses a completion before the request was received).
 */
export function completePrivacyRequest({ id, attributes }: PrivacyRequest) {
  const completedAt = new Date(Math.max(Date.now(), Date.parse(attributes.receivedAt))).toISOString();
  return api.PATCH('/privacy-requests/{privacy_request_id}', {
    params: { path: { privacy_request_id: id } },
    body: { data: { type: 'privacy-requests', id, attributes: { completedAt } } },
  });
}
