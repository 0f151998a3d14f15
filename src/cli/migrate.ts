/**
 * `circulation migrate`: brings the schema up to this release and exits (serving does the same
 * at start, under a lock where several processes may start at once).
 */
import type { Command } from './command.js';
import { openForCommand } from './database.js';

export const migrateCommand: Command = {
  summary: 'bring the database schema up to this release, then exit',
  async run(config) {
    const store = await openForCommand(config, { create: true });
    await store.close();
    process.stdout.write('the database schema is up to date\n');
  },
};
