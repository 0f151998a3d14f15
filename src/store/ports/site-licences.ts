/**
 * The port for finding site licences: the active ones whose ranges hold an address, and those
 * whose email domains hold a reader's. Their terms are a subscription's attributes and are written
 * with it (ports/subscriptions.ts); this port only reads, each answer one indexed read of exact
 * keys whatever the number of licences (domain/site-licence.ts). On Citus the keys are reference
 * tables: the licences of an address are read from them, then from the shards of the licences'
 * owners alone, never from every shard.
 */
import type { ActiveLicence } from '../../domain/entitlement.js';
import type { RangeKey } from '../../domain/site-licence.js';

export interface SiteLicenceStore {
  /** The site licences active at `now` whose ranges hold the address these are the keys of (`addressKeys`). */
  licencesOfNetwork(keys: readonly RangeKey[], now: number): Promise<ActiveLicence[]>;
  /** The site licences active at `now` whose email domains hold the user's; none for no such user. */
  licencesOfReader(userId: string, now: number): Promise<ActiveLicence[]>;
}
