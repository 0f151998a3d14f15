/**
 * `circulation export deliveries --date D`: the print run of a publication date as CSV on stdout
 * (transfer/export-deliveries.ts), narrowed as GET /deliveries narrows it.
 */
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { runOf } from '../domain/delivery.js';
import { parseDate } from '../domain/publication.js';
import type { Store } from '../store/port.js';
import { CSV_READERS, type CsvReader } from '../transfer/csv.js';
import { exportRun } from '../transfer/export-deliveries.js';
import { CommandError, UsageError } from './command.js';

export const DELIVERIES_USAGE = `       circulation export deliveries --date YYYY-MM-DD [--product ID] [--postal-code CODE]
                         [--for spreadsheets|machines]
  The print run of a publication date (in PUBLICATION_TIME_ZONE) as CSV, one row a subscription
  delivered or redelivered that date: date, subscription, user, product, name, the address in
  force that date (a temporary address, else the reader's own), redelivery, copies. What
  GET /deliveries answers, for a mail house; --product and --postal-code narrow it as its filters do.
`;

const OPTIONS = {
  date: { type: 'string' },
  product: { type: 'string' },
  'postal-code': { type: 'string' },
  for: { type: 'string' },
} as const;

export async function exportDeliveriesToStdout(store: Store, args: readonly string[], config: Config): Promise<void> {
  const { values } = parseArgs({ args: [...args], options: OPTIONS, strict: true });
  if (values.date === undefined)
    throw new UsageError('export deliveries needs --date YYYY-MM-DD: the run of which date');
  const date = parseDate(values.date);
  if (date === undefined) throw new UsageError('--date is a calendar date, such as 2026-12-01');
  if (values.for !== undefined && !(CSV_READERS as readonly string[]).includes(values.for)) {
    throw new UsageError(`--for is ${CSV_READERS.join(' or ')}`);
  }
  if (values.product !== undefined && (await store.products.getMany([values.product])).length === 0) {
    throw new CommandError(
      `there is no product "${values.product}" in the catalogue (GET /products lists them): nothing was exported`,
    );
  }
  await exportRun(store, process.stdout, {
    date: values.date,
    run: runOf(date, config.print.calendar.zone),
    ...(values.product === undefined ? {} : { product: values.product }),
    ...(values['postal-code'] === undefined ? {} : { postalCode: values['postal-code'] }),
    ...(values.for === undefined ? {} : { csvFor: values.for as CsvReader }),
  });
}
