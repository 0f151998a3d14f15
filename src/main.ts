#!/usr/bin/env node
/**
 * The process entry: `npm start` and the `circulation` command (the package's bin) alike. With
 * no command it serves.
 */
// First, so that V8 is told before anything else is loaded.
import './v8-flags.js';
import { runCli } from './cli/index.js';

await runCli(process.argv.slice(2));
