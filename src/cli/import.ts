/**
 * `circulation import FILE`: reads users and their subscriptions in, reporting rejected rows in
 * the file's own terms. The report is written only when a row was rejected.
 */
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { importFile, type ImportResult } from '../transfer/import.js';
import { write } from '../transfer/streams.js';
import { UsageError, withStore, type Command } from './command.js';
import { formatOf } from './formats.js';
import { privateFile, type PrivateFile } from './private-file.js';
import { progress } from './progress.js';

export const importCommand: Command = {
  summary: 'read users and subscriptions from NDJSON or CSV (circulation import --help)',
  usage: `Usage: circulation import FILE [--format ndjson|csv] [--report FILE]
  Reads users (and their subscriptions) from NDJSON or CSV, as a stream. Users are matched by
  email: a new one is created, a known one updated, so running it twice changes nothing more.
  Rejected rows go to the report (default: FILE's name with .rejected.ndjson, in the current
  directory), one JSON line each with the row's line number and its problems, named by CSV column
  or NDJSON field. No report is written when nothing is rejected.
  A row may carry passwordHash instead of password: a reader's bcrypt ($2a$, $2b$, $2y$) or argon2
  hash from another system, verified at sign-in and then replaced by an argon2id hash.
`,
  run: withStore(async (store, args) => {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: { format: { type: 'string' }, report: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
    const [file] = positionals;
    if (!file || positionals.length > 1) throw new UsageError('import takes one FILE');
    const reportPath = values.report ?? `${basename(file)}.rejected.ndjson`;
    // Made on the first rejected row only: a clean import leaves no report behind.
    let report: PrivateFile | undefined;
    const bar = progress(`importing ${file}`);
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
      });
      await report?.commit();
    } catch (error) {
      report?.abandon();
      throw error;
    }
    bar.finish(result.rows);
    process.stdout.write(`${summary(result)}${result.rejected > 0 ? ` (see ${reportPath})` : ''}\n`);
    if (result.rejected > 0) process.exitCode = 1;
  }),
};

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** What happened to people and subscriptions, and how many rows were refused. */
export function summary(result: ImportResult): string {
  return (
    `${count(result.created, 'user', 'users')} created, ${result.updated} updated, ` +
    `${count(result.subscriptionsAdded, 'subscription', 'subscriptions')} added, ` +
    `${count(result.rejected, 'row', 'rows')} rejected`
  );
}
