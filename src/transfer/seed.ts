/**
 * Demo data, made fast: users with plausible attributes and three subscriptions each, written
 * through the store's bulk import. The same data every time for the same count, so benchmarks
 * can name the users they ask for: user n has the email `reader<n>@d<n % domains>.example`
 * (about 50 users a domain), circulation number `C-<n>`, and is the n-th user created.
 */
import type { SubscriptionValues } from '../domain/subscription.js';
import { toUserFields } from '../domain/user.js';
import type { ImportedUser, Store } from '../store/port.js';

export const SUBSCRIPTIONS_PER_USER = 3;
const GIVEN = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Radia', 'Tim'];
const FAMILY = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Thompson', 'Perlman'];
const LICENSES = ['individual', 'free', 'site'] as const;
const RESOURCES = ['online', 'print', 'print-online'] as const;
const YEAR = 365 * 24 * 3600;
const START = Date.UTC(2024, 0, 1) / 1000;

export function domainCount(users: number): number {
  return Math.max(1, Math.floor(users / 50));
}

export function seedEmail(n: number, users: number): string {
  return `reader${n}@d${n % domainCount(users)}.example`;
}

export function seedUser(n: number, users: number): ImportedUser {
  const subscriptions: SubscriptionValues[] = Array.from({ length: SUBSCRIPTIONS_PER_USER }, (_, k) => ({
    dateStarted: START + ((n * 7 + k * 97) % 365) * 24 * 3600,
    dateEnded: START + YEAR + ((n + k) % 365) * 24 * 3600,
    externalIdentifier: `ext-${n}-${k}`,
    license: LICENSES[(n + k) % 3] ?? null,
    resource: RESOURCES[(n * 3 + k) % 3] ?? null,
    trial: (n + k) % 10 === 0,
    productId: k === 0 ? 'digital-annual' : null,
  }));
  return {
    user: {
      email: seedEmail(n, users),
      passwordHash: null,
      fields: toUserFields({
        givenName: GIVEN[n % GIVEN.length],
        familyName: FAMILY[n % FAMILY.length] as string,
        circulationNumber: `C-${n}`,
        address: {
          streetAddress: `${n} Main Street`,
          addressLocality: 'Springfield',
          addressRegion: 'IL',
          addressCountry: 'US',
          postalCode: String(62700 + (n % 100)),
        },
        telephone: `+1 217 555 ${String(n % 10000).padStart(4, '0')}`,
      }),
      newsletters: n % 3 === 0 ? ['daily'] : n % 3 === 1 ? ['daily', 'weekly'] : [],
    },
    subscriptions,
  };
}

/** Fills the store with `users` demo users (numbered from `from`), in batches; reports progress. */
export async function seed(
  store: Store,
  users: number,
  options: { batchSize?: number; onProgress?: (done: number) => void } = {},
): Promise<void> {
  const batchSize = options.batchSize ?? 5000;
  for (let start = 1; start <= users; start += batchSize) {
    const batch = [];
    for (let n = start; n < Math.min(start + batchSize, users + 1); n += 1) batch.push(seedUser(n, users));
    await store.importUsers(batch, null);
    options.onProgress?.(Math.min(start + batchSize - 1, users));
  }
}
