/**
 * The `circulation` command: the table of its commands, and how a run ends (usage errors exit 2,
 * failures 1, with one line on stderr). Settings come from the environment, as for the service.
 */
import { ConfigError, loadConfig, SETTINGS, type Config } from '../config.js';
import { didYouMean } from '../domain/suggestion.js';
import { backupCommand } from './backup.js';
import { CommandError, UsageError, type Command } from './command.js';
import { exportCommand } from './export.js';
import { exportReaderCommand } from './export-reader.js';
import { importCommand } from './import.js';
import { keysCommand } from './keys.js';
import { staffCommand } from './staff.js';
import { lapseCommand } from './lapse.js';
import { migrateCommand } from './migrate.js';
import { pruneCommand } from './prune.js';
import { restoreCommand } from './restore.js';
import { seedCommand } from './seed.js';
import { serveCommand } from './serve.js';

const COMMANDS: Record<string, Command> = {
  serve: serveCommand,
  migrate: migrateCommand,
  keys: keysCommand,
  staff: staffCommand,
  import: importCommand,
  export: exportCommand,
  'export-reader': exportReaderCommand,
  seed: seedCommand,
  lapse: lapseCommand,
  prune: pruneCommand,
  backup: backupCommand,
  restore: restoreCommand,
};

const USAGE = `Usage: circulation <command>

Commands:
${Object.entries(COMMANDS)
  .map(([name, command]) => `  ${name.padEnd(13)} ${command.summary}`)
  .join('\n')}

Each command says first, on stderr, which database it uses (DATABASE_URL). Only serve, migrate and
seed create one where there is none; any other command refuses, unless given --create.

Settings are read from the environment (docs/operating/settings.md says what each does):
${Object.entries(SETTINGS)
  .map(([group, names]) => wrapped(`  ${`${group}:`.padEnd(13)} `, names))
  .join('\n')}
`;

/** The names after `head`, wrapped at 100 columns under it. */
function wrapped(head: string, names: readonly string[]): string {
  const lines = [head];
  for (const name of names) {
    const last = lines.length - 1;
    const line = lines[last] as string;
    const separated = line.trim().endsWith(':') ? `${line}${name}` : `${line}, ${name}`;
    if (separated.length > 100) lines.push(`${' '.repeat(head.length)}${name}`);
    else lines[last] = separated;
  }
  return lines.join(',\n');
}

/** Runs `circulation <args>`; with no command it serves, as `npm start` does. */
export async function runCli(args: readonly string[]): Promise<void> {
  const [name = 'serve', ...rest] = args;
  if (name === '--help' || name === '-h' || name === 'help' || rest.includes('--help')) {
    process.stdout.write(COMMANDS[name]?.usage ?? USAGE);
    return;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(
      `circulation: there is no command "${name}"${didYouMean(name, Object.keys(COMMANDS))}\n\n${USAGE}`,
    );
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
    if (error instanceof CommandError) {
      process.stderr.write(`circulation: ${error.message}\n`);
      process.exit(1);
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`circulation: ${name} stopped on an error it did not expect: ${message}\n`);
    process.exit(1);
  }
}
