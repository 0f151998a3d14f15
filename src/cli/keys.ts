/**
 * `circulation keys create|list|revoke`: credentials managed from the machine itself, which
 * needs no credential, only the database (for the first admin key of a container, say).
 */
import { parseArgs } from 'node:util';
import { issueCredential } from '../secrets/api-credentials.js';
import { SCOPES, type ApiKey, type Scope } from '../domain/api-key.js';
import { formatInstant, nowInSeconds } from '../domain/dates.js';
import type { Store } from '../store/port.js';
import { COMMAND_LINE, CommandError, onlyId, UsageError, withStore, type Command } from './command.js';
import { didYouMean } from '../domain/suggestion.js';
import { formatTable } from './table.js';

export const keysCommand: Command = {
  summary: 'create, list and revoke API credentials (circulation keys --help)',
  usage: `Usage:
  circulation keys create --name NAME --scope read|write|admin|sign-in [--scope …] [--rate-limit N]
  circulation keys list
  circulation keys revoke ID
`,
  run: withStore(async (store, args) => {
    process.stdout.write(await keys(store, args));
  }),
};

const KEYS_ACTIONS = ['create', 'list', 'revoke'];

async function keys(store: Store, args: readonly string[]): Promise<string> {
  const [action, ...rest] = args;
  if (action === 'create') return create(store, rest);
  if (action === 'list') return list(await store.credentials.list());
  if (action === 'revoke') {
    const id = onlyId(rest, 'keys revoke takes one key id');
    const key = await store.credentials.revoke(id, nowInSeconds(), { actor: COMMAND_LINE, attributes: ['revokedAt'] });
    if (!key) throw new CommandError(`there is no API key with id ${id}`);
    return `revoked key ${id} (${key.name})\n`;
  }
  throw new UsageError(`there is no keys action "${action ?? ''}"${didYouMean(action ?? '', KEYS_ACTIONS)}`);
}

async function create(store: Store, args: readonly string[]): Promise<string> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      name: { type: 'string' },
      scope: { type: 'string', multiple: true },
      'rate-limit': { type: 'string' },
    },
    strict: true,
  });
  const name = values.name?.trim();
  if (!name || name.length > 100) throw new UsageError('keys create needs --name (1 to 100 characters)');
  const scopes = [...new Set(values.scope ?? [])];
  if (scopes.length === 0) throw new UsageError(`keys create needs --scope, one or more of ${SCOPES.join(', ')}`);
  const unknown = scopes.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
  if (unknown.length > 0) {
    throw new UsageError(
      `unknown scope ${unknown.map((scope) => `"${scope}"`).join(', ')}: the scopes are ${SCOPES.join(', ')}`,
    );
  }
  const rate = values['rate-limit'];
  if (rate !== undefined && !/^[1-9][0-9]{0,6}$/.test(rate)) {
    throw new UsageError('--rate-limit is a whole number of requests per second');
  }
  const { key, secret } = await issueCredential(
    store,
    { name, scopes: scopes as Scope[], rateLimit: rate === undefined ? null : Number(rate) },
    { actor: COMMAND_LINE, attributes: ['name', 'scopes', ...(rate === undefined ? [] : ['rateLimit'])] },
  );
  return (
    `created key ${key.id} (${key.name}) with scopes ${key.scopes.join(', ')}\n` +
    `its secret, shown only this once:\n\n  ${secret}\n\n` +
    `send it as:  Authorization: Bearer <secret>\n`
  );
}

function list(keys: readonly ApiKey[]): string {
  const rows = keys.map((k) => [
    k.id,
    k.name,
    k.scopes.join(','),
    k.rateLimit === null ? 'default' : `${k.rateLimit}/s`,
    formatInstant(k.createdAt),
    k.revokedAt === null ? 'active' : `revoked ${formatInstant(k.revokedAt)}`,
  ]);
  return formatTable(['ID', 'NAME', 'SCOPES', 'RATE', 'CREATED', 'STATE'], rows);
}
