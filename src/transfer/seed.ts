/**
 * Demo data, made fast: a small catalogue, then users with plausible attributes and three
 * subscriptions each, written through the store's bulk import. The same data every time for the
 * same count (dates apart: they are reckoned from the day the seed runs, so that "active now"
 * finds what it should), so benchmarks can name the users they ask for: user n has the email
 * `reader<n>@d<n % domains>.example` (about 50 users a domain), circulation number `C-<n>`, and is
 * the n-th user created.
 *
 * What the fulfilment questions find: every user reads online now (a digital-annual subscription,
 * which takes its resource from its product); an even-numbered user also gets print now unless a
 * multiple of 5 (a print subscription, or for multiples of 4 one to print-weekend without a resource
 * of its own), about 40% of users; the third subscription has not begun. Users 3k are on the
 * daily newsletter, 3k+1 on daily and weekly.
 */
import type { AuditContext } from '../domain/audit.js';
import { EVERY_DAY, maskOf } from '../domain/delivery-days.js';
import { DomainFailure } from '../domain/failures.js';
import type { ProductValues } from '../domain/product.js';
import type { SubscriptionValues } from '../domain/subscription.js';
import { toUserFields } from '../domain/user.js';
import type { ImportedUser, Store } from '../store/port.js';

export const SUBSCRIPTIONS_PER_USER = 3;
const GIVEN = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Radia', 'Tim'];
const FAMILY = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Thompson', 'Perlman'];
const LICENSES = ['individual', 'free', 'site'] as const;
const DAY = 24 * 3600;
const SEED: AuditContext = { actor: 'seed', attributes: [] };

export const SEED_PRODUCTS: readonly (ProductValues & { id: string })[] = [
  {
    id: 'digital-annual',
    name: 'Digital, annual',
    description: null,
    active: true,
    resource: 'online',
    license: 'individual',
    deliveryDays: EVERY_DAY,
  },
  {
    id: 'print-weekend',
    name: 'Weekend print edition',
    description: null,
    active: true,
    resource: 'print',
    license: 'individual',
    deliveryDays: maskOf(['saturday', 'sunday']),
  },
  {
    id: 'print-digital',
    name: 'Print and digital',
    description: null,
    active: true,
    resource: 'print-online',
    license: null,
    deliveryDays: EVERY_DAY,
  },
];

export const SEED_NEWSLETTERS = [
  { id: 'daily', name: 'The daily briefing', description: null, active: true, doubleOptIn: false },
  { id: 'weekly', name: 'The week in review', description: null, active: true, doubleOptIn: false },
] as const;

export function domainCount(users: number): number {
  return Math.max(1, Math.floor(users / 50));
}

export function seedEmail(n: number, users: number): string {
  return `reader${n}@d${n % domainCount(users)}.example`;
}

/** User n of `users`, with dates reckoned from `today` (epoch seconds). */
export function seedUser(n: number, users: number, today: number): ImportedUser {
  const days = (d: number) => today + d * DAY;
  const subscriptions: SubscriptionValues[] = [
    {
      dateStarted: days(-((n * 7) % 300) - 1),
      dateEnded: days((n % 365) + 1),
      externalIdentifier: `ext-${n}-0`,
      license: LICENSES[n % 3] ?? null,
      resource: null,
      trial: n % 10 === 0,
      productId: 'digital-annual',
      deliveryDays: null,
      ipRanges: [],
      emailDomains: [],
      seats: null,
    },
    {
      dateStarted: days(-((n * 3) % 200) - 1),
      dateEnded: n % 5 === 0 ? days(-1) : days(((n * 11) % 365) + 1),
      externalIdentifier: `ext-${n}-1`,
      license: LICENSES[(n + 1) % 3] ?? null,
      resource: n % 4 === 0 ? null : n % 2 === 0 ? 'print' : 'online',
      trial: false,
      productId: n % 4 === 0 ? 'print-weekend' : null,
      deliveryDays: null,
      ipRanges: [],
      emailDomains: [],
      seats: null,
    },
    {
      dateStarted: days((n % 30) + 1),
      dateEnded: null,
      externalIdentifier: `ext-${n}-2`,
      license: LICENSES[(n + 2) % 3] ?? null,
      resource: 'print-online',
      trial: n % 7 === 0,
      productId: 'print-digital',
      // Every seventh reader of print and digital takes the paper Monday to Saturday only.
      deliveryDays: n % 7 === 3 ? maskOf(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday']) : null,
      ipRanges: [],
      emailDomains: [],
      seats: null,
    },
  ];
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

/** Makes a record of the catalogue unless one has its id (a seed run again, or on data of its own). */
async function ensure(create: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (error) {
    if (!(error instanceof DomainFailure && error.code === 'ID_TAKEN')) throw error;
  }
}

/** Fills the store with the catalogue and `users` demo users, in batches; reports progress. */
export async function seed(
  store: Store,
  users: number,
  options: { batchSize?: number; onProgress?: (done: number) => void } = {},
): Promise<void> {
  for (const { id, ...values } of SEED_PRODUCTS) await ensure(() => store.products.create(id, values, SEED));
  for (const { id, ...values } of SEED_NEWSLETTERS) await ensure(() => store.newsletters.create(id, values, SEED));
  const today = Math.floor(Date.now() / 1000 / DAY) * DAY;
  const batchSize = options.batchSize ?? 5000;
  for (let start = 1; start <= users; start += batchSize) {
    const batch = [];
    for (let n = start; n < Math.min(start + batchSize, users + 1); n += 1) batch.push(seedUser(n, users, today));
    await store.users.import(batch, null);
    options.onProgress?.(Math.min(start + batchSize - 1, users));
  }
}
