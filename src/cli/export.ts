/**
 * `circulation export`: users (and their subscriptions) to stdout, filtered as the API filters,
 * fulfilment lists included: `--newsletter daily` (its members), `--status active --resource print`
 * (who gets the print edition now, with their addresses in the CSV).
 */
import { parseArgs } from 'node:util';
import { Type } from '@sinclair/typebox';
import { nowInSeconds } from '../domain/dates.js';
import { userSubscriptionFilter } from '../domain/entitlement.js';
import { UserFilterValues } from '../domain/user-filters.js';
import { compileSchema, problemsOf } from '../domain/validation.js';
import type { Store } from '../store/port.js';
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
  subscriptions: { type: 'boolean' },
} as const;

async function exportToStdout(store: Store, args: readonly string[]): Promise<void> {
  const { values, tokens } = parseArgs({ args: [...args], options: OPTIONS, strict: true, tokens: true });
  refuseFilterProblems(values, tokens);
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
