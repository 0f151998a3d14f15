/**
 * `circulation export`: users (and their subscriptions) to stdout, filtered as the API filters,
 * fulfilment lists included: `--newsletter daily` (its members), `--status active --resource print`
 * (who receives the print edition now: the print list, with name, address, product and copies in
 * the CSV; or `--on` a date: that date's print run, in the same columns). A newsletter or product
 * the catalogue lacks is refused, where it would export an empty list. `circulation export
 * deliveries`, the print run of a date, is export-deliveries.ts.
 */
import { parseArgs } from 'node:util';
import { Type } from '@sinclair/typebox';
import type { Config } from '../config.js';
import { nowInSeconds, parseDateOrInstant } from '../domain/dates.js';
import { runOf } from '../domain/delivery.js';
import { userSubscriptionFilter } from '../domain/entitlement.js';
import { parseDate } from '../domain/publication.js';
import { UserFilterValues } from '../domain/user-filters.js';
import { compileSchema, problemsOf } from '../domain/validation.js';
import type { Store } from '../store/port.js';
import { selectColumns } from '../transfer/columns.js';
import { CSV_READERS, type CsvReader } from '../transfer/csv.js';
import { exportPrintRun, PRINT_RUN_COLUMNS } from '../transfer/export-deliveries.js';
import { exportUsers } from '../transfer/export.js';
import { CommandError, UsageError, withStore, type Command } from './command.js';
import { DELIVERIES_USAGE, exportDeliveriesToStdout } from './export-deliveries.js';
import { formatOf } from './formats.js';

export const exportCommand: Command = {
  summary: 'write users (and subscriptions) as NDJSON or CSV (circulation export --help)',
  usage: `Usage: circulation export [--format ndjson|csv] [--email VALUE] [--circulation-number VALUE]
                         [--newsletter ID] [--status active [--resource R] [--product ID] [--on DATE]]
                         [--subscriptions] [--columns NAME,…] [--for spreadsheets|machines]
  Streams users to stdout, optionally filtered as the API filters them: --newsletter its members;
  --status active those with a subscription active now, or --on DATE (YYYY-MM-DD, from 00:00 UTC;
  or a timestamp with offset, such as 2026-12-01T00:00:00+01:00), narrowed by --resource (online,
  print, print-online: what it gives, by its own resource or its product's) and --product. An
  unknown newsletter or product is an error. --subscriptions (NDJSON) adds each user's subscriptions.
  The print list for a mail house: --format csv --status active --resource print, with the columns
  name, address, product, copies (one row a reader and product). With --on DATE (YYYY-MM-DD) it is
  the print run of that publication date, as export deliveries reads it (holds, delivery days,
  temporary addresses, redeliveries, in PUBLICATION_TIME_ZONE): one row a delivery, in the same
  columns (also id and the parts of the name), narrowed only by --product. Other CSV exports have
  every attribute, so that they import back. --columns chooses the columns, in order: any attribute
  (address.postalCode, or address for all of its fields), name, product, copies.
  CSV is written for spreadsheets: a cell that would run as a formula (+44 …) gets a leading
  apostrophe. --for machines writes every cell as it is, for a program to read.
${DELIVERIES_USAGE}`,
  run: withStore(exportToStdout),
};

const OPTIONS = {
  format: { type: 'string' },
  email: { type: 'string' },
  'circulation-number': { type: 'string' },
  newsletter: { type: 'string' },
  status: { type: 'string' },
  resource: { type: 'string' },
  product: { type: 'string' },
  on: { type: 'string' },
  subscriptions: { type: 'boolean' },
  columns: { type: 'string' },
  for: { type: 'string' },
} as const;

async function exportToStdout(store: Store, args: readonly string[], config: Config): Promise<void> {
  if (args[0] === 'deliveries') return exportDeliveriesToStdout(store, args.slice(1), config);
  const { values, tokens } = parseArgs({ args: [...args], options: OPTIONS, strict: true, tokens: true });
  refuseFilterProblems(values, tokens);
  const format = formatOf(values.format);
  if (format === 'csv' && values.subscriptions) throw new UsageError('--subscriptions needs --format ndjson');
  for (const option of ['columns', 'for'] as const) {
    if (format !== 'csv' && values[option] !== undefined) throw new UsageError(`--${option} needs --format csv`);
  }
  const columns = values.columns === undefined ? undefined : selectColumns(values.columns);
  if (columns && 'problem' in columns) throw new UsageError(`--columns ${columns.problem}`);
  if (values.for !== undefined && !(CSV_READERS as readonly string[]).includes(values.for)) {
    throw new UsageError(`--for is ${CSV_READERS.join(' or ')}`);
  }
  if (format === 'csv' && values.resource === 'print' && values.on !== undefined) {
    return exportPrintRunOf(store, values, columns?.columns, config);
  }
  const { filter, problem } = userSubscriptionFilter(
    // A date asks who is active on it: --on implies --status active.
    {
      status: values.status ?? (values.on === undefined ? undefined : 'active'),
      resource: values.resource,
      product: values.product,
    },
    onDate(values.on),
  );
  if (problem) throw new UsageError(`--${problem.name} ${problem.detail}`);
  await refuseUnknownReferences(store, values.newsletter, values.product);
  const email = values.email;
  await exportUsers(store, process.stdout, {
    format,
    ...(email === undefined ? {} : { email: email.includes('@') ? { address: email } : { domain: email } }),
    ...(values['circulation-number'] === undefined ? {} : { circulationNumber: values['circulation-number'] }),
    ...(values.newsletter === undefined ? {} : { newsletter: values.newsletter }),
    ...(filter ? { activeSubscription: filter } : {}),
    subscriptions: values.subscriptions ?? false,
    ...(columns ? { columns: columns.columns } : {}),
    ...(values.for === undefined ? {} : { csvFor: values.for as CsvReader }),
  });
}

