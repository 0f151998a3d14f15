/**
 * What the service does to show who made each change: a page of the events feed with the names
 * of its actors as they are now, and those names for any page of changes.
 */
import { actorOf, ENVIRONMENT_ADMIN, type AuditEvent } from '../domain/audit.js';
import type { AuditQuery, Store } from '../store/port.js';

/** A page read (one more than `size` when another follows), and the names of its actors by actor. */
export interface NamedPage<T> {
  fetched: T[];
  names: Map<string, string>;
}

/** A page of the events feed; people's names only when `people` says the caller may know them. */
export async function listEvents(
  store: Store,
  query: AuditQuery,
  size: number,
  people: boolean,
): Promise<NamedPage<AuditEvent>> {
  return withActorNames(store, await store.audit.list(query), size, people);
}

/** A page read, with the names of the actors of its first `size` entries (those the page shows). */
export async function withActorNames<T extends { actor: string | null }>(
  store: Store,
  fetched: T[],
  size: number,
  people: boolean,
): Promise<NamedPage<T>> {
  const actors = fetched.slice(0, size).map((entry) => entry.actor);
  return { fetched, names: await actorNames(store, actors, people) };
}

/**
 * The names of the actors of a page, as they are now: each staff member's and API key's read
 * once and at once (a page has at most a hundred), the system parts' their own; people's only
 * when `people` says the caller may know them.
 */
async function actorNames(
  store: Store,
  actors: readonly (string | null)[],
  people: boolean,
): Promise<Map<string, string>> {
  const named = await Promise.all(
    [...new Set(actors)].map(async (actor): Promise<[string, string | undefined]> => {
      const who = actorOf(actor);
      if (who === null) return ['', undefined];
      if (who.type === 'system' || who.id === ENVIRONMENT_ADMIN) return [actor as string, who.id];
      if (!people) return [actor as string, undefined];
      const name =
        who.type === 'staff' ? (await store.staff.get(who.id))?.name : (await store.credentials.get(who.id))?.name;
      return [actor as string, name];
    }),
  );
  return new Map(named.filter((entry): entry is [string, string] => entry[1] !== undefined));
}
