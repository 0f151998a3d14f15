/**
 * What every `circulation` command is: a line for the command list, its own usage, and what it
 * does with the settings and its arguments. A `UsageError` means the arguments were wrong: the
 * message and the command's usage are printed, and the exit code is 2. A `CommandError` means the
 * command could not do what was asked (no such key): only its message, and the exit code is 1.
 */
import { existsSync } from 'node:fs';
import type { Config } from '../config.js';
import type { AuditContext } from '../domain/audit.js';
import { openStore } from '../store/open.js';
import type { Store } from '../store/port.js';

export interface Command {
  summary: string;
  usage?: string;
  run(config: Config, args: readonly string[]): Promise<void>;
}

/** The audit trail's name for changes made from the command line. */
export const COMMAND_LINE: AuditContext['actor'] = 'cli';

/** The one record id an action such as `revoke ID` takes; anything else is a UsageError saying `usage`. */
export function onlyId(args: readonly string[], usage: string): string {
  const [id] = args;
  if (args.length !== 1 || !id || !/^[1-9][0-9]{0,14}$/.test(id)) throw new UsageError(usage);
  return id;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

export class CommandError extends Error {
  override name = 'CommandError';
}

/**
 * A command's work on the configured database, closed however the work ends. A command that only
 * reads (`existing`) refuses a SQLite file that is not there: opening would make an empty one, and
 * a mistyped path would read as a database with nothing in it.
 */
export function withStore(
  work: (store: Store, args: readonly string[], config: Config) => Promise<void>,
  { existing = false }: { existing?: boolean } = {},
): Command['run'] {
  return async (config, args) => {
    const { database } = config;
    if (existing && database.kind === 'sqlite' && !existsSync(database.path)) {
      throw new CommandError(`there is no database at ${database.path} (DATABASE_URL): nothing to read`);
    }
    const store = await openStore(database, {
      strictReferences: config.strictReferences,
      pageReadLimit: config.pageReadLimit,
    });
    try {
      await work(store, args, config);
    } finally {
      await store.close();
    }
  };
}
