/**
 * `circulation prune`: removes what has outlived its retention (the RETENTION settings), once,
 * then exits.
 */
import { pruneExpired } from '../jobs/retention.js';
import { withStore, type Command } from './command.js';

export const pruneCommand: Command = {
  summary: 'remove what has outlived its retention (idempotency keys, deliveries, audit), then exit',
  run: withStore(async (store, _args, config) => {
    const pruned = await pruneExpired(store, config.retention);
    process.stdout.write(
      `${pruned.idempotencyKeys} idempotency keys, ${pruned.deliveries} webhook deliveries and ` +
        `${pruned.auditEntries} audit entries removed\n`,
    );
  }),
};