/**
 * The print list of a publication date: that date's print run (holds, delivery days, temporary
 * addresses, redeliveries, in PUBLICATION_TIME_ZONE), as `export deliveries` reads it, in the print
 * list's columns. The run is narrowed by product alone; the filters it has no answer for, and the
 * columns it does not know, are usage errors rather than silently left out.
 */
async function exportPrintRunOf(
  store: Store,
  values: { on?: string; status?: string; product?: string; for?: string } & Record<string, unknown>,
  columns: readonly string[] | undefined,
  config: Config,
): Promise<void> {
  const date = parseDate(values.on as string);
  if (date === undefined) {
    throw new UsageError(
      '--on with --resource print asks for the print run of a publication date: give one such as 2026-12-01',
    );
  }
  // --status, as for any list of who is active.
  const { problem } = userSubscriptionFilter({ status: values.status ?? 'active', resource: 'print' }, 0);
  if (problem) throw new UsageError(`--${problem.name} ${problem.detail}`);
  for (const option of ['email', 'circulation-number', 'newsletter'] as const) {
    if (values[option] !== undefined) {
      throw new UsageError(
        `--${option} does not narrow the print run of a date (--resource print --on): --product does`,
      );
    }
  }
  const unknown = columns?.find((column) => !PRINT_RUN_COLUMNS.includes(column));
  if (unknown !== undefined) {
    throw new UsageError(
      `--columns names ${unknown}, which the print run of a date does not have; it has ${PRINT_RUN_COLUMNS.join(', ')}`,
    );
  }
  await refuseUnknownReferences(store, undefined, values.product);
  await exportPrintRun(store, process.stdout, {
    run: runOf(date, config.print.calendar.zone),
    ...(values.product === undefined ? {} : { product: values.product }),
    ...(columns ? { columns } : {}),
    ...(values.for === undefined ? {} : { csvFor: values.for as CsvReader }),
  });
}

/** The instant `--on` asks about (now when not given); a usage error when it is no date. */
function onDate(text: string | undefined): number {
  if (text === undefined) return nowInSeconds();
  const at = parseDateOrInstant(text);
  if (at === undefined) {
    throw new UsageError(
      '--on is a date, such as 2026-12-01, or a timestamp with offset, such as 2026-12-01T00:00:00+01:00',
    );
  }
  return at;
}

/** A newsletter or product the catalogue lacks has no members and no subscriptions: a mistyped id, not an empty list. */
async function refuseUnknownReferences(store: Store, newsletter?: string, product?: string): Promise<void> {
  if (newsletter !== undefined && !(await store.newsletters.get(newsletter))) {
    throw new CommandError(
      `there is no newsletter "${newsletter}" in the catalogue (GET /newsletters lists them): nothing was exported`,
    );
  }
  if (product !== undefined && (await store.products.getMany([product])).length === 0) {
    throw new CommandError(
      `there is no product "${product}" in the catalogue (GET /products lists them): nothing was exported`,
    );
  }
}

/** What parseArgs read of the arguments, as much as the check of repeated options needs. */
type Token = { kind: 'option'; name: string } | { kind: 'positional' | 'option-terminator' };

/**
 * A usage error naming each option given twice (the API refuses a repeated parameter, where
 * parseArgs would keep the last) and each filter value the API would refuse, by the schemas of its
 * filter parameters; compiled here, so that no other command pays for it at start.
 */
function refuseFilterProblems(values: Record<string, unknown>, tokens: readonly Token[]) {
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const token of tokens) {
    if (token.kind !== 'option' || OPTIONS[token.name as keyof typeof OPTIONS]?.type !== 'string') continue;
    if (seen.has(token.name)) problems.push(`--${token.name} is given more than once: it takes one value`);
    seen.add(token.name);
  }
  const validateFilters = compileSchema(
    Type.Object({
      email: Type.Optional(UserFilterValues.email),
      'circulation-number': Type.Optional(UserFilterValues.circulationNumber),
      newsletter: Type.Optional(UserFilterValues.newsletter),
      product: Type.Optional(UserFilterValues.product),
    }),
  );
  const { email, 'circulation-number': number, newsletter, product } = values;
  if (!validateFilters({ email, 'circulation-number': number, newsletter, product })) {
    for (const { pointer, detail } of problemsOf(validateFilters, '')) problems.push(`--${pointer.slice(1)} ${detail}`);
  }
  if (problems.length > 0) throw new UsageError(problems.join('\n'));
}
