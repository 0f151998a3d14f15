/**
 * Which users exist, kept in each process's memory as notified-cache.ts keeps records: the access check
 * tells a reader without an active subscription (an empty answer) from no reader (a 404), and
 * asking the store cost a statement of its own, a round trip on every check of a registered reader
 * who does not subscribe. Only the users found are kept, by id alone, for at most
 * KNOWN_USER_MAX_AGE_MS and KNOWN_USERS_MAX of them; every erasure of a user notifies
 * USERS_CHANNEL, and a user created later needs no notification. Should a notification be lost on
 * a connection that looks alive, an erased reader's check answers "no access" rather than 404 for
 * at most that age.
 */
import type { ChangeListener } from './change-listener.js';
import type { PostgresDatabase } from './database.js';
import { NotifiedCache, type Changing } from './notified-cache.js';

/** The channel every erasure of a user notifies. */
export const USERS_CHANNEL = 'circulation_users';

/** How long a user is known to exist at most, however quiet the notifications. */
export const KNOWN_USER_MAX_AGE_MS = 60_000;

/** How many users a process knows of at most: 100,000 ids cost it a few megabytes. */
export const KNOWN_USERS_MAX = 100_000;

const USER_EXISTS = 'SELECT 1 FROM users WHERE id = $1';

export interface KnownUsers {
  exists(userId: string): Promise<boolean>;
  /** Runs an erasure of users in a transaction that tells every process, then forgets here. */
  erasing: Changing;
}

export function knownUsers(
  database: PostgresDatabase,
  changes: ChangeListener,
  { maxAgeMs = KNOWN_USER_MAX_AGE_MS, maxEntries = KNOWN_USERS_MAX } = {},
): KnownUsers {
  const kept = new NotifiedCache<true>(database, changes, USERS_CHANNEL, maxAgeMs, maxEntries);

  async function exists(userId: string): Promise<boolean> {
    const found = await kept.read(userId, async () =>
      (await database.preparedRows('user-exists', USER_EXISTS, [userId])).length > 0 ? true : undefined,
    );
    return found === true;
  }

  return { exists, erasing: kept.changing };
}
