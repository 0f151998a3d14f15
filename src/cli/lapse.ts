/**
 * `circulation lapse`: expires the subscriptions whose dateEnded has passed, once, then exits.
 */
import { lapseDue } from '../jobs/lapse.js';
import { withStore, type Command } from './command.js';

export const lapseCommand: Command = {
  summary: 'expire the subscriptions whose dateEnded has passed, then exit',
  run: withStore(async (store) => {
    process.stdout.write(`${await lapseDue(store)} subscriptions lapsed\n`);
  }),
};
