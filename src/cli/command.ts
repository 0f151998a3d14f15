/**
 * What every `circulation` command is: a line for the command list, its own usage, and what it
 * does with the settings and its arguments. A `UsageError` means the arguments were wrong: the
 * message and the command's usage are printed, and the exit code is 2.
 */
import type { Config } from '../config.js';
import { openStore } from '../store/open.js';
import type { Store } from '../store/port.js';

export interface Command {
  summary: string;
  usage?: string;
  run(config: Config, args: readonly string[]): Promise<void>;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

/** A command's work on the configured database, closed however the work ends. */
export function withStore(
  work: (store: Store, args: readonly string[], config: Config) => Promise<void>,
): Command['run'] {
  return async (config, args) => {
    const store = await openStore(config.database);
    try {
      await work(store, args, config);
    } finally {
      await store.close();
    }
  };
}
