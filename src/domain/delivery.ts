/**
 * The print run: the deliveries of one publication date, one per subscription delivered or
 * redelivered that date, each to the address in force then, and the draw report of that run (how
 * many copies by product and by postal code: what the printer and each depot need). A delivery is
 * derived from subscriptions, their delivery days, holds, the readers' temporary addresses and
 * the redeliveries complaints asked for, read in subscription order; never edited, though the
 * store may keep a run of the next dates derived (store/sql/kept-runs.ts).
 */
import { Type, type Static } from '@sinclair/typebox';
import { startOfDate } from './publication.js';
import { Nullable } from './schema.js';

export const DELIVERIES = 'deliveries';
export const DRAW_REPORTS = 'draw-reports';

/** The address fields a delivery carries, as a user's address has them. */
export const ADDRESS_FIELDS = [
  'streetAddress',
  'unitNumber',
  'addressLocality',
  'addressRegion',
  'addressCountry',
  'postalCode',
] as const;
export type DeliveryAddress = Record<(typeof ADDRESS_FIELDS)[number], string | null>;

export const DeliveryAddressSchema = Type.Object(
  Object.fromEntries(ADDRESS_FIELDS.map((field) => [field, Nullable(Type.String())])) as Record<
    (typeof ADDRESS_FIELDS)[number],
    ReturnType<typeof Nullable<ReturnType<typeof Type.String>>>
  >,
  {
    description:
      "Where it goes: the reader's temporary address in force on the date (the whole of it), else the reader's own.",
  },
);

export const DeliveryAttributes = Type.Object({
  date: Type.String({ format: 'date', description: 'The publication date.' }),
  address: DeliveryAddressSchema,
  redelivery: Type.Boolean({
    description:
      'true when the run carries redeliveries of the subscription after complaints (remedy redeliver), delivered that date or not.',
  }),
  copies: Type.Integer({
    minimum: 1,
    description: 'One when the subscription is delivered that date, and one more for each redelivery.',
  }),
});

/** The parts of a reader's name an envelope has, as a user's attributes name them. */
export const RECIPIENT_NAME_FIELDS = [
  'honorificPrefix',
  'givenName',
  'additionalName',
  'familyName',
  'honorificSuffix',
] as const;
export type RecipientName = Record<(typeof RECIPIENT_NAME_FIELDS)[number], string | null>;

/** One delivery of a run, as a store reads it. */
export interface Delivery {
  subscriptionId: string;
  userId: string;
  productId: string | null;
  /** Whom it goes to, for a mail house's label (the API names the user instead). */
  recipient: RecipientName;
  address: DeliveryAddress;
  redelivery: boolean;
  copies: number;
}

/** What a run is read by: its date (a day number, and the instants it begins and ends in the publisher's zone). */
export interface RunDate {
  date: number;
  startsAt: number;
  endsAt: number;
}

/** The run of a publication date (a day number): the instants it begins and ends in the publisher's zone. */
export function runOf(date: number, zone: string): RunDate {
  return { date, startsAt: startOfDate(date, zone), endsAt: startOfDate(date + 1, zone) };
}

export interface RunFilter {
  product?: string;
  postalCode?: string;
}

const Count = Type.Integer({ minimum: 0 });

export const DrawReportAttributes = Type.Object({
  date: Type.String({ format: 'date' }),
  copies: Type.Integer({ description: 'Every copy of the run.' }),
  byProduct: Type.Array(
    Type.Object({
      product: Nullable(Type.String({ description: 'null: subscriptions without a product.' })),
      copies: Count,
    }),
  ),
  byPostalCode: Type.Array(Type.Object({ postalCode: Nullable(Type.String()), copies: Count })),
});

/** The copies of a run by product and postal code together, as a store counts them (a key may come more than once). */
export interface DrawCount {
  productId: string | null;
  postalCode: string | null;
  copies: number;
}

/** The draw report of a run from its counts: totals by product and by postal code, each in key order. */
export function drawReport(date: string, counts: readonly DrawCount[]): Static<typeof DrawReportAttributes> {
  const byProduct = new Map<string | null, number>();
  const byPostalCode = new Map<string | null, number>();
  let copies = 0;
  for (const count of counts) {
    copies += count.copies;
    byProduct.set(count.productId, (byProduct.get(count.productId) ?? 0) + count.copies);
    byPostalCode.set(count.postalCode, (byPostalCode.get(count.postalCode) ?? 0) + count.copies);
  }
  const ordered = <K extends string | null>(map: Map<K, number>) =>
    [...map].sort(([a], [b]) => {
      if (a === null) return 1;
      if (b === null) return -1;
      // A map's keys are never equal.
      // Stryker disable next-line EqualityOperator: as no two keys are equal, <= orders them as < does
      return a < b ? -1 : 1;
    });
  return {
    date,
    copies,
    byProduct: ordered(byProduct).map(([product, n]) => ({ product, copies: n })),
    byPostalCode: ordered(byPostalCode).map(([postalCode, n]) => ({ postalCode, copies: n })),
  };
}
