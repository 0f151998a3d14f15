/**
 * `circulation export`: users (and their subscriptions) to stdout, filtered as the API filters.
 */
import { parseArgs } from 'node:util';
import { exportUsers } from '../transfer/export.js';
import { UsageError, withStore, type Command } from './command.js';
import { formatOf } from './formats.js';

export const exportCommand: Command = {
  summary: 'write users (and subscriptions) as NDJSON or CSV (circulation export --help)',
  usage: `Usage: circulation export [--format ndjson|csv] [--email VALUE] [--circulation-number VALUE]
                         [--subscriptions]
  Streams users to stdout, optionally filtered as the API filters them; --subscriptions (NDJSON)
  adds each user's subscriptions.
`,
  run: withStore(async (store, args) => {
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
    const format = formatOf(values.format);
    if (format === 'csv' && values.subscriptions) throw new UsageError('--subscriptions needs --format ndjson');
    const email = values.email;
    await exportUsers(store, process.stdout, {
      format,
      ...(email === undefined ? {} : { email: email.includes('@') ? { address: email } : { domain: email } }),
      ...(values['circulation-number'] === undefined ? {} : { circulationNumber: values['circulation-number'] }),
      subscriptions: values.subscriptions ?? false,
    });
  }),
};
