/**
 * `circulation export`: users (and their subscriptions) to stdout, filtered as the API filters,
 * fulfilment lists included: `--newsletter daily` (its members), `--status active --resource print`
 * (who gets the print edition now, with their addresses in the CSV).
 */
import { parseArgs } from 'node:util';
import { nowInSeconds } from '../domain/dates.js';
import { userSubscriptionFilter } from '../domain/entitlement.js';
import { exportUsers } from '../transfer/export.js';
import { UsageError, withStore, type Command } from './command.js';
import { formatOf } from './formats.js';

export const exportCommand: Command = {
  summary: 'write users (and subscriptions) as NDJSON or CSV (circulation export --help)',
  usage: `Usage: circulation export [--format ndjson|csv] [--email VALUE] [--circulation-number VALUE]
                         [--newsletter ID] [--status active [--resource R] [--product ID]]
                         [--subscriptions]
  Streams users to stdout, optionally filtered as the API filters them: --newsletter its members;
  --status active those with a subscription active now, narrowed by --resource (online, print,
  print-online: what it gives, by its own resource or its product's) and --product. The print
  mailing list, with addresses: --format csv --status active --resource print.
  --subscriptions (NDJSON) adds each user's subscriptions.
`,
  run: withStore(async (store, args) => {
    const { values } = parseArgs({
      args: [...args],
      options: {
        format: { type: 'string' },
        email: { type: 'string' },
        'circulation-number': { type: 'string' },
        newsletter: { type: 'string' },
        status: { type: 'string' },
        resource: { type: 'string' },
        product: { type: 'string' },
        subscriptions: { type: 'boolean' },
      },
      strict: true,
    });
    const format = formatOf(values.format);
    if (format === 'csv' && values.subscriptions) throw new UsageError('--subscriptions needs --format ndjson');
    const { filter, problem } = userSubscriptionFilter(
      { status: values.status, resource: values.resource, product: values.product },
      nowInSeconds(),
    );
    if (problem) throw new UsageError(`--${problem.name} ${problem.detail}`);
    const email = values.email;
    await exportUsers(store, process.stdout, {
      format,
      ...(email === undefined ? {} : { email: email.includes('@') ? { address: email } : { domain: email } }),
      ...(values['circulation-number'] === undefined ? {} : { circulationNumber: values['circulation-number'] }),
      ...(values.newsletter === undefined ? {} : { newsletter: values.newsletter }),
      ...(filter ? { activeSubscription: filter } : {}),
      subscriptions: values.subscriptions ?? false,
    });
  }),
};
