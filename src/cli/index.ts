/**
 * The `circulation` command: the table of its commands, and how a run ends (usage errors exit 2,
 * failures 1, with one line on stderr). Settings come from the environment, as for the service.
 */
import { ConfigError, loadConfig, type Config } from '../config.js';
import { UsageError, type Command } from './command.js';
import { exportCommand } from './export.js';
import { importCommand } from './import.js';
import { keysCommand } from './keys.js';
import { lapseCommand } from './lapse.js';
import { migrateCommand } from './migrate.js';
import { pruneCommand } from './prune.js';
import { seedCommand } from './seed.js';
import { serveCommand } from './serve.js';

const COMMANDS: Record<string, Command> = {
  serve: serveCommand,
  migrate: migrateCommand,
  keys: keysCommand,
  import: importCommand,
  export: exportCommand,
  seed: seedCommand,
  lapse: lapseCommand,
  prune: pruneCommand,
};

const USAGE = `Usage: circulation <command>

Commands:
${Object.entries(COMMANDS)
  .map(([name, command]) => `  ${name.padEnd(9)} ${command.summary}`)
  .join('\n')}

Settings are read from the environment: PORT, HOST, DATABASE_URL, DATABASE_POOL_SIZE,
DATABASE_STATEMENT_TIMEOUT_MS, DATABASE_CONNECT_TIMEOUT_MS, SQLITE_SYNCHRONOUS,
SQLITE_BUSY_TIMEOUT_MS, PUBLIC_URL, TRUST_PROXY, BODY_LIMIT_BYTES, LOG_LEVEL, AUTH,
CIRCULATION_ADMIN_KEY, FIRST_ADMIN_KEY_FILE, SERVICE_SECRET_KEY, RATE_LIMIT, RATE_LIMIT_BURST,
SHUTDOWN_DRAIN_MS, SHUTDOWN_GRACE_MS, LAPSE_INTERVAL_SECONDS, RETENTION_INTERVAL_SECONDS,
IDEMPOTENCY_RETENTION_HOURS, DELIVERY_RETENTION_DAYS, AUDIT_RETENTION_DAYS, WEBHOOK_SECRET_KEY,
WEBHOOK_ALLOWED_NETWORKS, WEBHOOK_DELIVERY, WEBHOOK_TIMEOUT_MS, WEBHOOK_CONCURRENCY,
WEBHOOK_POLL_MS, WEBHOOK_RETRY_BASE_MS, WEBHOOK_RETRY_MAX_MS, WEBHOOK_MAX_ATTEMPTS. See the README.
`;

/** Runs `circulation <args>`; with no command it serves, as `npm start` does. */
export async function runCli(args: readonly string[]): Promise<void> {
  const [name = 'serve', ...rest] = args;
  if (name === '--help' || name === '-h' || name === 'help' || rest.includes('--help')) {
    process.stdout.write(COMMANDS[name]?.usage ?? USAGE);
    return;
  }
  const command = COMMANDS[name];
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
    await command.run(config, rest);
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`circulation: ${(error as Error).message}\n\n${command.usage ?? USAGE}`);
      process.exit(2);
    }
    process.stderr.write(`circulation: could not ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
