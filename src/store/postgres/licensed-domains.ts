/**
 * The email domains some site licence names, kept in each process's memory as notified-cache.ts keeps
 * records, so that the access check asks the store for the licences of a reader's domain only when
 * that domain or one of its parents' wildcards is among them: most readers' domains (gmail.com…)
 * are licensed to nobody, and the read that found nothing doubled what the check cost PostgreSQL.
 *
 * What is kept may hold more domains than the licences now name (a licence ended, deleted or
 * erased leaves its domains there until the next read), which costs a read that finds nothing;
 * never fewer, for every write that adds a domain notifies SITE_KEYS_CHANNEL in its
 * transaction (site-licences.ts) and forgets here after it. Should a notification be lost on a connection that looks
 * alive, a licence another process added is seen after at most LICENSED_DOMAINS_MAX_AGE_MS.
 * The prefix lengths the ranges use are kept with them, on the same channel, so that an address is
 * probed at those alone. The readers holding a seat are kept the same way, on SEAT_HOLDERS_CHANNEL.
 */
import { SEAT_HOLDERS } from '../sql/seats.js';
import { LICENSED_DOMAINS, RANGE_PREFIX_LENGTHS } from '../sql/site-licences.js';
import type { ChangeListener } from './change-listener.js';
import type { PostgresDatabase } from './database.js';
import { NotifiedCache } from './notified-cache.js';

/** The channel every write adding a licence's domain or range notifies. */
export const SITE_KEYS_CHANNEL = 'circulation_site_keys';

/** The channel every write giving a seat notifies. */
export const SEAT_HOLDERS_CHANNEL = 'circulation_seat_holders';

/** How long the licensed domains (and seat holders) are trusted at most, however quiet the notifications. */
export const LICENSED_DOMAINS_MAX_AGE_MS = 5_000;

/** A set of values some licence names, kept in the process. */
export interface KeptSet {
  /** Every value the store holds (perhaps a few more). */
  current(): Promise<ReadonlySet<string>>;
  /** Forgets here, after the commit of a write that added one (whose notification tells the others). */
  added(): void;
}

/** What the process keeps of the licences' keys: the domains they name and the prefix lengths of their ranges. */
export interface KeptSiteKeys {
  domains: KeptSet;
  prefixLengths: KeptSet;
  /** Forgets both here, after the commit of a write of a licence's keys (whose notification tells the others). */
  added(): void;
}

export function licensedDomains(
  database: PostgresDatabase,
  changes: ChangeListener,
  maxAgeMs = LICENSED_DOMAINS_MAX_AGE_MS,
): KeptSet {
  return keptSiteKeys(database, changes, maxAgeMs).domains;
}

/** The licensed domains and the ranges' prefix lengths, kept together: a write of either key forgets both. */
export function keptSiteKeys(
  database: PostgresDatabase,
  changes: ChangeListener,
  maxAgeMs = LICENSED_DOMAINS_MAX_AGE_MS,
): KeptSiteKeys {
  const kept = new NotifiedCache<ReadonlySet<string>>(database, changes, SITE_KEYS_CHANNEL, maxAgeMs, 2);
  return {
    domains: keptSet(database, kept, 'licensed-domains', LICENSED_DOMAINS),
    prefixLengths: keptSet(database, kept, 'range-prefix-lengths', RANGE_PREFIX_LENGTHS),
    added() {
      kept.forget();
    },
  };
}

/**
 * The readers holding a seat, kept the same way, so that a reader holding none costs the access
 * check no read: its value is the holder's id. Loaded whole after a seat is given anywhere.
 */
export function seatHolders(
  database: PostgresDatabase,
  changes: ChangeListener,
  maxAgeMs = LICENSED_DOMAINS_MAX_AGE_MS,
) {
  const kept = new NotifiedCache<ReadonlySet<string>>(database, changes, SEAT_HOLDERS_CHANNEL, maxAgeMs, 1);
  return keptSet(database, kept, 'seat-holders', SEAT_HOLDERS);
}

/** The values `query` finds, kept under its name in `kept`. */
function keptSet(
  database: PostgresDatabase,
  kept: NotifiedCache<ReadonlySet<string>>,
  name: string,
  query: string,
): KeptSet {
  return {
    async current() {
      const found = await kept.read(name, async () => {
        const rows = await database.preparedRows(name, query, []);
        return new Set(rows.map((row) => String(Object.values(row)[0])));
      });
      return found ?? new Set();
    },
    added() {
      kept.forget();
    },
  };
}
