/**
 * What every `circulation` command is: a line for the command list, its own usage, and what it
 * does with the settings and its arguments (how it fails: errors.ts).
 */
import type { Config } from '../config.js';
import type { AuditContext } from '../domain/audit.js';
import type { Store } from '../store/port.js';
import { openForCommand } from './database.js';
import { UsageError } from './errors.js';

export { CommandError, UsageError } from './errors.js';

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

/** The option that lets a command other than serve, migrate and seed create the database (see database.ts). */
export const CREATE_OPTION = '--create';

/**
 * A command's work on the configured database, closed however the work ends. Only a command that
 * `creates` (seed), or one given --create, may make a database where there is none.
 */
export function withStore(
  work: (store: Store, args: readonly string[], config: Config) => Promise<void>,
  { creates = false }: { creates?: boolean } = {},
): Command['run'] {
  return async (config, args) => {
    const store = await openForCommand(config, { create: creates || args.includes(CREATE_OPTION) });
    try {
      await work(
        store,
        args.filter((arg) => arg !== CREATE_OPTION),
        config,
      );
    } finally {
      await store.close();
    }
  };
}
