/**
 * `circulation export deliveries --date D`: the print run of a publication date as CSV, for the
 * printer's mail house: one row a subscription delivered or redelivered that date, with the name
 * for its label, the address in force that date and its copies. Read as GET /deliveries reads it,
 * a page of 1,000 by subscription id, so memory stays flat however large the run.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { stringify as stringifyCsv } from 'csv-stringify';
import { ADDRESS_FIELDS, type RunDate, type RunFilter } from '../domain/delivery.js';
import type { Store } from '../store/port.js';
import { envelopeName } from './columns.js';
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

/** Writes the run to `out`; answers how many deliveries it has. */
export async function exportRun(store: Store, out: Writable, options: RunExportOptions): Promise<number> {
  const csv = stringifyCsv({ header: true, columns: [...RUN_COLUMNS] });
  csv.pipe(out, { end: false });
  const neutralise = options.csvFor !== 'machines';
  const { product, postalCode, pageSize = PAGE_SIZE } = options;
  let afterId: string | undefined;
  let count = 0;
  for (;;) {
    const page = await store.listDeliveries(options.run, { product, postalCode, afterId, limit: pageSize });
    for (const delivery of page) {
      const row: Record<string, unknown> = {
        date: options.date,
        subscription: delivery.subscriptionId,
        user: delivery.userId,
        product: delivery.productId ?? '',
        name: envelopeName(delivery.recipient),
        ...Object.fromEntries(ADDRESS_FIELDS.map((field) => [`address.${field}`, delivery.address[field] ?? ''])),
        // Spelt out: csv-stringify writes false as an empty cell.
        redelivery: delivery.redelivery ? 'true' : 'false',
        copies: delivery.copies,
      };
      if (!csv.write(neutralise ? forSpreadsheets(row) : row)) await once(csv, 'drain');
    }
    count += page.length;
    if (page.length < pageSize) break;
    afterId = page.at(-1)?.subscriptionId;
  }
  csv.end();
  await once(csv, 'end');
  return count;
}
