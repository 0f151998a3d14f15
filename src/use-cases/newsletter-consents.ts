/**
 * What the service does with a reader's newsletter consents beyond one store call: a page of a
 * consent's history, with the names of those who made each change.
 */
import type { StoredConsentChange } from '../domain/consent.js';
import type { ConsentPageQuery, Store } from '../store/port.js';
import { withActorNames, type NamedPage } from './events.js';

/** A page of a consent's history; undefined when the reader has no consent for the newsletter. */
export async function listConsentHistory(
  store: Store,
  { userId, newsletterId }: { userId: string; newsletterId: string },
  query: ConsentPageQuery,
  size: number,
  people: boolean,
): Promise<NamedPage<StoredConsentChange> | undefined> {
  const fetched = await store.consents.listChanges(userId, newsletterId, query);
  return fetched && withActorNames(store, fetched, size, people);
}
