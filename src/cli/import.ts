/**
 * `circulation import FILE`: reads users and their subscriptions in, reporting rejected rows.
 */
import { parseArgs } from 'node:util';
import { importFile } from '../transfer/import.js';
import { UsageError, withStore, type Command } from './command.js';
import { formatOf } from './formats.js';
import { privateFile } from './private-file.js';
import { progress } from './progress.js';

export const importCommand: Command = {
  summary: 'read users and subscriptions from NDJSON or CSV (circulation import --help)',
  usage: `Usage: circulation import FILE [--format ndjson|csv] [--report FILE]
  Reads users (and their subscriptions) from NDJSON or CSV, as a stream. Users are matched by
  email: a new one is created, a known one updated, so running it twice changes nothing more.
  Rejected rows go to the report (default FILE.rejected.ndjson) with line numbers and errors.
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
    const reportPath = values.report ?? `${file}.rejected.ndjson`;
    const report = privateFile(reportPath);
    const bar = progress(`importing ${file}`);
    let result;
    try {
      result = await importFile(store, file, {
        format: formatOf(values.format, file),
        report: report.stream,
        audit: { actor: 'import', attributes: [] },
        onProgress: (rows, fraction) => bar.update(rows, fraction),
      });
      await report.commit();
    } catch (error) {
      report.abandon();
      throw error;
    }
    bar.finish(result.rows);
    process.stdout.write(
      `${result.created} users created, ${result.updated} updated, ${result.subscriptionsAdded} subscriptions added, ` +
        `${result.rejected} rows rejected${result.rejected > 0 ? ` (see ${reportPath})` : ''}\n`,
    );
    if (result.rejected > 0) process.exitCode = 1;
  }),
};
