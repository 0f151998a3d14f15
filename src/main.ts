/**
 * The process entry of `npm start`: the `circulation serve` command.
 */
import { runCli } from './commands.js';

await runCli(['serve', ...process.argv.slice(2)]);
