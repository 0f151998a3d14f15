/**
 * `circulation seed`, `import` and `export`: argument parsing and reporting around the bulk
 * operations of seed.ts and transfer.ts.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { UsageError } from './keys.js';
import { progress } from './progress.js';
import { seed } from '../transfer/seed.js';
import type { Store } from '../store/port.js';
import { exportUsers, importFile, type Format } from '../transfer/transfer.js';

export const SEED_USAGE = `Usage: circulation seed --users N
  Fills the database with N demo users (three subscriptions each), in bulk.
`;
export const IMPORT_USAGE = `Usage: circulation import FILE [--format ndjson|csv] [--report FILE]
  Reads users (and their subscriptions) from NDJSON or CSV, as a stream. Users are matched by
  email: a new one is created, a known one updated, so running it twice changes nothing more.
  Rejected rows go to the report (default FILE.rejected.ndjson) with line numbers and errors.
`;
export const EXPORT_USAGE = `Usage: circulation export [--format ndjson|csv] [--email VALUE] [--circulation-number VALUE]
                         [--subscriptions]
  Streams users to stdout, optionally filtered as the API filters them; --subscriptions (NDJSON)
  adds each user's subscriptions.
`;

function format(value: string | undefined, path?: string): Format {
  const chosen = value ?? (path?.toLowerCase().endsWith('.csv') ? 'csv' : 'ndjson');
  if (chosen !== 'csv' && chosen !== 'ndjson') throw new UsageError('--format is ndjson or csv');
  return chosen;
}

export async function seedCommand(store: Store, args: readonly string[]): Promise<void> {
  const { values } = parseArgs({ args: [...args], options: { users: { type: 'string' } }, strict: true });
  const users = Number(values.users);
  if (!/^[1-9][0-9]{0,8}$/.test(values.users ?? '')) throw new UsageError('seed needs --users, a whole number');
  const bar = progress('seeding');
  await seed(store, users, { onProgress: (done) => bar.update(done, done / users) });
  bar.finish(users);
}

export async function importCommand(store: Store, args: readonly string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: { format: { type: 'string' }, report: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  const [file] = positionals;
  if (!file || positionals.length > 1) throw new UsageError('import takes one FILE');
  const reportPath = values.report ?? `${file}.rejected.ndjson`;
  const report = createWriteStream(reportPath);
  const bar = progress(`importing ${file}`);
  const result = await importFile(store, file, {
    format: format(values.format, file),
    report,
    audit: { actor: 'import', attributes: [] },
    onProgress: (rows, fraction) => bar.update(rows, fraction),
  });
  report.end();
  await once(report, 'close');
  bar.finish(result.rows);
  process.stdout.write(
    `${result.created} users created, ${result.updated} updated, ${result.subscriptionsAdded} subscriptions added, ` +
      `${result.rejected} rows rejected${result.rejected > 0 ? ` (see ${reportPath})` : ''}\n`,
  );
  if (result.rejected > 0) process.exitCode = 1;
}

export async function exportCommand(store: Store, args: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      format: { type: 'string' },
      email: { type: 'string' },
      'circulation-number': { type: 'string' },
      subscriptions: { type: 'boolean' },
    },
    strict: true,
  });
  const chosen = format(values.format);
  if (chosen === 'csv' && values.subscriptions) throw new UsageError('--subscriptions needs --format ndjson');
  const email = values.email;
  await exportUsers(store, process.stdout, {
    format: chosen,
    ...(email === undefined ? {} : { email: email.includes('@') ? { address: email } : { domain: email } }),
    ...(values['circulation-number'] === undefined ? {} : { circulationNumber: values['circulation-number'] }),
    subscriptions: values.subscriptions ?? false,
  });
}
