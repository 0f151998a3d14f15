/**
 * `circulation lapse`: expires the subscriptions whose dateEnded has passed, once, then exits;
 * it also forgets the starts that have come, as a serving process does every minute.
 */
import { lapseDue } from '../jobs/lapse.js';
import { forgetStartsThatCame } from '../jobs/starts.js';
import { withStore, type Command } from './command.js';

export const lapseCommand: Command = {
  summary: 'expire the subscriptions whose dateEnded has passed, then exit',
  run: withStore(async (store) => {
    await forgetStartsThatCame(store);
    process.stdout.write(`${await lapseDue(store)} subscriptions lapsed\n`);
  }),
};
