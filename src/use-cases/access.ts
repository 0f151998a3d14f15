/**
 * The paywall's question, answered: what a reader may see now, from their subscriptions and the
 * site licences their email domain or a seat gives them; what an address may see, from the site
 * licences whose ranges hold it. Each answers the licences that granted it, for its caller to
 * count their usage.
 */
import { networkAccessOf, readerGrantsOf } from '../domain/entitlement.js';
import { unmapped, type Address } from '../domain/site-licence.js';
import type { Store } from '../store/port.js';

/** The reader's access at `now`, and what granted it; undefined when there is no such reader. */
export async function readerAccess(store: Store, userId: string, now: number) {
  const sources = await store.siteLicences.readerSourcesOf(userId, now);
  return sources && readerGrantsOf(sources.own, sources.byDomain, sources.bySeat);
}

/** The access at `now` of an address (a mapped IPv4 address as the IPv4 one), and the licences that grant it. */
export async function networkAccess(store: Store, address: Address, now: number) {
  return networkAccessOf(await store.siteLicences.ofNetwork(unmapped(address), now));
}
