/**
 * The port for finding site licences: the active ones whose ranges hold an address, and those
 * whose email domains hold a reader's. Their terms are a subscription's attributes and are written
 * with it (ports/subscriptions.ts); this port only reads, each answer one indexed read of exact
 * keys whatever the number of licences (domain/site-licence.ts). On Citus the keys are reference
 * tables: the licences of an address are read from them, then from the shards of the licences'
 * owners alone, never from every shard.
 */
import type { ActiveLicence, ActiveSubscription } from '../../domain/entitlement.js';
import type { RangeKey } from '../../domain/site-licence.js';

/** What a reader's access comes from: their own active subscriptions, and the licences of their email domain. */
export interface ReaderSources {
  own: ActiveSubscription[];
  byDomain: ActiveLicence[];
}

export interface SiteLicenceStore {
  /** The site licences active at `now` whose ranges hold the address these are the keys of (`addressKeys`). */
  licencesOfNetwork(keys: readonly RangeKey[], now: number): Promise<ActiveLicence[]>;
  /**
   * The access check's read: the user's subscriptions active at `now` (as `activeSubscriptionsOf`)
   * and the site licences active at `now` whose email domains hold theirs;
   * undefined for no such user. Each process keeps the domains some licence names, and reads the
   * licences only when the reader's domain or a parent's wildcard is among them.
   */
  readerSourcesOf(userId: string, now: number): Promise<ReaderSources | undefined>;
}
