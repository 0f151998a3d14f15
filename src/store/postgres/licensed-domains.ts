/**
 * The email domains some site licence names, kept in each process's memory as kept.ts keeps
 * records, so that the access check asks the store for the licences of a reader's domain only when
 * that domain or one of its parents' wildcards is among them: most readers' domains (gmail.com…)
 * are licensed to nobody, and the read that found nothing doubled what the check cost PostgreSQL.
 *
 * What is kept may hold more domains than the licences now name (a licence ended, deleted or
 * erased leaves its domains there until the next read), which costs a read that finds nothing;
 * never fewer, for every write that adds a domain notifies SITE_DOMAINS_CHANNEL in its
 * transaction (site-licences.ts) and forgets here after it. Should a notification be lost on a connection that looks
 * alive, a licence another process added is seen after at most LICENSED_DOMAINS_MAX_AGE_MS.
 */
import { LICENSED_DOMAINS } from '../sql/site-licences.js';
import type { Changes } from './changes.js';
import type { PostgresDatabase } from './database.js';
import { Kept } from './kept.js';

/** The channel every write adding a licence's domain notifies. */
export const SITE_DOMAINS_CHANNEL = 'circulation_site_domains';

/** How long the licensed domains are trusted at most, however quiet the notifications. */
export const LICENSED_DOMAINS_MAX_AGE_MS = 5_000;

export interface LicensedDomains {
  /** Every domain some licence names (perhaps a few more). */
  current(): Promise<ReadonlySet<string>>;
  /** Forgets here, after the commit of a write that added a domain (whose notification tells the others). */
  added(): void;
}

export function licensedDomains(
  database: PostgresDatabase,
  changes: Changes,
  maxAgeMs = LICENSED_DOMAINS_MAX_AGE_MS,
): LicensedDomains {
  const kept = new Kept<ReadonlySet<string>>(database, changes, SITE_DOMAINS_CHANNEL, maxAgeMs, 1);
  return {
    async current() {
      const found = await kept.read('', async () => {
        const rows = await database.preparedRows('licensed-domains', LICENSED_DOMAINS, []);
        return new Set(rows.map((row) => row.domain as string));
      });
      return found ?? new Set();
    },
    added() {
      kept.forget();
    },
  };
}
