/**
 * `circulation import FILE`: reads users and their subscriptions in, reporting refused rows (and
 * subscriptions) in the file's own terms. The report is written only when something was refused.
 */
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { importFile, type ImportResult } from '../transfer/import.js';
import { DATE_FORMATS, type DateFormat } from '../transfer/leniency.js';
import type { Store } from '../store/port.js';
import { write } from '../transfer/streams.js';
import { UsageError, withStore, type Command } from './command.js';
import { formatOf } from './formats.js';
import { privateFile, type PrivateFile } from './private-file.js';
import { progress } from './progress.js';

export const importCommand: Command = {
  summary: 'read users and subscriptions from NDJSON or CSV (circulation import --help)',
  usage: `Usage: circulation import FILE [--format ndjson|csv] [--report FILE] [--dry-run]
                          [--date-format ${DATE_FORMATS.join('|')}] [--overwrite-passwords]
                          [--allow-blank-family-name]
  Reads users (and their subscriptions) from NDJSON or CSV, as a stream. Users are matched by
  email: a new one is created; a known one gets what the row changes, and a row that changes
  nothing writes nothing (no audit entry, no event), so running a file twice changes nothing the
  second time. A known reader's email keeps the letter case it was created with.
  Refused rows go to the report (default: FILE's name with .rejected.ndjson, in the current
  directory), one JSON line each: the line number, the email when it can be read, what was
  refused (the row; or, of a reader who was imported, only subscriptions, or newsletters the
  reader is suppressed for after a bounce or complaint, which an import never adds them back to)
  and every problem, named by CSV column or NDJSON field. A row that is not a record at all (cells more or fewer than the
  header's, a quote out of place) is refused like any other, and the import goes on. No report
  is written when nothing is refused; the exit code is then 0, else 1.
  --dry-run             check and match every row, print the same report and counts, write nothing
  --date-format ORDER   read dates written MM/DD/YYYY, DD/MM/YYYY or DD.MM.YYYY (an optional
                        hh:mm[:ss] after them) as that instant in UTC; YYYY-MM-DD is always read
  --overwrite-passwords apply a row's password or passwordHash to a reader who has a password;
                        without it, one is applied only to a reader without a password, so a
                        password a reader set since is kept
  --allow-blank-family-name
                        take a reader whose familyName is blank or missing (a mononym, a
                        company account), with an empty family name, where the API (and an
                        import without it) refuses one as "can't be blank"; a reader already
                        there keeps the family name they have
  Read kindly: true/false/yes/no/1/0 in any case for trial; US states and Canadian provinces by
  name (California, Québec) as their codes, and USA, United States, Canada as US and CA.
  A row may carry passwordHash instead of password: a reader's bcrypt ($2a$, $2b$, $2y$) or argon2
  hash from another system, verified at sign-in and then replaced by an argon2id hash.
`,
  run: withStore(importFrom),
};

async function importFrom(store: Store, args: readonly string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: {
      format: { type: 'string' },
      report: { type: 'string' },
      'dry-run': { type: 'boolean' },
      'date-format': { type: 'string' },
      'overwrite-passwords': { type: 'boolean' },
      'allow-blank-family-name': { type: 'boolean' },
    },
    allowPositionals: true,
    strict: true,
  });
  const [file] = positionals;
  if (!file || positionals.length > 1) throw new UsageError('import takes one FILE');
  const dateFormat = values['date-format'];
  if (dateFormat !== undefined && !(DATE_FORMATS as readonly string[]).includes(dateFormat)) {
    throw new UsageError(`--date-format is one of ${DATE_FORMATS.join(', ')}`);
  }
  const dryRun = values['dry-run'] ?? false;
  const reportPath = values.report ?? `${basename(file)}.rejected.ndjson`;
  // Made on the first refusal only: a clean import leaves no report behind.
  let report: PrivateFile | undefined;
  const bar = progress(`${dryRun ? 'checking' : 'importing'} ${file}`);
  let result;
  try {
    result = await importFile(store, file, {
      format: formatOf(values.format, file),
      async onRejected(rejection) {
        report ??= privateFile(reportPath);
        await write(report.stream, `${JSON.stringify(rejection)}\n`);
      },
      audit: { actor: 'import', attributes: [] },
      onProgress: (rows, fraction) => bar.update(rows, fraction),
      leniency: {
        dateFormat: dateFormat as DateFormat | undefined,
        allowBlankFamilyName: values['allow-blank-family-name'] ?? false,
      },
      dryRun,
      overwritePasswords: values['overwrite-passwords'] ?? false,
    });
    await report?.commit();
  } catch (error) {
    report?.abandon();
    throw error;
  }
  bar.finish(result.rows);
  const refused = result.rejected + result.subscriptionsRejected + result.newslettersSuppressed > 0;
  process.stdout.write(
    `${dryRun ? 'dry run, nothing written: ' : ''}${summary(result)}${refused ? ` (see ${reportPath})` : ''}\n`,
  );
  if (refused) process.exitCode = 1;
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** What happened to people and subscriptions, and how many rows and subscriptions were refused. */
export function summary(result: ImportResult): string {
  return (
    `${count(result.created, 'user', 'users')} created, ${result.updated} updated, ${result.unchanged} unchanged, ` +
    `${count(result.subscriptionsAdded, 'subscription', 'subscriptions')} added, ` +
    `${count(result.rejected, 'row', 'rows')} rejected` +
    (result.subscriptionsRejected > 0
      ? `, ${count(result.subscriptionsRejected, 'subscription', 'subscriptions')} rejected`
      : '') +
    (result.newslettersSuppressed > 0
      ? `, ${count(result.newslettersSuppressed, 'newsletter', 'newsletters')} suppressed (not added)`
      : '')
  );
}
