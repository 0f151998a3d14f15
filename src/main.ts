/**
 * The process entry of `npm start`: the `circulation serve` command.
 */
import { runCli } from './cli/index.js';

await runCli(['serve', ...process.argv.slice(2)]);
