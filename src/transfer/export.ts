/**
 * `circulation export`: users (and their subscriptions) streamed as NDJSON or CSV, a page of
 * 1,000 at a time by id, so memory stays flat however many there are. It filters as the user list
 * does, so a fulfilment list (the members of a newsletter; who gets the print edition now, with
 * their addresses) is an export with filters, read through the same index seeks.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { stringify as stringifyCsv } from 'csv-stringify';
import { nowInSeconds } from '../domain/dates.js';
import { groupByUser, toSubscriptionAttributes, type StoredSubscription } from '../domain/subscription.js';
import { toUserAttributes } from '../domain/user.js';
import type { ActiveSubscriptionFilter } from '../domain/entitlement.js';
import type { EmailFilter, Store } from '../store/port.js';
import { flatten, USER_CSV_COLUMNS } from './csv.js';
import { write, type Format } from './streams.js';

export interface ExportOptions {
  format: Format;
  email?: EmailFilter;
  circulationNumber?: string;
  newsletter?: string;
  /** Only users with such a subscription active (at the moment the export starts). */
  activeSubscription?: ActiveSubscriptionFilter;
  /** NDJSON only: each user with an array of their subscriptions. */
  subscriptions?: boolean;
}

/** Streams the users, a page of 1,000 at a time by id; answers how many. */
export async function exportUsers(store: Store, out: Writable, options: ExportOptions): Promise<number> {
  const csv = options.format === 'csv' ? stringifyCsv({ header: true, columns: USER_CSV_COLUMNS }) : undefined;
  const done = csv ? once(csv.pipe(out, { end: false }), 'unpipe') : undefined;
  const now = nowInSeconds();
  let afterId: string | undefined;
  let count = 0;
  for (;;) {
    const { users, readTo } = await store.listUsers({ ...options, afterId, offset: 0, limit: 1000 });
    if (users.length === 0 && readTo === undefined) break;
    const subscriptions = options.subscriptions
      ? groupByUser(await store.listSubscriptionsOfUsers(users.map((u) => u.id)))
      : undefined;
    for (const user of users) {
      const attributes = toUserAttributes(user.email, user.fields, user.newsletters, user.lastSignInAt);
      if (csv) {
        const row: Record<string, unknown> = { id: user.id, ...flatten(attributes) };
        if (!csv.write(row)) await once(csv, 'drain');
      } else {
        const record: Record<string, unknown> = { id: user.id, ...attributes };
        if (subscriptions)
          record.subscriptions = (subscriptions.get(user.id) ?? []).map((s) => subscriptionRecord(s, now));
        await write(out, `${JSON.stringify(record)}\n`);
      }
    }
    count += users.length;
    // A page that stopped short goes on after the last user it read, which may be past the last it found.
    afterId = readTo ?? users.at(-1)?.id;
  }
  if (csv && done) {
    csv.end();
    await once(csv, 'end');
  }
  return count;
}

function subscriptionRecord(s: StoredSubscription, now: number) {
  return { id: s.id, ...toSubscriptionAttributes(s, now), product: s.productId };
}
