/**
 * Fixtures of print circulation: products delivered on some days, print subscriptions, and
 * publication dates reckoned from today (in UTC, the test services' zone), far enough from the
 * cut-off that no test depends on the minute it runs in.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { cutoffOf, dateAt, formatDate, parseDate } from '../../src/domain/publication.js';
import { ADDRESS_FIELDS, type Delivery } from '../../src/domain/delivery.js';
import type { Store } from '../../src/store/port.js';
import { AUDIT, subscriptionDocument } from './fixtures.js';
import type { Client } from './service.js';

const DAY = 86_400;

/** Today's publication date in UTC, as a day number. */
export function today(): number {
  return Math.floor(Date.now() / 1000 / DAY);
}

/** The publication date `days` from today, as YYYY-MM-DD. */
export function dateIn(days: number): string {
  return formatDate(today() + days);
}

/** The instant a publication date begins in UTC, as the API writes instants. */
export function midnightOf(date: string): string {
  return `${date}T00:00:00+00:00`;
}

/** The date `days` after a YYYY-MM-DD date. */
export function daysAfter(date: string, days: number): string {
  return formatDate((parseDate(date) as number) + days);
}

/** The next date from `days` on that falls on `weekday` (0 Monday … 6 Sunday), as YYYY-MM-DD. */
export function nextWeekday(weekday: number, days = 0): string {
  let day = today() + days;
  while ((((day + 3) % 7) + 7) % 7 !== weekday) day += 1;
  return formatDate(day);
}

/** Creates a product giving print on these days (all by default) and answers its id. */
export async function createPrintProduct(client: Client, attributes: Record<string, unknown> = {}): Promise<string> {
  const id = `paper-${randomUUID()}`;
  const response = await client.post('/products', {
    data: { type: 'products', id, attributes: { name: 'Paper', resource: 'print', ...attributes } },
  });
  assert.equal(response.status, 201, response.text);
  return id;
}

/**
 * Creates a print subscription begun a year ago, running to a year from now unless the
 * attributes say otherwise, of `product` when named, and answers its id.
 */
export async function createPrintSubscription(
  client: Client,
  userId: string,
  attributes: Record<string, unknown> = {},
  product?: string,
): Promise<string> {
  const response = await client.post(
    `/users/${userId}/subscriptions`,
    subscriptionDocument(
      {
        resource: product === undefined ? 'print' : null,
        dateStarted: midnightOf(dateIn(-365)),
        dateEnded: midnightOf(dateIn(365)),
        ...attributes,
      },
      product === undefined ? undefined : { product: { data: { type: 'products', id: product } } },
    ),
  );
  assert.equal(response.status, 201, response.text);
  return response.body.data.id;
}

/**
 * Checks a list's `meta` against the cut-off it must state, whenever it was read: changes to
 * `firstOpenDate` close at `firstOpenCutoff`, still to come, and those to the date before it have
 * closed. `zone` and `cutoff` are the service's PUBLICATION_TIME_ZONE and CHANGE_CUTOFF.
 */
export function assertChangesMeta(meta: any, zone = 'UTC', cutoff = { days: -1, second: 19 * 3600 }): void {
  const calendar = { zone, cutoff };
  const now = Math.floor(Date.now() / 1000);
  const firstOpen = parseDate(meta.firstOpenDate) as number;
  assert.equal(meta.timeZone, zone);
  assert.equal(meta.today, formatDate(dateAt(now, zone)));
  assert.equal(Date.parse(meta.firstOpenCutoff) / 1000, cutoffOf(firstOpen, calendar));
  assert.ok(cutoffOf(firstOpen, calendar) > now - 5, `${meta.firstOpenCutoff} has passed`);
  assert.ok(cutoffOf(firstOpen - 1, calendar) <= now, `${formatDate(firstOpen - 1)} is still open`);
}

/**
 * Makes, through the store (the API takes no start past its cut-off), a `credit` hold begun two
 * days ago and ending in 20 days, and answers its id.
 */
export async function createStartedHold(store: Store, userId: string, subscriptionId: string): Promise<string> {
  const started = await store.holds.create(
    userId,
    subscriptionId,
    (context) => ({
      values: {
        startDate: today() - 2,
        endDate: today() + 20,
        compensation: 'credit',
        deliveriesMissed: 23,
        extendedDays: 0,
      },
      dateEnded: context.terms.dateEnded,
    }),
    AUDIT,
  );
  assert.ok(started);
  return started.id;
}

/** The resource object the response schema writes for a delivery, its members in the schema's order. */
export function deliveryResource(date: string, delivery: Delivery) {
  return {
    type: 'deliveries',
    id: `${date}.${delivery.subscriptionId}`,
    attributes: {
      date,
      address: Object.fromEntries(ADDRESS_FIELDS.map((field) => [field, delivery.address[field]])),
      redelivery: delivery.redelivery,
      copies: delivery.copies,
    },
    relationships: {
      user: { data: { type: 'users', id: delivery.userId } },
      subscription: { data: { type: 'subscriptions', id: delivery.subscriptionId } },
      product: { data: delivery.productId === null ? null : { type: 'products', id: delivery.productId } },
    },
  };
}
