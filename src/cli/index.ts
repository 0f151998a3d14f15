/**
 * The commands of `circulation`. Settings come from the environment, as for the service itself.
 */
import { ConfigError, loadConfig, type Config } from '../config.js';
import { KEYS_USAGE, keysCommand, UsageError } from './keys.js';
import { lapseDue } from '../jobs/lapse.js';
import { serve } from './serve.js';
import type { Store } from '../store/port.js';
import {
  EXPORT_USAGE,
  exportCommand,
  IMPORT_USAGE,
  importCommand,
  SEED_USAGE,
  seedCommand,
} from './transfer.js';
import { openStore } from '../store/open.js';

const USAGE = `Usage: circulation <command>

Commands:
  serve     serve the API (what \`npm start\` runs)
  migrate   bring the database schema up to this release, then exit
  keys      create, list and revoke API credentials (circulation keys --help)
  import    read users and subscriptions from NDJSON or CSV (circulation import --help)
  export    write users (and subscriptions) as NDJSON or CSV (circulation export --help)
  seed      fill the database with demo data (circulation seed --help)
  lapse     expire the subscriptions whose dateEnded has passed, then exit

Settings are read from the environment: PORT, HOST, DATABASE_URL, DATABASE_POOL_SIZE,
DATABASE_STATEMENT_TIMEOUT_MS, SQLITE_SYNCHRONOUS, PUBLIC_URL, TRUST_PROXY, LOG_LEVEL, AUTH,
CIRCULATION_ADMIN_KEY, RATE_LIMIT, RATE_LIMIT_BURST, LAPSE_INTERVAL_SECONDS. See the README.
`;

const HELP: Record<string, string> = { keys: KEYS_USAGE, seed: SEED_USAGE, import: IMPORT_USAGE, export: EXPORT_USAGE };

/** A command that works on the configured database, closed however the command ends. */
function withStore(command: (store: Store, args: readonly string[]) => Promise<void>) {
  return async (config: Config, args: readonly string[]) => {
    const store = await openStore(config.database);
    try {
      await command(store, args);
    } finally {
      await store.close();
    }
  };
}

const commands: Record<string, (config: Config, args: readonly string[]) => Promise<void>> = {
  serve,
  keys: withStore(async (store, args) => {
    process.stdout.write(await keysCommand(store, args));
  }),
  seed: withStore(seedCommand),
  lapse: withStore(async (store) => {
    process.stdout.write(`${await lapseDue(store)} subscriptions lapsed\n`);
  }),
  import: withStore(importCommand),
  export: withStore(exportCommand),
  async migrate(config) {
    // Opening a store migrates it, under a lock where several processes may start at once.
    const store = await openStore(config.database);
    await store.close();
    process.stdout.write('the database schema is up to date\n');
  },
};

export async function runCli(args: readonly string[]): Promise<void> {
  const [name = 'serve', ...rest] = args;
  if (name === '--help' || name === '-h' || name === 'help' || rest.includes('--help')) {
    process.stdout.write(HELP[name] ?? USAGE);
    return;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`circulation: unknown command "${name}"\n\n${USAGE}`);
    process.exit(2);
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`circulation: ${error.message}\n`);
    process.exit(2);
  }
  try {
    await command(config, rest);
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`circulation: ${(error as Error).message}\n\n${HELP[name] ?? USAGE}`);
      process.exit(2);
    }
    process.stderr.write(`circulation: could not ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
