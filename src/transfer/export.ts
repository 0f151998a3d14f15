/**
 * `circulation export`: users (and their subscriptions) streamed as NDJSON or CSV, a page of
 * 1,000 at a time by id, so memory stays flat however many there are. It filters as the user list
 * does, so a fulfilment list (the members of a newsletter; who receives the print edition on a
 * date, with their addresses and copies) is an export with filters, read through the same index
 * seeks. Which columns a CSV has, and what `name`, `product` and `copies` are: columns.ts.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { stringify as stringifyCsv } from 'csv-stringify';
import { nowInSeconds } from '../domain/dates.js';
import { GIVING, type ActiveSubscriptionFilter, type SubscriptionFilter } from '../domain/entitlement.js';
import { groupByUser, toSubscriptionAttributes, type StoredSubscription } from '../domain/subscription.js';
import { toUserAttributes } from '../domain/user.js';
import type { EmailFilter, Store, SubscriptionCount } from '../store/port.js';
import {
  COPIES_COLUMN,
  envelopeName,
  NAME_COLUMN,
  PRINT_LIST_COLUMNS,
  PRODUCT_COLUMN,
  rowsArePerProduct,
} from './columns.js';
import { flatten, forSpreadsheets, USER_CSV_COLUMNS, type CsvReader } from './csv.js';
import { write, type Format } from './streams.js';

export interface ExportOptions {
  format: Format;
  email?: EmailFilter;
  circulationNumber?: string;
  newsletter?: string;
  /** Only users with such a subscription active at its instant (now, or a date asked for). */
  activeSubscription?: ActiveSubscriptionFilter;
  /** NDJSON only: each user with an array of their subscriptions. */
  subscriptions?: boolean;
  /** CSV only: the columns, in order; by default those of `defaultColumns`. */
  columns?: readonly string[];
  /** CSV only: who reads it (spreadsheets unless told). */
  csvFor?: CsvReader;
}

/**
 * The columns of a CSV export not told which: the print list's when it lists who receives print
 * (`--resource print`, or print-online, which gives print too), every attribute otherwise.
 */
export function defaultColumns(filter: ActiveSubscriptionFilter | undefined): readonly string[] {
  const resource = filter?.resource;
  return resource !== undefined && GIVING.print.includes(resource) ? PRINT_LIST_COLUMNS : USER_CSV_COLUMNS;
}

/** Streams the users, a page of 1,000 at a time by id; answers how many. */
export async function exportUsers(store: Store, out: Writable, options: ExportOptions): Promise<number> {
  const columns = options.columns ?? defaultColumns(options.activeSubscription);
  const csv = options.format === 'csv' ? stringifyCsv({ header: true, columns: [...columns] }) : undefined;
  const done = csv ? once(csv.pipe(out, { end: false }), 'unpipe') : undefined;
  const now = nowInSeconds();
  // The products and copies counted are those the filter finds, at its instant; without one, all active now.
  const counted: SubscriptionFilter | undefined =
    csv && rowsArePerProduct(columns)
      ? { ...(options.activeSubscription ?? { at: now }), statuses: ['active'] }
      : undefined;
  const neutralise = options.csvFor !== 'machines';
  let afterId: string | undefined;
  let count = 0;
  for (;;) {
    const { users, readTo } = await store.users.list({ ...options, afterId, offset: 0, limit: 1000 });
    if (users.length === 0 && readTo === undefined) break;
    const ids = users.map((u) => u.id);
    const subscriptions = options.subscriptions ? groupByUser(await store.subscriptions.listOfUsers(ids)) : undefined;
    const products = counted ? productsByUser(await store.subscriptions.countsOfUsers(ids, counted)) : undefined;
    for (const user of users) {
      const attributes = toUserAttributes(user.email, user.fields, user.newsletters, user.lastSignInAt);
      if (csv) {
        const reader = { id: user.id, ...flatten(attributes), [NAME_COLUMN]: envelopeName(attributes) };
        const held = products ? (products.get(user.id) ?? [{ productId: null, count: 0 }]) : [undefined];
        for (const product of held) {
          const row = product
            ? { ...reader, [PRODUCT_COLUMN]: product.productId ?? '', [COPIES_COLUMN]: product.count }
            : reader;
          if (!csv.write(neutralise ? forSpreadsheets(row) : row)) await once(csv, 'drain');
        }
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

/** Each user's products, in the order of their ids (those of no product first), whatever the store's collation. */
function productsByUser(counts: readonly SubscriptionCount[]): Map<string, SubscriptionCount[]> {
  const byUser = new Map<string, SubscriptionCount[]>();
  for (const entry of counts) byUser.set(entry.userId, [...(byUser.get(entry.userId) ?? []), entry]);
  for (const held of byUser.values()) {
    held.sort((a, b) => ((a.productId ?? '') < (b.productId ?? '') ? -1 : 1));
  }
  return byUser;
}

function subscriptionRecord(s: StoredSubscription, now: number) {
  return { id: s.id, ...toSubscriptionAttributes(s, now), product: s.productId };
}
