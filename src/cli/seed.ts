/**
 * `circulation seed --users N`: demo data, in bulk.
 */
import { parseArgs } from 'node:util';
import { seed } from '../transfer/seed.js';
import { UsageError, withStore, type Command } from './command.js';
import { progress } from './progress.js';

export const seedCommand: Command = {
  summary: 'fill the database with demo data (circulation seed --help)',
  usage: `Usage: circulation seed --users N
  Fills the database with N demo users (three subscriptions each), in bulk.
`,
  run: withStore(
    async (store, args) => {
      const { values } = parseArgs({ args: [...args], options: { users: { type: 'string' } }, strict: true });
      if (!/^[1-9][0-9]{0,8}$/.test(values.users ?? '')) throw new UsageError('seed needs --users, a whole number');
      const users = Number(values.users);
      const bar = progress('seeding');
      await seed(store, users, { onProgress: (done) => bar.update(done, done / users) });
      bar.finish(users);
    },
    { creates: true },
  ),
};
