/**
 * `circulation export deliveries --date D`: the print run of a publication date as CSV, for the
 * printer's mail house: one row a subscription delivered or redelivered that date, with the name
 * for its label, the address in force that date and its copies. Read as GET /deliveries reads it,
 * a page of 1,000 by subscription id, so memory stays flat however large the run. The print list
 * of a date (`export --resource print --on D`) is the same run, in the print list's columns.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { stringify as stringifyCsv } from 'csv-stringify';
import {
  ADDRESS_FIELDS,
  RECIPIENT_NAME_FIELDS,
  type Delivery,
  type RunDate,
  type RunFilter,
} from '../domain/delivery.js';
import type { Store } from '../store/port.js';
import { COPIES_COLUMN, envelopeName, NAME_COLUMN, PRINT_LIST_COLUMNS, PRODUCT_COLUMN } from './columns.js';
import { forSpreadsheets, type CsvReader } from './csv.js';

/** The run's columns, in order: what a label and a depot's sorting need, and the ids to trace a row by. */
export const RUN_COLUMNS: readonly string[] = [
  'date',
  'subscription',
  'user',
  'product',
  'name',
  ...ADDRESS_FIELDS.map((field) => `address.${field}`),
  'redelivery',
  'copies',
];

/** Deliveries read at a time: enough to keep the database busy, few enough to keep memory flat. */
const PAGE_SIZE = 1000;

export interface RunExportOptions extends RunFilter {
  /** The date as written (YYYY-MM-DD), and the run it names. */
  date: string;
  run: RunDate;
  /** Who reads it (spreadsheets unless told). */
  csvFor?: CsvReader;
  /** Deliveries read at a time (PAGE_SIZE unless told). */
  pageSize?: number;
}

/** The run's deliveries, read a page at a time, each page after the last. */
async function* deliveriesOf(
  store: Store,
  run: RunDate,
  { product, postalCode, pageSize = PAGE_SIZE }: RunFilter & { pageSize?: number },
): AsyncGenerator<Delivery> {
  let afterId: string | undefined;
  for (;;) {
    const page = await store.deliveries.list(run, { product, postalCode, afterId, limit: pageSize });
    yield* page;
    if (page.length < pageSize) return;
    afterId = page.at(-1)?.subscriptionId;
  }
}

/** Writes a row of `columns` for each delivery of the run; answers how many. */
async function writeDeliveries(
  store: Store,
  out: Writable,
  columns: readonly string[],
  options: RunFilter & { run: RunDate; csvFor?: CsvReader; pageSize?: number },
  rowOf: (delivery: Delivery) => Record<string, unknown>,
): Promise<number> {
  const csv = stringifyCsv({ header: true, columns: [...columns] });
  csv.pipe(out, { end: false });
  const neutralise = options.csvFor !== 'machines';
  let count = 0;
  for await (const delivery of deliveriesOf(store, options.run, options)) {
    const row = rowOf(delivery);
    if (!csv.write(neutralise ? forSpreadsheets(row) : row)) await once(csv, 'drain');
    count += 1;
  }
  csv.end();
  await once(csv, 'end');
  return count;
}

/** The address in force as CSV cells, `address.postalCode` and the rest. */
const addressCells = (delivery: Delivery) =>
  Object.fromEntries(ADDRESS_FIELDS.map((field) => [`address.${field}`, delivery.address[field] ?? '']));

/** Writes the run to `out`; answers how many deliveries it has. */
export function exportRun(store: Store, out: Writable, options: RunExportOptions): Promise<number> {
  return writeDeliveries(store, out, RUN_COLUMNS, options, (delivery) => ({
    date: options.date,
    subscription: delivery.subscriptionId,
    user: delivery.userId,
    product: delivery.productId ?? '',
    name: envelopeName(delivery.recipient),
    ...addressCells(delivery),
    // Spelt out: csv-stringify writes false as an empty cell.
    redelivery: delivery.redelivery ? 'true' : 'false',
    copies: delivery.copies,
  }));
}

/**
 * The columns the print list of a publication date may have: what its run knows of a delivery
 * (the reader's id and the parts of their name, the address in force, product and copies).
 */
export const PRINT_RUN_COLUMNS: readonly string[] = [
  'id',
  ...RECIPIENT_NAME_FIELDS,
  NAME_COLUMN,
  ...ADDRESS_FIELDS.map((field) => `address.${field}`),
  PRODUCT_COLUMN,
  COPIES_COLUMN,
];

export interface PrintRunExportOptions extends RunFilter {
  run: RunDate;
  /** The columns, in order, of PRINT_RUN_COLUMNS; the print list's unless told. */
  columns?: readonly string[];
  csvFor?: CsvReader;
  pageSize?: number;
}

/**
 * The print list of a publication date (`export --resource print --on DATE`): the readers and
 * addresses of that date's run (holds, delivery days, temporary addresses and redeliveries as the
 * run has them), in the print list's columns; a row a delivery, in the run's order.
 */
export function exportPrintRun(store: Store, out: Writable, options: PrintRunExportOptions): Promise<number> {
  return writeDeliveries(store, out, options.columns ?? PRINT_LIST_COLUMNS, options, (delivery) => ({
    id: delivery.userId,
    ...delivery.recipient,
    [NAME_COLUMN]: envelopeName(delivery.recipient),
    ...addressCells(delivery),
    [PRODUCT_COLUMN]: delivery.productId ?? '',
    [COPIES_COLUMN]: delivery.copies,
  }));
}
