/**
 * The email domains some site licence names, kept in each process's memory as notified-cache.ts keeps
 * records, so that the access check asks the store for the licences of a reader's domain only when
 * that domain or one of its parents' wildcards is among them: most readers' domains (gmail.com…)
 * are licensed to nobody, and the read that found nothing doubled what the check cost PostgreSQL.
 *
 * What is kept may hold more domains than the licences now name (a licence ended, deleted or
 * erased leaves its domains there until the next read), which costs a read that finds nothing;
 * never fewer, for every write that adds a domain notifies SITE_DOMAINS_CHANNEL in its
 * transaction (site-licences.ts) and forgets here after it. Should a notification be lost on a connection that looks
 * alive, a licence another process added is seen after at most LICENSED_DOMAINS_MAX_AGE_MS.
 * The readers holding a seat are kept the same way, on SEAT_HOLDERS_CHANNEL.
 */
import { SEAT_HOLDERS } from '../sql/seats.js';
import { LICENSED_DOMAINS } from '../sql/site-licences.js';
import type { ChangeListener } from './change-listener.js';
import type { PostgresDatabase } from './database.js';
import { NotifiedCache } from './notified-cache.js';

/** The channel every write adding a licence's domain notifies. */
export const SITE_DOMAINS_CHANNEL = 'circulation_site_domains';

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

export type LicensedDomains = KeptSet;

export function licensedDomains(
  database: PostgresDatabase,
  changes: ChangeListener,
  maxAgeMs = LICENSED_DOMAINS_MAX_AGE_MS,
): KeptSet {
  return keptSet(database, changes, SITE_DOMAINS_CHANNEL, 'licensed-domains', LICENSED_DOMAINS, maxAgeMs);
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
  return keptSet(database, changes, SEAT_HOLDERS_CHANNEL, 'seat-holders', SEAT_HOLDERS, maxAgeMs);
}

function keptSet(
  database: PostgresDatabase,
  changes: ChangeListener,
  channel: string,
  name: string,
  query: string,
  maxAgeMs: number,
): KeptSet {
  const kept = new NotifiedCache<ReadonlySet<string>>(database, changes, channel, maxAgeMs, 1);
  return {
    async current() {
      const found = await kept.read('', async () => {
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
