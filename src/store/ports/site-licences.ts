/**
 * The port for finding site licences: the active ones whose ranges hold an address, and those
 * whose email domains hold a reader's. Their terms are a subscription's attributes and are written
 * with it (ports/subscriptions.ts); this port only reads, each answer one indexed read of exact
 * keys whatever the number of licences (domain/site-licence.ts). On Citus the keys are reference
 * tables: the licences of an address are read from them, then from the shards of the licences'
 * owners alone, never from every shard. A seat holder's licences are read from their seat keys on
 * their own shard (seat_holders), then from the owners' shards.
 */
import type { ActiveLicence, ActiveSubscription } from '../../domain/entitlement.js';
import type { Address } from '../../domain/site-licence.js';

/**
 * What a reader's access comes from: their own active subscriptions, the licences of their email
 * domain, and the licences of which they hold a seat.
 */
export interface ReaderSources {
  own: ActiveSubscription[];
  byDomain: ActiveLicence[];
  bySeat: ActiveLicence[];
}

export interface SiteLicenceStore {
  /** The site licences active at `now` whose ranges hold the address (an IPv4-mapped one already unmapped). */
  ofNetwork(address: Address, now: number): Promise<ActiveLicence[]>;
  /**
   * The access check's read: the user's subscriptions active at `now` (as `subscriptions.activeOf`),
   * the site licences active at `now` whose email domains hold theirs, and those of which they hold
   * a seat; undefined for no such user. Each process keeps the domains some licence names and the
   * readers holding a seat, and reads licences only for a reader whose domain (or a parent's
   * wildcard) is among the first or who is among the second: a reader with neither pays nothing.
   */
  readerSourcesOf(userId: string, now: number): Promise<ReaderSources | undefined>;
}
