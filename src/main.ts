#!/usr/bin/env node
/**
 * The process entry: `npm start` and the `circulation` command (the package's bin) alike. With
 * no command it serves.
 */
import { runCli } from './cli/index.js';

await runCli(process.argv.slice(2));
